#include "signals.h"

#include <errno.h>
#include <signal.h>
#include <string.h>
#include <sys/mman.h>
#include <ucontext.h>

#include "app_copy.h"
#include "block.h"
#include "code_cache.h"
#include "config.h"
#include "dispatcher.h"
#include "fragment.h"
#include "instruction_count.h"
#include "instrument.h"
#include "messages.h"
#include "persist.h"
#include "probe_read.h"
#include "rt_alloc.h"
#include "rt_syscall.h"
#include "runtime_lock.h"
#include "signal_frame.h"
#include "threads.h"
#include "translate.h"

/* The kernel's struct sigaction for rt_sigaction. */
struct kernel_sigaction {
	uint64_t handler;
	uint64_t flags;
	uint64_t restorer;
	uint64_t mask;
};

#define SA_RESTORER_FLAG 0x04000000
#define SS_AUTODISARM_FLAG (1u << 31)
/* The kernel's own floor (glibc's MINSIGSTKSZ is a sysconf call). */
#define LEGACY_MINSIGSTKSZ 2048u
/* The executable's text, from the linker's default script. */
extern const char __executable_start[], etext[];

/* Room for nested faults (first-touch pages touched while a fault is handled). */
enum { NSIG_KERNEL = 65, ALT_STACK_SIZE = 256 * 1024 };

/* What a fault's block counted ahead of the faulting instruction (fault_state). */
struct fault_count {
	uint8_t counted_from;
	uint8_t group_rest;
};

struct pending_signals {
	uint64_t set;  /* bit sig-1 */
	uint64_t mask; /* the app's signal mask (the real one never blocks the fault signals) */
	siginfo_t info[NSIG_KERNEL];
	void *alt_stack; /* the runtime's own signal stack for this thread */
	/* A sigsuspend just returned: its mask, not the restored one, decides delivery. */
	bool after_suspend;
	uint64_t suspend_mask;
	/* A fault taken to the dispatcher (clients filter signals): at fault_pc, where the
	 * block counted fault_count.counted_from instructions that did not run. */
	int fault_sig;
	siginfo_t fault_info;
	uint64_t fault_pc;
	struct fault_count fault_count;
};

/* With a client that filters signals (a debugger stops at them), a fault of the app's is
 * taken out of the signal handler into the dispatcher, at the faulting instruction as at a
 * block boundary, through this stub. */
static struct jit_exit fault_exit = {.kind = EXIT_FAULT};
static uint8_t *fault_stub;

/* The app's actions and alternate stack: the process's, or a vfork child's own copy (the
 * child shares our memory but not our signal state: glibc's posix_spawn child resets the
 * actions of handled signals, which must not change the parent's). */
struct app_signal_state {
	struct kernel_sigaction actions[NSIG_KERNEL];
	stack_t altstack;
};

static struct app_signal_state process_state = {.altstack = {.ss_flags = SS_DISABLE}};

static struct app_signal_state *app_state(const struct jit_thread *t)
{
	return t->own_signals ? t->own_signals : &process_state;
}

extern void signals_restorer(void);
__asm__(".text\n"
	"signals_restorer:\n\t"
	"mov $15, %eax\n\t" /* rt_sigreturn */
	"syscall\n");

static const int fault_signals[] = {SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGTRAP};

static uint64_t bit(int sig)
{
	return 1ull << (sig - 1);
}

static bool is_fault_signal(int sig)
{
	for (unsigned i = 0; i < sizeof fault_signals / sizeof fault_signals[0]; i++)
		if (fault_signals[i] == sig)
			return true;
	return false;
}

static long kernel_sigaction(int sig, const struct kernel_sigaction *act,
			     struct kernel_sigaction *old)
{
	return rt_syscall4(SYS_rt_sigaction, sig, (long)act, (long)old, 8);
}

/* The fault signals stay deliverable to the runtime whatever the app blocks: the runtime
 * needs them for itself (first-touch pages), and applies the app's mask to them itself. */
static uint64_t fault_bits(void)
{
	uint64_t m = 0;
	for (unsigned i = 0; i < sizeof fault_signals / sizeof fault_signals[0]; i++)
		m |= bit(fault_signals[i]);
	return m;
}

static uint64_t current_mask(const struct jit_thread *t)
{
	return t->signals->mask;
}

static void set_mask(struct jit_thread *t, uint64_t mask)
{
	mask &= ~(bit(SIGKILL) | bit(SIGSTOP));
	t->signals->mask = mask;
	uint64_t real = mask & ~fault_bits();
	rt_syscall4(SYS_rt_sigprocmask, SIG_SETMASK, (long)&real, 0, 8);
}

