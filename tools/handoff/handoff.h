/* Handing buffers from app threads to a helper thread: app threads fill buffers and hand
 * them over (no I/O, no glibc: TLS-free); a helper thread, created by the driver before
 * the app starts with every signal blocked, consumes them in the order they were handed
 * over (so each thread's buffers stay in its order) and writes, compresses, decodes.
 * Memory is bounded: a thread that gets ahead of the helper by HANDOFF_MAX_QUEUED buffers
 * waits for it. A forked child (the helper stays in the parent) drops its buffers. */
#ifndef TOOL_HANDOFF_H
#define TOOL_HANDOFF_H

#include <stddef.h>
#include <stdint.h>

enum {
	HANDOFF_BUFFER_BYTES = 1 << 20,
	HANDOFF_MAX_QUEUED = 64,
};

struct handoff_buffer {
	struct handoff_buffer *next;
	uint32_t tid;  /* the thread that filled it */
	uint32_t used; /* bytes of words[] */
	uint64_t words[HANDOFF_BUFFER_BYTES / 8];
};

struct handoff_ops {
	/* Helper thread: one buffer's contents. */
	void (*consume)(const struct handoff_buffer *b, void *arg);
	/* Helper thread, once, after the last buffer: complete the output. */
	void (*finish)(void *arg);
	void *arg;
};

struct handoff;

/* Driver thread, before the app starts: starts the helper. NULL with a one-line reason. */
struct handoff *handoff_start(const struct handoff_ops *ops, char *err, size_t errlen);

/* App threads. An empty buffer (used = 0); NULL when out of memory. */
struct handoff_buffer *handoff_get(struct handoff *h);
/* The buffer goes to the helper. */
void handoff_put(struct handoff *h, struct handoff_buffer *b);
/* No more buffers: returns once the helper consumed every buffer and finished. */
void handoff_finish(struct handoff *h);

#endif
