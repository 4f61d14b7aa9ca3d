/* The -jit:persist directory's housekeeping, and the -jit:session one's. A program's files are
 * named <family>-<key>.jit and <family>-<key>.forked.jit (persist.c: the family is the program's
 * path and what shapes its code, the key adds the builds of the runtime and the program),
 * each written as NAME.<pid>.tmp by the process <pid>, then renamed to NAME. */
#ifndef JIT_PERSIST_DIR_H
#define JIT_PERSIST_DIR_H

#include <stdint.h>

/* Removes from dir the temporary files whose writer no longer runs (killed before its
 * rename), and the family's files of other keys (another build of the runtime or of the
 * program: they would never be read again). TLS-free. */
void persist_dir_sweep(const char *dir, uint64_t family, uint64_t key);

/* A run's session directory (-jit:session) is named PERSIST_SESSION_PREFIX<pid>.<suffix>
 * in the temporary directory, after the process that made it, which removes it at its end.
 * That pid (0: not such a name). TLS-free. */
#define PERSIST_SESSION_PREFIX "pintrace-jit."
long persist_session_owner(const char *dir);

/* Removes dir and the files in it (not a tree: a session directory). TLS-free. */
void persist_dir_remove(const char *dir);

/* The bytes of the files in dir. TLS-free. */
uint64_t persist_dir_bytes(const char *dir);

#endif