static bool copy_in(void *dst, uint64_t src, size_t n)
{
	return src && jit_read_app_memory(dst, src, n);
}

/* A handler starts with the app's alignment-check flag (the kernel clears only DF and TF):
 * runtime code makes misaligned accesses. */
static inline void clear_alignment_check(void)
{
	__asm__ volatile("pushfq; andq $~0x40000, (%%rsp); popfq" ::: "memory", "cc");
}

void signals_die_by(int sig, enum jit_death_place where)
{
	instrument_app_dies(thread_current(), sig, where);
	persist_end();
	struct kernel_sigaction dfl = {.handler = (uint64_t)SIG_DFL};
	kernel_sigaction(sig, &dfl, NULL);
	uint64_t unblock = bit(sig);
	rt_syscall4(SYS_rt_sigprocmask, SIG_UNBLOCK, (long)&unblock, 0, 8);
	rt_tgkill(rt_getpid(), rt_gettid(), sig);
	/* Signals whose default action is to ignore (SIGCHLD...) cannot kill us. */
	rt_exit_group(128 + sig);
	__builtin_unreachable();
}

static bool app_has_handler(const struct jit_thread *t, int sig)
{
	uint64_t h = app_state(t)->actions[sig].handler;
	return h != (uint64_t)SIG_DFL && h != (uint64_t)SIG_IGN;
}

static void set_real_action(int sig, uint64_t app_handler);

/* The frame, the handler's mask, and SA_RESETHAND. */
static bool push_frame(struct jit_thread *t, int sig, const siginfo_t *info,
		       const struct kernel_sigaction *a, uint64_t old_mask)
{
	struct frame_action fa = {a->handler, a->flags, a->restorer, a->mask};
	if (!signal_frame_push(t, sig, info, &fa, &app_state(t)->altstack, old_mask))
		return false;
	set_mask(t, old_mask | a->mask | ((a->flags & SA_NODEFER) ? 0 : bit(sig)));
	if (a->flags & SA_RESETHAND) {
		app_state(t)->actions[sig].handler = (uint64_t)SIG_DFL;
		if (!is_fault_signal(sig))
			set_real_action(sig, (uint64_t)SIG_DFL);
	}
	return true;
}

bool jit_deliver_signal(struct jit_thread *t, int sig, const void *info,
			const struct jit_sigaction *act, uint64_t old_mask)
{
	struct kernel_sigaction a = {act->handler, act->flags, act->restorer, act->mask};
	return sig > 0 && sig < NSIG_KERNEL && push_frame(t, sig, info, &a, old_mask);
}

/* Calls the app's handler for sig: frame, mask, SA_RESETHAND. False when the frame cannot
 * be written (the stack overflowed, and no alternate stack takes the handler): the kernel
 * then kills the process with SIGSEGV, which the caller does, the thread standing where
 * the handler was to start. */
static bool call_handler(struct jit_thread *t, int sig, const siginfo_t *info)
{
	struct kernel_sigaction copy = app_state(t)->actions[sig]; /* SA_RESETHAND changes it */
	return push_frame(t, sig, info, &copy, current_mask(t));
}

/* A fault kills the app (sig, or SIGSEGV when its handler's frame could not be written):
 * before the faulting instruction, its block's count taken back to it (counted_from, see
 * fault_state), or somewhere unknown when that count is unknown. */
static _Noreturn void die_at_fault(struct jit_thread *t, int sig, uint8_t counted_from)
{
	if (counted_from == INSN_COUNT_UNKNOWN)
		signals_die_by(sig, JIT_DEATH_ELSEWHERE);
	instrument_uncount(t, t->app_pc, counted_from, 0);
	signals_die_by(sig, JIT_DEATH_AT_INSN);
}

void signals_app_fault(struct jit_thread *t, int sig, int code, uint64_t pc, uint64_t addr)
{
	t->app_pc = pc;
	if (app_has_handler(t, sig)) {
		siginfo_t info;
		memset(&info, 0, sizeof info);
		info.si_signo = sig;
		info.si_code = code;
		info.si_addr = (void *)addr;
		if (call_handler(t, sig, &info))
			return;
		sig = SIGSEGV;
	}
	signals_die_by(sig, JIT_DEATH_AT_INSN);
}

void signals_fetch_fault(struct jit_thread *t, uint64_t pc)
{
	enum { PAGE = 4096 };
	uint64_t at = pc;
	int r = probe_read_byte(at);
	if (r >= 0) /* (the instruction runs into the next page) */
		r = probe_read_byte(at = (pc | (PAGE - 1)) + 1);
	if (r >= 0) /* readable now: another thread mapped it */
		signals_app_fault(t, SIGSEGV, SEGV_MAPERR, pc, pc);
	else
		signals_app_fault(t, probe_read_signal(r), probe_read_code(r), pc, at);
}

