#include "signal_frame.h"

#include <string.h>

#include "app_copy.h"
#include "instrument.h"
#include "rt_syscall.h"
#include "threads.h"

/* The kernel's layouts (arch/x86/include/uapi/asm/sigcontext.h and ucontext.h). */
struct k_sigcontext {
	uint64_t r8, r9, r10, r11, r12, r13, r14, r15;
	uint64_t rdi, rsi, rbp, rbx, rdx, rax, rcx, rsp, rip, eflags;
	uint16_t cs, gs, fs, ss;
	uint64_t err, trapno, oldmask, cr2, fpstate;
	uint64_t reserved[8];
};

struct k_ucontext {
	uint64_t flags, link;
	stack_t stack;
	struct k_sigcontext mcontext;
	uint64_t sigmask;
};

struct k_rt_sigframe {
	uint64_t pretcode;
	struct k_ucontext uc;
	siginfo_t info;
};
_Static_assert(sizeof(struct k_ucontext) == 304, "kernel ucontext");

enum {
	K_UC_FP_XSTATE = 1,
	K_UC_SIGCONTEXT_SS = 2,
	K_UC_STRICT_RESTORE_SS = 4,
	REDZONE = 128,
	K_FP_XSTATE_MAGIC1 = 0x46505853,
	K_FP_XSTATE_MAGIC2 = 0x46505845,
	SW_RESERVED_OFFSET = 464,
	USER_CS = 0x33,
	USER_SS = 0x2b,
};

/* Flags a handler starts without, and those sigreturn may restore. */
#define CLEARED_FLAGS (0x400ull | 0x100ull | 0x10000ull) /* DF, TF, RF */
#define RESTORABLE_FLAGS 0x50dd5ull /* AC, OF, DF, TF, SF, ZF, AF, PF, CF, RF, NT */

struct fpx_sw_bytes {
	uint32_t magic1, extended_size;
	uint64_t xfeatures;
	uint32_t xstate_size, padding[7];
};

static bool on_stack(const stack_t *ss, uint64_t sp)
{
	return !(ss->ss_flags & SS_DISABLE) && sp > (uint64_t)ss->ss_sp &&
	       sp <= (uint64_t)ss->ss_sp + ss->ss_size;
}

static void regs_to_sigcontext(const struct jit_thread *t, struct k_sigcontext *sc)
{
	const uint64_t *g = t->gpr;
	*sc = (struct k_sigcontext){
	    .r8 = g[JIT_GPR_R8],
	    .r9 = g[JIT_GPR_R9],
	    .r10 = g[JIT_GPR_R10],
	    .r11 = g[JIT_GPR_R11],
	    .r12 = g[JIT_GPR_R12],
	    .r13 = g[JIT_GPR_R13],
	    .r14 = g[JIT_GPR_R14],
	    .r15 = g[JIT_GPR_R15],
	    .rdi = g[JIT_GPR_RDI],
	    .rsi = g[JIT_GPR_RSI],
	    .rbp = g[JIT_GPR_RBP],
	    .rbx = g[JIT_GPR_RBX],
	    .rdx = g[JIT_GPR_RDX],
	    .rax = g[JIT_GPR_RAX],
	    .rcx = g[JIT_GPR_RCX],
	    .rsp = g[JIT_GPR_RSP],
	    .rip = t->app_pc,
	    .eflags = t->rflags,
	    .cs = USER_CS,
	    .ss = USER_SS,
	};
}

size_t signal_frame_xsave_bytes(const void *fpstate)
{
	enum { LEGACY_BYTES = 512 };
	struct fpx_sw_bytes sw;
	memcpy(&sw, (const uint8_t *)fpstate + SW_RESERVED_OFFSET, sizeof sw);
	size_t whole = threads_xsave_size();
	size_t held = sw.magic1 == K_FP_XSTATE_MAGIC1 && sw.xstate_size >= LEGACY_BYTES
			  ? sw.xstate_size
			  : LEGACY_BYTES;
	return held < whole ? held : whole;
}

