/* The kernel's x86-64 signal frame (struct rt_sigframe: return address, ucontext with the
 * registers, mask and a pointer to the xsave image, then the siginfo), built on the app's
 * stack when a handler is called and read back at rt_sigreturn. */
#ifndef JIT_SIGNAL_FRAME_H
#define JIT_SIGNAL_FRAME_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "thread_block.h"

struct frame_action {
	uint64_t handler, flags, restorer, mask;
};

/* Builds the frame for `sig` from t's state (registers, t->xsave_area, app_pc as rip) and
 * points t at the handler (rdi, rsi, rdx, rsp, rip, fresh FP state). altstack: the app's
 * alternate stack (used when the action asks for it and the thread is not already on it).
 * old_mask goes in the frame. False when the frame cannot be written (the kernel would
 * then kill the thread with SIGSEGV). */
bool signal_frame_push(struct jit_thread *t, int sig, const siginfo_t *info,
		       const struct frame_action *act, const stack_t *altstack, uint64_t old_mask);

/* rt_sigreturn: restores t's registers, FP state and app_pc from the frame at the app's
 * stack; *mask receives the mask to restore. False on an unreadable frame. */
bool signal_frame_pop(struct jit_thread *t, uint64_t *mask);

/* The bytes of the xsave image at fpstate in a frame the kernel built: what its software
 * bytes say it holds. Fewer than the CPU's whole area when a feature is off for the
 * process (AMX's tiles until it asks for them), and the frame may end right there, at the
 * end of a signal stack. */
size_t signal_frame_xsave_bytes(const void *fpstate);

#endif