void signals_force(struct jit_thread *t, const siginfo_t *info)
{
	int sig = info->si_signo;
	if (!t->signals || !app_has_handler(t, sig) || (current_mask(t) & bit(sig)))
		signals_die_by(sig, JIT_DEATH_IN_SYSCALL);
	t->signals->info[sig] = *info;
	__atomic_or_fetch(&t->signals->set, bit(sig), __ATOMIC_RELEASE);
}

/* The app state at a fault in the cache: registers from the kernel's context, the app pc
 * of the instruction, %rcx from its slot inside a rewritten instruction, a register its
 * rewrite borrowed from TB_SCRATCH_REG, held registers from theirs. */
static bool app_state_at(struct jit_thread *t, const ucontext_t *uc, uint64_t cache_pc)
{
	const struct fragment *f = fragment_at_cache_pc(cache_pc);
	const struct insn_map *m = f ? fragment_insn_at(f, cache_pc) : NULL;
	if (!m)
		return false;
	static const int from_greg[16] = {REG_RAX, REG_RCX, REG_RDX, REG_RBX, REG_RSP, REG_RBP,
					  REG_RSI, REG_RDI, REG_R8,  REG_R9,  REG_R10, REG_R11,
					  REG_R12, REG_R13, REG_R14, REG_R15};
	for (int r = 0; r < 16; r++)
		t->gpr[r] = (uint64_t)uc->uc_mcontext.gregs[from_greg[r]];
	if (m->rewritten)
		t->gpr[JIT_GPR_RCX] = t->scratch_rcx;
	if (m->borrowed_reg)
		t->gpr[m->borrowed_reg - 1] = t->scratch_reg;
	if (m->rcx_rest)
		t->gpr[JIT_GPR_RCX] += t->scratch_rep;
	for (int r = 0, k = 0; r < 16; r++)
		if (m->held_regs & (1u << r))
			t->gpr[r] = t->held_regs[k++];
	t->rflags = (uint64_t)uc->uc_mcontext.gregs[REG_EFL];
	t->app_pc = f->app_pc + m->app_off;
	uint64_t fs = 0;
	if (t->use_fsgsbase)
		__asm__ volatile("rdfsbase %0" : "=r"(fs));
	else
		fs = t->app_fs;
	t->app_fs = fs;
	if (uc->uc_mcontext.fpregs)
		memcpy(t->xsave_area, uc->uc_mcontext.fpregs,
		       signal_frame_xsave_bytes(uc->uc_mcontext.fpregs));
	return true;
}

/* The thread's state at a fault in app code, at the faulting instruction. fc: the instructions its
 * block counted at its start from this one on, which have not run, and the count group's part of
 * them; a count its block was yet to add after this instruction (count_place.h) is added first, as
 * if made at its start. */
static bool fault_state(struct jit_thread *t, const ucontext_t *uc, uint64_t cache_pc,
			struct fault_count *fc)
{
	const struct fragment *f = fragment_at_cache_pc(cache_pc);
	const struct insn_map *m = f ? fragment_insn_at(f, cache_pc) : NULL;
	if (!m || !app_state_at(t, uc, cache_pc))
		return false;
	if (m->counted_from == INSN_COUNT_UNKNOWN) {
		/* The fragment's REP string instruction, its last (translate.c): its iterations
		 * were counted ahead, those left are the hardware's %rcx (of the part that ran). */
		if (f->rep)
			instrument_rep_left(t, f->rep, (uint64_t)uc->uc_mcontext.gregs[REG_RCX]);
		*fc = (struct fault_count){0, 0};
		return true;
	}
	icount_recount(t, m->count_pending);
	*fc = (struct fault_count){m->counted_from, m->group_rest};
	return true;
}

/* The app's handler runs with the faulting block counted whole (as the replay has it),
 * not the rest of its count group. */
static bool call_fault_handler(struct jit_thread *t, int sig, siginfo_t *info,
			       const struct fault_count *fc)
{
	if (!call_handler(t, sig, info))
		return false;
	icount_uncount(t, fc->group_rest, 0);
	return true;
}

/* A fault in app code that kills the app: its state at the faulting instruction, with the
 * instruction count taken back to the instructions before it, for the app_dies hooks. */
static enum jit_death_place fault_place(struct jit_thread *t, const ucontext_t *uc,
					uint64_t cache_pc)
{
	struct fault_count fc;
	if (!fault_state(t, uc, cache_pc, &fc))
		return JIT_DEATH_ELSEWHERE;
	instrument_uncount(t, t->app_pc, fc.counted_from, 0);
	return JIT_DEATH_AT_INSN;
}