bool signal_frame_push(struct jit_thread *t, int sig, const siginfo_t *info,
		       const struct frame_action *act, const stack_t *altstack, uint64_t old_mask)
{
	uint64_t features;
	size_t xsize = threads_frame_xsave_size(&features);
	uint64_t sp = t->gpr[JIT_GPR_RSP];
	bool was_on_altstack = on_stack(altstack, sp);
	if ((act->flags & SA_ONSTACK) && !(altstack->ss_flags & SS_DISABLE) && !was_on_altstack)
		sp = (uint64_t)altstack->ss_sp + altstack->ss_size;
	else
		sp -= REDZONE;
	sp = (sp - (xsize + 4)) & ~63ull;
	uint64_t fpstate = sp;
	sp = ((sp - sizeof(struct k_rt_sigframe)) & ~15ull) - 8;

	/* The xsave image, marked as the kernel marks it for sigreturn (written in place: the
	 * runtime's signal stack has no room for a copy). */
	struct fpx_sw_bytes sw = {.magic1 = K_FP_XSTATE_MAGIC1,
				  .extended_size = (uint32_t)xsize + 4,
				  .xfeatures = features,
				  .xstate_size = (uint32_t)xsize};
	uint32_t magic2 = K_FP_XSTATE_MAGIC2;

	struct k_rt_sigframe frame;
	memset(&frame, 0, sizeof frame);
	frame.pretcode = act->restorer;
	frame.uc.flags = K_UC_FP_XSTATE | K_UC_SIGCONTEXT_SS | K_UC_STRICT_RESTORE_SS;
	frame.uc.stack = *altstack;
	if (was_on_altstack)
		frame.uc.stack.ss_flags |= SS_ONSTACK;
	regs_to_sigcontext(t, &frame.uc.mcontext);
	frame.uc.mcontext.fpstate = fpstate;
	frame.uc.mcontext.oldmask = old_mask;
	frame.uc.sigmask = old_mask;
	frame.info = *info;
	if (!app_copy_out(fpstate, t->xsave_area, xsize) ||
	    !app_copy_out(fpstate + SW_RESERVED_OFFSET, &sw, sizeof sw) ||
	    !app_copy_out(fpstate + xsize, &magic2, sizeof magic2) ||
	    !app_copy_out(sp, &frame, sizeof frame))
		return false;

	t->gpr[JIT_GPR_RDI] = (uint64_t)sig;
	t->gpr[JIT_GPR_RSI] = sp + offsetof(struct k_rt_sigframe, info);
	t->gpr[JIT_GPR_RDX] = sp + offsetof(struct k_rt_sigframe, uc);
	t->gpr[JIT_GPR_RAX] = 0;
	t->gpr[JIT_GPR_RSP] = sp;
	t->app_pc = act->handler;
	t->rflags &= ~CLEARED_FLAGS;
	threads_init_xsave(t->xsave_area); /* a handler starts with a clean FP state */
	return true;
}

bool signal_frame_pop(struct jit_thread *t, uint64_t *mask)
{
	struct k_rt_sigframe frame;
	uint64_t at = t->gpr[JIT_GPR_RSP] - 8; /* the handler's ret popped pretcode */
	if (!jit_read_app_memory(&frame, at, sizeof frame))
		return false;
	const struct k_sigcontext *sc = &frame.uc.mcontext;
	uint64_t *g = t->gpr;
	g[JIT_GPR_R8] = sc->r8, g[JIT_GPR_R9] = sc->r9, g[JIT_GPR_R10] = sc->r10,
	g[JIT_GPR_R11] = sc->r11;
	g[JIT_GPR_R12] = sc->r12, g[JIT_GPR_R13] = sc->r13, g[JIT_GPR_R14] = sc->r14,
	g[JIT_GPR_R15] = sc->r15;
	g[JIT_GPR_RDI] = sc->rdi, g[JIT_GPR_RSI] = sc->rsi, g[JIT_GPR_RBP] = sc->rbp,
	g[JIT_GPR_RBX] = sc->rbx;
	g[JIT_GPR_RDX] = sc->rdx, g[JIT_GPR_RAX] = sc->rax, g[JIT_GPR_RCX] = sc->rcx,
	g[JIT_GPR_RSP] = sc->rsp;
	t->app_pc = sc->rip;
	t->rflags = (t->rflags & ~RESTORABLE_FLAGS) | (sc->eflags & RESTORABLE_FLAGS);
	uint64_t features;
	size_t xsize = threads_frame_xsave_size(&features);
	if (!sc->fpstate)
		threads_init_xsave(t->xsave_area);
	else if (!jit_read_app_memory(t->xsave_area, sc->fpstate, xsize))
		return false;
	*mask = frame.uc.sigmask;
	return true;
}
