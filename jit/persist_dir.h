/* The -jit:persist directory's housekeeping. A file is written as NAME.<pid>.tmp by the
 * process <pid>, then renamed to NAME (persist.c); a writer killed in between leaves its
 * temporary file behind. */
#ifndef JIT_PERSIST_DIR_H
#define JIT_PERSIST_DIR_H

/* Removes the temporary files in dir whose writer no longer runs. TLS-free. */
void persist_dir_sweep(const char *dir);

#endif