/* A signal from outside that kills the app, caught in the code cache: when it came exactly
 * between two app instructions of a plain copy (not inside inserted code, where the app's
 * registers may be set aside), the thread's state there is the app's. */
static enum jit_death_place interrupted_place(struct jit_thread *t, const ucontext_t *uc)
{
	uint64_t pc = (uint64_t)uc->uc_mcontext.gregs[REG_RIP];
	const struct fragment *f = code_cache_contains(pc) ? fragment_at_cache_pc(pc) : NULL;
	const struct insn_map *m = f ? fragment_insn_at(f, pc) : NULL;
	if (!m || m->rewritten || m->borrowed_reg ||
	    pc != (uint64_t)f->indirect_entry + m->cache_off)
		return JIT_DEATH_ELSEWHERE;
	return fault_place(t, uc, pc);
}

/* With clients that filter signals: the fault is left for the dispatcher (signals_take_fault),
 * the thread's state that of the faulting instruction. False when it cannot be. */
static bool defer_fault(struct jit_thread *t, int sig, siginfo_t *info, ucontext_t *uc)
{
	uint64_t pc = (uint64_t)uc->uc_mcontext.gregs[REG_RIP];
	if (!fault_stub || !t->signals || !fault_state(t, uc, pc, &t->signals->fault_count))
		return false;
	t->signals->fault_sig = sig;
	t->signals->fault_info = *info;
	if (sig == SIGILL || sig == SIGFPE) /* the kernel gave the address in the cache */
		t->signals->fault_info.si_addr = (void *)t->app_pc;
	t->signals->fault_pc = t->app_pc;
	uint64_t real = current_mask(t) & ~fault_bits();
	memcpy(&uc->uc_sigmask, &real, sizeof real);
	t->jump_target = (uint64_t)fault_stub;
	uc->uc_mcontext.gregs[REG_RIP] = (greg_t)jit_resume_cache;
	return true;
}

uint64_t signals_fault_pc(const struct jit_thread *t)
{
	return t->signals->fault_pc;
}

void signals_take_fault(struct jit_thread *t)
{
	int sig = t->signals->fault_sig;
	siginfo_t *info = &t->signals->fault_info;
	t->app_pc = t->signals->fault_pc;
	if (!instrument_signal_filter(t, sig, info))
		return; /* withheld: the instruction runs again */
	/* A handler runs with the faulting block counted whole, as without clients; a death is
	 * at the instruction's count. */
	if (app_has_handler(t, sig) && !(current_mask(t) & bit(sig))) {
		if (call_fault_handler(t, sig, info, &t->signals->fault_count))
			return;
		sig = SIGSEGV;
	}
	die_at_fault(t, sig, t->signals->fault_count.counted_from);
}

/* A fault in app code that the app handles: leave the kernel's handler into the runtime's
 * resume path, which enters the app's handler in the cache. */
static void deliver_fault(struct jit_thread *t, int sig, siginfo_t *info, ucontext_t *uc)
{
	uint64_t pc = (uint64_t)uc->uc_mcontext.gregs[REG_RIP];
	struct fault_count fc = {INSN_COUNT_UNKNOWN, 0};
	if (!fault_state(t, uc, pc, &fc) && !app_state_at(t, uc, pc))
		jit_fatal("signal %d in code the runtime cannot map back to the app (0x%lx)", sig,
			  pc);
	if (sig == SIGILL || sig == SIGFPE) /* the kernel gave the address in the cache */
		info->si_addr = (void *)t->app_pc;
	if (!call_fault_handler(t, sig, info, &fc))
		die_at_fault(t, SIGSEGV, fc.counted_from);
	/* The kernel restores the real mask from our frame when this handler returns. */
	uint64_t real = current_mask(t) & ~fault_bits();
	memcpy(&uc->uc_sigmask, &real, sizeof real);
	thread_install_runtime_fs(t); /* translation may follow */
	runtime_lock_from_handler(t);
	t->jump_target = (uint64_t)dispatch_find_fragment(t->app_pc)->cache_pc;
	runtime_unlock_from_handler(t);
	uc->uc_mcontext.gregs[REG_RIP] = (greg_t)jit_resume_cache;
}

static void on_async(int sig, siginfo_t *info, void *ctx);
static void on_deadly_default(int sig, siginfo_t *info, void *ctx);

/* A fault signal that a process sent (kill, tgkill, sigqueue: si_code <= 0) is no fault:
 * it is delivered like any signal from outside, or ignored, or kills by its default. */
