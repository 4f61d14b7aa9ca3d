/* The app's view of its memory map (/proc/self/maps and smaps): the kernel's, without the
 * vDSO, which the runtime does not give the app (no AT_SYSINFO_EHDR in its auxv). A program
 * that found [vdso] in its maps but no vDSO in its auxv, or the other way round, would take
 * a wrong turn (walk an ELF image it was not given, or think the kernel has none). */
#ifndef JIT_PROC_MAPS_H
#define JIT_PROC_MAPS_H

#include <stddef.h>

/* Drops from text (len bytes, whole lines) every mapping of the vDSO and its data ([vdso],
 * [vvar], [vvar_vclock]) with the lines describing it (smaps); returns the new length. */
size_t proc_maps_without_vdso(char *text, size_t len);

/* A memory file holding the app's view of this process's `leaf` ("maps" or "smaps"),
 * opened with `flags`: its descriptor, or -errno. */
long proc_maps_open(const char *leaf, int flags);

#endif
