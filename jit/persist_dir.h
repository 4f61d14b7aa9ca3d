/* The -jit:persist directory's housekeeping. A program's files are named
 * <family>-<key>.jit and <family>-<key>.forked.jit (persist.c: the family is the program's
 * path and what shapes its code, the key adds the builds of the runtime and the program),
 * each written as NAME.<pid>.tmp by the process <pid>, then renamed to NAME. */
#ifndef JIT_PERSIST_DIR_H
#define JIT_PERSIST_DIR_H

#include <stdint.h>

/* Removes from dir the temporary files whose writer no longer runs (killed before its
 * rename), and the family's files of other keys (another build of the runtime or of the
 * program: they would never be read again). TLS-free. */
void persist_dir_sweep(const char *dir, uint64_t family, uint64_t key);

#endif