static void on_sent_fault_signal(int sig, siginfo_t *info, void *ctx)
{
	struct jit_thread *t = thread_current();
	if (app_state(t)->actions[sig].handler == (uint64_t)SIG_IGN)
		return;
	if (app_has_handler(t, sig) || (current_mask(t) & bit(sig)))
		on_async(sig, info, ctx); /* delivered, or kept pending while blocked */
	else
		on_deadly_default(sig, info, ctx);
}

static void on_fault(int sig, siginfo_t *info, void *ctx)
{
	clear_alignment_check();
	if (info->si_code <= 0) {
		on_sent_fault_signal(sig, info, ctx);
		return;
	}
	ucontext_t *uc = ctx;
	uint64_t pc = (uint64_t)uc->uc_mcontext.gregs[REG_RIP];
	uint64_t addr = (uint64_t)info->si_addr;
	/* The page fault's error code: bit 1 for a write, bit 4 for an instruction fetch (app
	 * code never runs from its own pages: no retry makes that right). */
	long error = uc->uc_mcontext.gregs[REG_ERR];
	if (sig == SIGSEGV && info->si_code == SEGV_ACCERR && !(error & 16) &&
	    jit_grant_access(addr, error & 2))
		return; /* a withheld page, now accessible: the access is retried */
	uint64_t resume = probe_read_resume_pc(pc);
	if (resume) {
		uc->uc_mcontext.gregs[REG_RIP] = (greg_t)resume;
		uc->uc_mcontext.gregs[REG_RAX] = probe_read_failure(sig, info->si_code);
		return;
	}
	if (code_cache_contains(pc)) {
		const struct fragment *f = fragment_at_cache_pc(pc);
		if (!f || !fragment_insn_at(f, pc)) /* inserted code, a stub: the runtime's */
			jit_fatal("internal fault: signal %d in the code cache at 0x%lx, outside "
				  "any app instruction's translation (address 0x%lx)",
				  sig, pc, addr);
		struct jit_thread *t = thread_current();
		if (defer_fault(t, sig, info, uc))
			return;
		/* a fault the app blocks is fatal, as the kernel forces it */
		if (app_has_handler(t, sig) && !(current_mask(t) & bit(sig))) {
			deliver_fault(t, sig, info, uc);
			return;
		}
		signals_die_by(sig, fault_place(t, uc, pc));
	}
	if (jit_config.check_native_exec && sig == SIGSEGV && addr == pc)
		jit_fatal("app code ran natively, outside the code cache, at 0x%lx", pc);
	/* The offset in the executable makes the pc mean something across runs (ASLR). */
	uint64_t start = (uint64_t)__executable_start;
	if (pc >= start && pc < (uint64_t)etext)
		jit_fatal("internal fault: signal %d at pc 0x%lx (the executable's text at 0x%lx) "
			  "(address 0x%lx)",
			  sig, pc, pc - start, addr);
	jit_fatal("internal fault: signal %d at pc 0x%lx (address 0x%lx)", sig, pc, addr);
}

/* Makes the thread come back to the dispatcher soon: the fragment it is in (or about to
 * enter) loses its links, and indirect branches miss. */
static void kick(struct jit_thread *t, uint64_t pc)
{
	/* In the runtime the thread checks for signals before it resumes; in the cache it
	 * may hold no lock, but another thread may: then try again at its next signal. */
	if (!code_cache_contains(pc) || !runtime_trylock())
		return;
	struct fragment *f = fragment_at_cache_pc(pc);
	if (f)
		fragment_unlink(f);
	thread_clear_ibl(t);
	runtime_unlock();
}

static void on_async(int sig, siginfo_t *info, void *ctx)
{
	clear_alignment_check();
	struct jit_thread *t = thread_current();
	if (!t->signals)
		return;
	t->signals->info[sig] = *info;
	__atomic_or_fetch(&t->signals->set, bit(sig), __ATOMIC_RELEASE);
	kick(t, (uint64_t)((ucontext_t *)ctx)->uc_mcontext.gregs[REG_RIP]);
}

static void install(int sig, void (*fn)(int, siginfo_t *, void *))
{
	struct kernel_sigaction act = {
	    .handler = (uint64_t)fn,
	    .flags = SA_SIGINFO | SA_ONSTACK | SA_RESTORER_FLAG | SA_NODEFER,
	    .restorer = (uint64_t)signals_restorer,
	};
	kernel_sigaction(sig, &act, NULL);
}

