/* What record and replay know about the kernel's system calls on x86-64 (DESIGN.md: "A
 * table describes every x86-64 syscall"): for every number, how a replay treats it, and
 * which of the caller's memory the kernel reads and writes, with how each size is found.
 * The logger and the replayer both decide from here, so they cannot disagree.
 *
 * Pure functions of the arguments and the result, except that structures the arguments
 * point to (an iovec array, a msghdr, a socklen_t) are read from app memory with
 * jit_read_app_memory (a bad pointer gives no range, never a fault). TLS-free. */
#ifndef KERNEL_MODEL_SYSCALL_MODEL_H
#define KERNEL_MODEL_SYSCALL_MODEL_H

#include <stdbool.h>
#include <stdint.h>

struct mem_range {
	uint64_t addr;
	uint64_t len;
};

/* The most ranges one call yields (iovec arrays beyond it are cut: see syscall_writes). */
enum { SYSCALL_MAX_RANGES = 64 };

/* How a replay stands in for the kernel. */
enum syscall_replay {
	/* The recorded result and memory writes are injected; the kernel is not called. */
	SYSCALL_REPLAY_INJECT = 1,
	/* The address space changes (mmap, munmap, mprotect, mremap, brk): the replayer makes
	 * the change again at the recorded addresses (jit_app_memory_syscall); contents come
	 * from the recording. */
	SYSCALL_REPLAY_MEMORY_MAP,
	/* The runtime emulates it from state it keeps for the app (signal actions, mask and
	 * alternate stack, the %fs base): the emulation runs again, as in the recording. */
	SYSCALL_REPLAY_RUNTIME,
	/* exit, exit_group: where the replay of the thread (or the process) ends. */
	SYSCALL_REPLAY_EXIT,
	/* Its effects cannot be recorded (the kernel writes app memory later, on its own:
	 * io_uring, AIO; or maps memory outside the mmap family: shmat). Inside a region the
	 * recorder makes it fail with ENOSYS, as the kernel does without the feature, and the
	 * replay injects that. */
	SYSCALL_REPLAY_REFUSED,
};

/* A number the model describes (every syscall of the x86-64 table the build's kernel
 * headers list). */
bool syscall_known(long nr);

/* The syscall's name ("openat"), or NULL for a number that is not a syscall. */
const char *syscall_name(long nr);

/* How the replay treats nr with these arguments; 0 for an unknown number. */
enum syscall_replay syscall_replay_kind(long nr, const long args[6]);

/* The ranges of the caller's memory the kernel wrote, given the arguments and the result
 * (read after the call, e.g. the final length of a sockaddr). Fills out[] (at most
 * SYSCALL_MAX_RANGES) and returns how many; -1 when the model cannot tell for these
 * arguments (an unknown ioctl request, a command whose size only the kernel knows):
 * the call's effects beyond its result are then unmodelled. Over-approximation is safe by
 * design: a range the kernel did not write holds what the caller had there. */
int syscall_writes(long nr, const long args[6], long result, struct mem_range *out);

/* The ranges the kernel may read or write, known before the call (buffers at their
 * capacity, input buffers at their length), for a recorder that must make them
 * accessible first. NUL-terminated strings (paths) are not listed: their length is found
 * by reading them. Returns how many (at most SYSCALL_MAX_RANGES). */
int syscall_accesses(long nr, const long args[6], struct mem_range *out);

/* Whether a call may wait in the kernel for something another thread of the process does
 * (a futex, a pipe, a lock, a signal...). */
enum syscall_wait {
	SYSCALL_WAITS_NEVER = 1,
	/* only when the descriptor in argument *fd_arg is a pipe, a socket, a terminal...: not
	 * a regular file or a block device */
	SYSCALL_WAITS_ON_FD,
	SYSCALL_MAY_WAIT, /* any call the model does not know to be quick */
};
enum syscall_wait syscall_wait_kind(long nr, const long args[6], int *fd_arg);

/* Where the data come from that a call writes to a file descriptor. */
enum syscall_output {
	SYSCALL_OUTPUT_NONE = 0,
	/* the caller's buffers (write, pwrite64, writev, sendto, sendmsg, vmsplice, ...) */
	SYSCALL_OUTPUT_MEMORY,
	/* another file, inside the kernel (sendfile, splice, copy_file_range, tee) */
	SYSCALL_OUTPUT_KERNEL,
};

/* Whether nr writes data to a file descriptor, and which argument (*fd_arg) that is. */
enum syscall_output syscall_output(long nr, int *fd_arg);

/* The caller's memory holding the `result` bytes a SYSCALL_OUTPUT_MEMORY call wrote, in
 * the order they were written. Returns how many ranges (at most SYSCALL_MAX_RANGES). */
int syscall_output_ranges(long nr, const long args[6], long result, struct mem_range *out);

/* The CRC-32C of the bytes a SYSCALL_OUTPUT_MEMORY call wrote (its output ranges, read
 * now), so that a replay can tell whether the app wrote the same. False when nr is no
 * such call, wrote nothing, or some byte cannot be read. */
bool syscall_output_crc(long nr, const long args[6], long result, uint32_t *crc);

#endif
