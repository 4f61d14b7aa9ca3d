/* What each bundled profiler defines; bundled.c, linked into each, makes the rest of the
 * plug-in of them: its table, and a process function that makes one sample per captured
 * value, with the entry's pc and contexts. */
#ifndef VPROF_PROFILERS_BUNDLED_H
#define VPROF_PROFILERS_BUNDLED_H

#include "pintrace_vprofiler.h"

extern const char bundled_name[];
extern const struct vprof_spec bundled_spec;
const char *bundled_preface(const struct vprof_insn *insn);
void bundled_format(const struct vprof_insn *insn, uint64_t value, char *buf, size_t size);

#endif