/* Signals whose default action ends the process (with a core dump or not). */
static bool kills_by_default(int sig)
{
	switch (sig) {
	case SIGCHLD: /* ignored by default */
	case SIGCONT:
	case SIGURG:
	case SIGWINCH:
	case SIGSTOP: /* stop the process */
	case SIGTSTP:
	case SIGTTIN:
	case SIGTTOU:
	case SIGKILL: /* cannot be caught */
		return false;
	default:
		return true;
	}
}

/* A signal the app leaves at its default action, which ends the process: the runtime
 * catches it only so that the clients' app_dies hooks run before it dies by it. */
static void on_deadly_default(int sig, siginfo_t *info, void *ctx)
{
	(void)info;
	struct jit_thread *t = thread_current();
	long nr;
	signals_die_by(sig, jit_thread_in_syscall(t, &nr) ? JIT_DEATH_IN_SYSCALL
							  : interrupted_place(t, ctx));
}

/* The real action of a signal that is no fault signal, from the app's handler: the
 * runtime's when the app handles it or when its default kills, else the app's own
 * (SIG_IGN, or a default that ignores or stops). */
static void set_real_action(int sig, uint64_t app_handler)
{
	if (app_handler != (uint64_t)SIG_DFL && app_handler != (uint64_t)SIG_IGN) {
		install(sig, on_async);
	} else if (app_handler == (uint64_t)SIG_DFL && kills_by_default(sig)) {
		install(sig, on_deadly_default);
	} else {
		struct kernel_sigaction plain = {.handler = app_handler};
		kernel_sigaction(sig, &plain, NULL);
	}
}

