/* The memory effects of recorded syscalls on a replay: the bytes the kernel wrote, and the
 * address-space changes (mmap, munmap, mprotect, mremap, brk) made again at the recorded
 * addresses. A pinball is untrusted: each effect is applied only where the app's memory is
 * (as the JIT's map of it says) and as the kernel would have allowed it, never to the
 * replayer's own memory. App thread, TLS-free. */
#ifndef REPLAYER_INJECT_MEMORY_H
#define REPLAYER_INJECT_MEMORY_H

#include "replay_input.h"

/* The kernel's writes of event e. NULL, or why they cannot be applied (the divergence). */
const char *inject_writes(const struct replay_event *e, char *why, size_t whylen);

/* madvise(args a) of event e, then its writes: MADV_DONTNEED and MADV_REMOVE zero what they
 * zeroed in the recording (the recorder has file pages in the writes). NULL, or why it
 * cannot be applied. */
const char *inject_advice(const long a[6], const struct replay_event *e, char *why, size_t whylen);

/* Makes the address-space change of event e (syscall nr with args a, of thread tid) again,
 * and its writes (a mapped file's contents, or the pages of it the region touched).
 * *result is what the change gave here; NULL, or why it was not made. */
const char *inject_memory_change(const struct replay_input *in, uint32_t tid, long nr,
				 const long a[6], const struct replay_event *e, long *result,
				 char *why, size_t whylen);

/* Replaces the app's page at addr with one past the end of a file (pinball.h past_end),
 * which any access faults with SIGBUS as in the recording. False when it cannot. */
bool inject_past_end_page(uint64_t addr);

/* The pages (n of them) the mmap event of thread tid at icount puts in place. */
const struct replay_mmap_page *inject_mmap_pages_of(const struct replay_input *in, uint32_t tid,
						    uint64_t icount, size_t *n);

#endif
