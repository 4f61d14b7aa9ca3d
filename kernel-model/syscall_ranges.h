/* Inside the syscall model: collecting ranges, and the calls whose ranges depend on a
 * command or a structure (syscall_commands.c). */
#ifndef KERNEL_MODEL_SYSCALL_RANGES_H
#define KERNEL_MODEL_SYSCALL_RANGES_H

#include <stdbool.h>
#include <stdint.h>

#include "syscall_model.h"

struct ranges {
	struct mem_range *out;
	int n;
	bool after;	 /* the ranges written (result known), not those accessed before */
	long result;	 /* with after */
	bool unmodelled; /* the model cannot tell for these arguments */
};

/* Adds [addr, addr+len) unless either is zero (a NULL pointer is not memory). */
void ranges_add(struct ranges *r, uint64_t addr, uint64_t len);

/* An iovec array of count entries: written, the first `total` bytes; before the call,
 * every entry whole (total < 0). */
void ranges_add_iov(struct ranges *r, uint64_t iov, long count, long total);

/* Whether the call succeeded (a result that is not -errno). */
bool ranges_call_ok(const struct ranges *r);

/* Reads app memory without faulting; false when unreadable. */
bool ranges_read(void *dst, uint64_t addr, uint64_t len);

/* The calls whose ranges a command or a structure decides (ioctl, fcntl, prctl, recvmsg,
 * ...): adds them to r. */
void syscall_command_ranges(long nr, const long a[6], struct ranges *r);

#endif