void signals_init_thread(struct jit_thread *t)
{
	long stack = rt_mmap(NULL, ALT_STACK_SIZE, PROT_READ | PROT_WRITE,
			     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (!rt_is_error(stack)) {
		stack_t ss = {.ss_sp = (void *)stack, .ss_size = ALT_STACK_SIZE};
		rt_syscall2(SYS_sigaltstack, (long)&ss, 0);
	}
	t->signals = rt_calloc(1, sizeof *t->signals);
	if (t->signals && !rt_is_error(stack))
		t->signals->alt_stack = (void *)stack;
	if (t->signals)
		rt_syscall4(SYS_rt_sigprocmask, SIG_BLOCK, 0, (long)&t->signals->mask, 8);
}

void signals_revive_thread(struct jit_thread *t)
{
	if (!t->signals)
		return;
	if (t->signals->alt_stack) {
		stack_t ss = {.ss_sp = t->signals->alt_stack, .ss_size = ALT_STACK_SIZE};
		rt_syscall2(SYS_sigaltstack, (long)&ss, 0);
	}
	set_mask(t, t->signals->mask);
}

void signals_init(struct jit_thread *t)
{
	signals_init_thread(t);
	if (t->signals) /* inherited as the app's (an exec keeps it), but the runtime needs the
			 * fault signals */
		set_mask(t, t->signals->mask);
	for (int sig = 1; sig < NSIG_KERNEL; sig++) {
		kernel_sigaction(sig, NULL, &process_state.actions[sig]);
		/* An execve resets every handler: one here is the driver's own C library's (for
		 * a recording's writer threads, say), the app's action the default. */
		uint64_t h = process_state.actions[sig].handler;
		if (h != (uint64_t)SIG_DFL && h != (uint64_t)SIG_IGN)
			process_state.actions[sig] = (struct kernel_sigaction){0};
		if (process_state.actions[sig].handler == (uint64_t)SIG_DFL &&
		    kills_by_default(sig) && !is_fault_signal(sig))
			install(sig, on_deadly_default);
	}
	for (unsigned i = 0; i < sizeof fault_signals / sizeof fault_signals[0]; i++)
		install(fault_signals[i], on_fault);
	if (instrument_filters_signals())
		fault_stub = translate_lasting_stub(&fault_exit);
}

bool signals_own_copy(struct jit_thread *child, const struct jit_thread *parent)
{
	child->own_signals = rt_calloc(1, sizeof *child->own_signals);
	if (child->own_signals)
		*child->own_signals = *app_state(parent);
	return child->own_signals != NULL;
}

void signals_release_thread(struct jit_thread *t)
{
	rt_free(t->own_signals);
	t->own_signals = NULL;
	if (!t->signals)
		return;
	if (t->signals->alt_stack)
		rt_munmap(t->signals->alt_stack, ALT_STACK_SIZE);
	rt_free(t->signals);
	t->signals = NULL;
}

bool signals_pending(const struct jit_thread *t)
{
	return t->signals && __atomic_load_n(&t->signals->set, __ATOMIC_ACQUIRE) != 0;
}

uint64_t signals_real_mask(uint64_t app_mask)
{
	return app_mask & ~fault_bits();
}

void signals_after_temporary_mask(struct jit_thread *t, uint64_t app_mask, long result)
{
	if (result == -EINTR && t->signals) {
		t->signals->after_suspend = true;
		t->signals->suspend_mask = app_mask;
	}
}

long signals_sigsuspend(struct jit_thread *t, uint64_t mask_addr, uint64_t size)
{
	uint64_t mask;
	if (size != 8 || !copy_in(&mask, mask_addr, sizeof mask))
		return -EFAULT;
	uint64_t real = signals_real_mask(mask);
	long r = rt_syscall2(SYS_rt_sigsuspend, (long)&real, 8);
	signals_after_temporary_mask(t, mask, r);
	return r;
}

void signals_before_exec(struct jit_thread *t)
{
	if (t->signals)
		rt_syscall4(SYS_rt_sigprocmask, SIG_SETMASK, (long)&t->signals->mask, 0, 8);
}

void signals_after_failed_exec(struct jit_thread *t)
{
	if (t->signals)
		set_mask(t, t->signals->mask);
}

long signals_app_sigprocmask(struct jit_thread *t, int how, uint64_t set, uint64_t oldset,
			     uint64_t size)
{
	if (size != 8)
		return -EINVAL;
	uint64_t old = current_mask(t), want = 0;
	if (set && !copy_in(&want, set, sizeof want))
		return -EFAULT;
	if (set) {
		if (how == SIG_BLOCK)
			set_mask(t, old | want);
		else if (how == SIG_UNBLOCK)
			set_mask(t, old & ~want);
		else if (how == SIG_SETMASK)
			set_mask(t, want);
		else
			return -EINVAL;
	}
	if (oldset && !app_copy_out(oldset, &old, sizeof old))
		return -EFAULT;
	return 0;
}

void signals_inherit_mask(struct jit_thread *child)
{
	if (child->signals)
		child->signals->mask = child->start_mask;
}

void signals_deliver_pending(struct jit_thread *t)
{
	uint64_t mask = t->signals->after_suspend ? t->signals->suspend_mask : current_mask(t);
	t->signals->after_suspend = false;
	uint64_t deliverable = __atomic_load_n(&t->signals->set, __ATOMIC_ACQUIRE) & ~mask;
	if (!deliverable)
		return;
	int sig = __builtin_ctzll(deliverable) + 1;
	__atomic_and_fetch(&t->signals->set, ~bit(sig), __ATOMIC_ACQ_REL);
	if (!instrument_signal_filter(t, sig, &t->signals->info[sig]))
		return;
	if (app_has_handler(t, sig)) {
		const struct kernel_sigaction *a = &app_state(t)->actions[sig];
		struct jit_sigaction act = {a->handler, a->flags, a->restorer, a->mask};
		instrument_signal_delivery(t, sig, &t->signals->info[sig], &act, current_mask(t));
		if (!call_handler(t, sig, &t->signals->info[sig])) /* between two blocks */
			signals_die_by(SIGSEGV, JIT_DEATH_AT_INSN);
	} else if (app_state(t)->actions[sig].handler == (uint64_t)SIG_DFL) {
		/* the app reset the action meanwhile: the kernel's default, for real */
		rt_tgkill(rt_getpid(), rt_gettid(), sig);
	}
}

/* Syscalls the kernel restarts after a handler with SA_RESTART (ERESTARTSYS ones). */
static bool restartable(long nr)
{
	switch (nr) {
	case SYS_read:
	case SYS_readv:
	case SYS_pread64:
	case SYS_write:
	case SYS_writev:
	case SYS_pwrite64:
	case SYS_wait4:
	case SYS_waitid:
	case SYS_accept:
	case SYS_accept4:
	case SYS_recvfrom:
	case SYS_recvmsg:
	case SYS_sendto:
	case SYS_sendmsg:
	case SYS_open:
	case SYS_openat:
	case SYS_flock:
	case SYS_fcntl:
	case SYS_ioctl:
	case SYS_futex:
		return true;
	default:
		return false;
	}
}

bool signals_restart_syscall(const struct jit_thread *t, long nr)
{
	if (!signals_pending(t) || !restartable(nr))
		return false;
	uint64_t deliverable = t->signals->set & ~current_mask(t);
	if (!deliverable)
		return false;
	int sig = __builtin_ctzll(deliverable) + 1;
	return app_has_handler(t, sig) && (app_state(t)->actions[sig].flags & SA_RESTART);
}

void signals_sigreturn(struct jit_thread *t)
{
	uint64_t mask;
	if (!signal_frame_pop(t, &mask))
		signals_die_by(SIGSEGV, JIT_DEATH_ELSEWHERE);
	set_mask(t, mask);
}

long signals_app_sigaction(struct jit_thread *t, int sig, uint64_t act, uint64_t oldact,
			   uint64_t sigsetsize)
{
	struct kernel_sigaction *actions = app_state(t)->actions;
	if (sig < 1 || sig >= NSIG_KERNEL || sigsetsize != 8)
		return -EINVAL;
	if (act && (sig == SIGKILL || sig == SIGSTOP))
		return -EINVAL;
	struct kernel_sigaction old = actions[sig];
	struct kernel_sigaction new;
	if (act && !copy_in(&new, act, sizeof new))
		return -EFAULT;
	if (act) {
		actions[sig] = new;
		if (!is_fault_signal(sig))
			set_real_action(sig, new.handler);
	}
	if (oldact && !app_copy_out(oldact, &old, sizeof old))
		return -EFAULT; /* the new action stays, as the kernel leaves it */
	return 0;
}

/* Whether the thread runs on its alternate stack (the kernel's on_sig_stack: never with
 * SS_AUTODISARM, which gave the stack up when the handler started). */
static bool on_altstack(const stack_t *s, uint64_t sp)
{
	return !(s->ss_flags & (SS_DISABLE | SS_AUTODISARM_FLAG)) && sp > (uint64_t)s->ss_sp &&
	       sp - (uint64_t)s->ss_sp <= s->ss_size;
}

/* As the kernel's do_sigaltstack: the old stack with SS_ONSTACK when the thread runs on
 * it, which it may then not change (EPERM); SS_ONSTACK asked for means enabled. */
long signals_app_sigaltstack(struct jit_thread *t, uint64_t ss, uint64_t old_ss)
{
	stack_t *altstack = &app_state(t)->altstack;
	bool on = on_altstack(altstack, t->gpr[JIT_GPR_RSP]);
	stack_t old = *altstack;
	old.ss_flags = (altstack->ss_flags & SS_DISABLE ? SS_DISABLE
			: on				? SS_ONSTACK
							: 0) |
		       (altstack->ss_flags & SS_AUTODISARM_FLAG);
	if (ss) {
		stack_t s;
		if (!copy_in(&s, ss, sizeof s))
			return -EFAULT;
		if (on)
			return -EPERM;
		int mode = s.ss_flags & ~SS_AUTODISARM_FLAG;
		if (mode != SS_DISABLE && mode != SS_ONSTACK && mode != 0)
			return -EINVAL;
		if (mode == SS_DISABLE)
			s = (stack_t){.ss_flags = SS_DISABLE};
		else if (s.ss_size < LEGACY_MINSIGSTKSZ)
			return -ENOMEM;
		else
			s.ss_flags &= ~SS_ONSTACK;
		*altstack = s;
	}
	if (old_ss && !app_copy_out(old_ss, &old, sizeof old))
		return -EFAULT;
	return 0;
}

void jit_app_sigaction(const struct jit_thread *t, int sig, struct jit_sigaction *act)
{
	_Static_assert(sizeof(struct jit_sigaction) == sizeof(struct kernel_sigaction),
		       "the kernel's layout");
	memcpy(act, &app_state(t)->actions[sig], sizeof *act);
}

void jit_set_app_sigaction(struct jit_thread *t, int sig, const struct jit_sigaction *act)
{
	signals_app_sigaction(t, sig, (uint64_t)act, 0, 8);
}

void jit_app_sigstack(const struct jit_thread *t, struct jit_sigstack *s)
{
	const stack_t *ss = &app_state(t)->altstack;
	*s = (struct jit_sigstack){(uint64_t)ss->ss_sp, ss->ss_flags, ss->ss_size};
}

void jit_set_app_sigstack(struct jit_thread *t, const struct jit_sigstack *s)
{
	app_state(t)->altstack = (stack_t){(void *)s->sp, s->flags, s->size};
}

void signals_app_dispositions(const struct jit_thread *t, uint64_t *ignored, uint64_t *caught)
{
	*ignored = *caught = 0;
	for (int sig = 1; sig < NSIG_KERNEL; sig++) {
		uint64_t h = app_state(t)->actions[sig].handler;
		if (h == (uint64_t)SIG_IGN)
			*ignored |= bit(sig);
		else if (h != (uint64_t)SIG_DFL)
			*caught |= bit(sig);
	}
}

uint64_t jit_thread_sigmask(const struct jit_thread *t)
{
	/* A thread the kernel made that has not run yet (a region may end meanwhile) has the
	 * mask it will start with. */
	return t->signals ? current_mask(t) : t->start_mask;
}

void jit_thread_set_sigmask(struct jit_thread *t, uint64_t mask)
{
	set_mask(t, mask);
}
