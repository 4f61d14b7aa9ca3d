/* The app's view of its descriptor directories (/proc/self/fd, /proc/<pid>/fd, the same
 * under task/<tid>/, and fdinfo): the runtime's own descriptors are not listed, as they are
 * out of reach of close, dup2 and the app's limit (runtime_fds.h). A program that counts
 * its open descriptors, or closes every one it finds there, sees only its own. Likewise
 * its threads' directory (/proc/self/task) lists no helper thread of the runtime's
 * (helper_tids.h). */
#ifndef JIT_PROC_FDS_H
#define JIT_PROC_FDS_H

/* getdents or getdents64 (nr) for the app, with a[] its arguments: the kernel's, and when
 * the directory is one of the process's descriptor directories or its threads', without
 * the entries of the runtime's. The result as the kernel's (bytes, 0 at the end, -errno). */
long proc_fds_getdents(long nr, const long a[6]);

#endif
