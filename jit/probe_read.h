/* Reading app memory that may fault, as cheaply as a copy: the translator asks once per
 * page whether app code is readable there, thousands of times in a short process, where a
 * process_vm_readv took about a microsecond each; the recorder copies the pages the app
 * touches, some of which may lie past the end of their file. */
#ifndef JIT_PROBE_READ_H
#define JIT_PROBE_READ_H

#include <stddef.h>
#include <stdint.h>

/* Copies len bytes at src to dst: 0, or, when reading them faults (unmapped, not readable,
 * past the end of a mapped file), a negative value naming the fault (probe_read_signal,
 * _code), dst then partly written. A page the runtime withholds (jit_grant_access) is
 * granted first, as for any read of the runtime's. */
int probe_read(void *dst, uint64_t src, size_t len);

/* The byte at addr (0-255), or the failure as probe_read's. */
static inline int probe_read_byte(uint64_t addr)
{
	uint8_t byte;
	int r = probe_read(&byte, addr, 1);
	return r < 0 ? r : byte;
}

static inline int probe_read_signal(int failure)
{
	return -failure >> 8;
}
static inline int probe_read_code(int failure)
{
	return -failure & 0xff;
}

/* For signals.c: where a fault at pc resumes when it is the probe's load (0 otherwise),
 * and what the probe then returns. */
static inline uint64_t probe_read_resume_pc(uint64_t pc)
{
	extern const char probe_read_load[], probe_read_failed[];
	return pc == (uint64_t)probe_read_load ? (uint64_t)probe_read_failed : 0;
}
static inline int probe_read_failure(int sig, int code)
{
	return -(sig << 8 | (code & 0xff));
}

#endif
