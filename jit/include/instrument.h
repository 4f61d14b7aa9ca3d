/* The instrumentation API: how a client (an analysis tool, the controller, the logger)
 * sees code as it is translated and adds its own work to it.
 *
 * Clients register before the app starts. At translation time each client's
 * instrument_block sees the decoded basic block and asks for insertions; the inserted
 * code then runs inline in the cache on the app thread. Everything a client runs on an
 * app thread must be TLS-free (DESIGN.md). */
#ifndef JIT_INSTRUMENT_H
#define JIT_INSTRUMENT_H

#include <Zydis/Zydis.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct jit_block;
struct jit_thread;

#define JIT_ERESTARTSYS 512

/* The action an app handler runs under (the kernel's struct sigaction layout). */
struct jit_sigaction {
	uint64_t handler, flags, restorer, mask;
};

/* The most instructions a block holds. */
#define JIT_MAX_BLOCK_LENGTH 64

size_t jit_block_length(const struct jit_block *b); /* instructions in the block */
uint64_t jit_block_pc(const struct jit_block *b, size_t i);
const ZydisDecodedInstruction *jit_block_insn(const struct jit_block *b, size_t i);
const ZydisDecodedOperand *jit_block_operands(const struct jit_block *b, size_t i);
const uint8_t *jit_block_bytes(const struct jit_block *b, size_t i); /* insn->length bytes */

/* Instruction i is not executed (its callouts still run): the int3 of an int3 alarm. */
void jit_suppress_insn(struct jit_block *b, size_t i);

/* Copies app memory without faulting: false when some byte is unreadable. */
bool jit_read_app_memory(void *dst, uint64_t addr, size_t len);
/* The same with plain loads (no system call: for pages read often): 0, or the signal the
 * reading faulted with (SIGSEGV; SIGBUS past the end of a mapped file). */
int jit_copy_app_memory(void *dst, uint64_t addr, size_t len);
/* Writes app memory without faulting, as a store of the app would (a debugger): pages the
 * runtime write-protects because code was translated from them lose their translations
 * first. False when some byte is not writable by the app. From an app thread that holds
 * the world stopped (or whose callout runs). */
bool jit_write_app_memory(uint64_t addr, const void *src, size_t len);

/* A client that withholds access to app pages (the logger's first-touch recording) makes
 * them accessible again on demand: the hook is asked about an address the app or the
 * runtime could not access, and returns true when it made that page accessible (the access
 * is then retried). Runs on app threads, possibly in a signal handler: TLS-free, and it must
 * not take a lock its thread could be holding. */
typedef bool (*jit_access_hook)(uint64_t addr);
void jit_set_access_hook(jit_access_hook hook);
/* An access (a read or a write) to addr faulted: true when it may be retried, because the
 * page was just made accessible (translated code's write protection lifted, the hook), or
 * another thread made it so since the fault. */
bool jit_grant_access(uint64_t addr, bool write);

/* The real protection for an app page whose app protection is prot (a client giving a
 * withheld page back must not undo the runtime's write protection of code pages). */
uint32_t jit_real_prot(uint64_t addr, uint32_t prot);

/* Whether the block may read the flags it starts with. */
bool jit_block_flags_live(const struct jit_block *b);

/* Whether the block may close a loop: its last instruction transfers control backwards
 * (every cycle of the code has such an edge) or to a place known only when it runs. A
 * check that must come round while code runs, but not at an exact instruction, needs
 * only these blocks. */
bool jit_block_may_loop(const struct jit_block *b);

/* A REP/REPE/REPNE-prefixed string instruction: it executes once per iteration. */
bool jit_insn_is_rep_string(const ZydisDecodedInstruction *insn);

/* Whether the instruction reaches memory as data through its memory operands: not a NOP,
 * prefetch or cache flush, which only name an address. */
bool jit_insn_accesses_memory(const ZydisDecodedInstruction *insn);

/* What the address of memory operand op adds to its displacement: a push (call, enter,
 * pushf) writes below the stack pointer its hidden operand names (minus its size); 0 for
 * every other operand. */
int64_t jit_push_displacement(const ZydisDecodedInstruction *insn, const ZydisDecodedOperand *op);

/* Per-thread instruction counts (a REP string instruction counts once per iteration),
 * maintained inline once some client asks for them (before the app starts). */
void jit_enable_icount(void);
/* Instructions the thread has executed: exact between blocks (at exits and thread exit);
 * inside a callout use jit_callout_icount. */
uint64_t jit_thread_icount(const struct jit_thread *t);
/* The thread's count at the instruction it runs next: exact for a thread between blocks or
 * inside a callout (its own, or another's while the caller holds the world stopped). */
uint64_t jit_thread_next_icount(const struct jit_thread *t);
/* Every thread's count added up, exited threads included: for progress reports, from any
 * thread (helpers too); only approximate while threads run. */
uint64_t jit_total_icount(void);

/* Per-thread 64-bit counters that inline code can bump: reserve before the app starts. */
int jit_thread_slot_reserve(void); /* -1 when none is left */

/* Adds `amount` to the thread's slot each time the block starts. */
void jit_insert_block_counter(struct jit_block *b, int slot, uint32_t amount);
/* Adds to the thread's slot the iterations that REP string instruction i executes. */
void jit_insert_rep_counter(struct jit_block *b, size_t i, int slot);

/* Per-thread tables of 64-bit counters: the slot holds the address of the thread's table,
 * which the client may re-point at any time (to count elsewhere, e.g. outside a region).
 * Each time the block starts, entry `index` gains one, and (index_slot >= 0) the index is
 * stored in index_slot, so a client can tell which block a thread is in. One per block;
 * index < 2^28. */
void jit_insert_table_counter(struct jit_block *b, int table_slot, uint32_t index, int index_slot);
/* Adds to entry `index` the iterations REP string instruction i executes. */
void jit_insert_rep_table_counter(struct jit_block *b, size_t i, int table_slot, uint32_t index);

/* Before instruction i, marks the 64-byte lines its memory operands read and write in the
 * map the slot points to: byte 2*line for a read, 2*line+1 for a write, set non-zero,
 * line = address bits 6..46 (so the map spans 2^42 bytes; threads marking the same line
 * lose nothing). Prefetches, NOPs and cache flushes mark nothing; neither do REP string
 * instructions (their range depends on the iterations: use a callout) nor gathers and
 * scatters. */
void jit_insert_memory_marks(struct jit_block *b, size_t i, int bitmap_slot);

/* A call from the cache into C, placed before instruction i. The thread leaves the cache
 * with its whole app state saved, fn runs on the runtime stack (TLS-free code only), and
 * the thread resumes at instruction i. fn may call jit_flush_cache: the thread still
 * finishes its current block as translated, later blocks are translated afresh. */
struct jit_callout {
	struct jit_thread *thread;
	uint64_t pc; /* app pc of the instruction the call is placed before */
	void *arg;
	uint32_t block_remaining; /* counted instructions from that one to the block's end */
};
typedef void (*jit_callout_fn)(const struct jit_callout *c);

/* The thread's exact instruction count at the callout (instructions before `pc`). */
uint64_t jit_callout_icount(const struct jit_callout *c);

void jit_insert_callout(struct jit_block *b, size_t i, jit_callout_fn fn, void *arg);

/* At block start, subtracts the block's length from the thread's slot; when the result is
 * negative, calls fn before the block runs (pc = the block's first instruction). A REP
 * string instruction (always the last of its block) is checked as its iterations come:
 * where the slot runs out among them, fn runs before the iteration that takes it negative,
 * as for a block of that one iteration (pc = the instruction's, %rcx the iterations left,
 * block_remaining 1), and the thread leaves the cache after that iteration if asked to. */
void jit_insert_budget_check(struct jit_block *b, int slot, jit_callout_fn fn, void *arg);

/* The instruction count kept as a countdown to a per-thread limit, checked in every
 * block: fn runs as a jit_insert_budget_check's callout would (the block's first budget
 * check) at the latest at the start of the block that would take the thread's count past
 * its limit, and maybe earlier (fn then sets the limit again). For a client that needs
 * such a check in every block anyway (a replay's exact stops): a block then updates one
 * counter, not two. Before the app starts; a thread starts with limit 0 (its first block
 * fires). */
void jit_enable_icount_countdown(jit_callout_fn fn, void *arg);
/* From fn or another callout or hook on t: the count where fn fires next. */
void jit_set_icount_limit(struct jit_thread *t, uint64_t limit);

/* A budget spread over JIT_SPLIT_SLOTS slots, which blocks take in turn as they are
 * translated: the checks of a loop's blocks (mostly translated one after the other) then
 * use different slots and do not wait on each other's load-subtract-store, as they do on
 * one slot. A block checks its slot like a jit_insert_budget_check, and a block with a REP
 * string instruction checks them all, so a check fires at the latest at the start of the
 * block where the slots' sum would go negative (and maybe earlier: the callout sets the
 * budget again from the exact count). */
#define JIT_SPLIT_SLOTS 4
struct jit_split_budget {
	int slot[JIT_SPLIT_SLOTS];
};
bool jit_split_budget_reserve(struct jit_split_budget *b); /* false when no slot is left */
/* value >= 0: spread over the slots; < 0: in every slot (every checked block fires). */
void jit_split_budget_set(struct jit_thread *t, const struct jit_split_budget *b, int64_t value);
int64_t jit_split_budget_get(const struct jit_thread *t, const struct jit_split_budget *b);
void jit_insert_split_budget_check(struct jit_block *blk, const struct jit_split_budget *b,
				   jit_callout_fn fn, void *arg);

/* Inline trace records: what a block's execution did (effective addresses, register
 * values, branch conditions) written by inline code into a per-thread buffer the client
 * owns, with no callout except a rare one when the buffer fills. The client lays out one
 * record per execution of the block at translation time: 8 bytes at offset 0 hold `word`
 * (the client's name for the block), the rest holds the values it asked to store, each at
 * the offset it chose (within `bytes`).
 *
 * At block start (before any budget check): `word` is stored at the address in
 * buffer_slot, buffer_slot advances by `bytes`, room_slot loses `bytes`; when room_slot
 * goes negative, full(c) runs before the block's first instruction, with the record just
 * begun at (buffer_slot - bytes). full must leave room: it may hand the buffer over and
 * point buffer_slot at another one, moving the begun record there (the block's stores
 * follow buffer_slot), and set room_slot. Clients keep a margin: room_slot counts the
 * buffer's bytes minus the largest record (and anything they write from hooks), so the
 * record that makes it negative still fits. One record per block; bytes < 2^20, word <
 * 2^31. A thread that leaves the block early (block_left) has executed only the record's
 * instructions before block_left's pc; the stores of the others hold garbage. The stores
 * before an instruction come before its callouts, so a callout that performs the
 * instruction in its place (a replay's injected results) does not change them. */
void jit_insert_trace_block(struct jit_block *b, int buffer_slot, int room_slot, uint32_t bytes,
			    uint32_t word, jit_callout_fn full, void *arg);
/* After jit_insert_trace_block: the block also gets a copy without its record, which runs
 * while the thread's skip_slot is non-zero (sampling: the records between two samples cost
 * no store). The copy stores no word nor value and leaves buffer_slot alone; room_slot
 * still loses `bytes` at its start and full(c) still runs when it goes negative, with no
 * record begun: room_slot is then a budget of skipped bytes. Everything else inserted in
 * the block (counters, budget checks, callouts) is in both copies. */
void jit_insert_trace_skip(struct jit_block *b, int skip_slot);
/* Before instruction i: the effective address (segment base included) of its memory operand
 * number `operand` (an index into jit_block_operands) as 8 bytes at `offset`; 0 when no
 * single address exists (a VSIB gather or scatter). Implicit operands are those of the
 * access: a push's is the slot written, below the stack pointer. */
void jit_insert_trace_address(struct jit_block *b, size_t i, unsigned operand, uint32_t offset);
/* The general-purpose register reg (JIT_GPR_*) as 8 bytes at `offset`, as it is before
 * instruction i, or after it. False when nothing will be stored: after the block's last
 * instruction when it is a control transfer or a syscall (nothing placed after it runs). */
bool jit_insert_trace_gpr(struct jit_block *b, size_t i, int reg, bool after, uint32_t offset);
/* The value memory operand number `operand` of instruction i loaded or stored: after the
 * instruction, its first 8, 4, 2 or 1 bytes (the most its size holds, zero-extended) as 8
 * bytes at `offset`. Its address (as jit_insert_trace_address stores it) goes to
 * `address_offset` before the instruction, which may change the registers it is made of.
 * Read after rather than before: the instruction's own access has then succeeded, so the
 * read cannot fault (before it, a bad address would fault in the inserted code instead of
 * the app's instruction); for a load the bytes are still those it read (another thread may
 * have written them since, as anywhere outside a replay), for a store or a
 * read-modify-write those it wrote. False when nothing will be stored: the operand is not
 * accessed as data at one address (lea, prefetches, gathers), a REP string instruction
 * (which may run no iteration), a masked access (parts of it may be untouched), or the
 * block's control transfer or syscall (nothing placed after it runs). */
bool jit_insert_trace_memory(struct jit_block *b, size_t i, unsigned operand,
			     uint32_t address_offset, uint32_t offset);
/* Before instruction i: one byte at `offset`, 1 when condition code cc (0-15, the low
 * nibble of Jcc/SETcc opcodes: 4 is Z, 5 NZ...) holds on the flags, else 0. */
void jit_insert_trace_condition(struct jit_block *b, size_t i, unsigned cc, uint32_t offset);

/* General-purpose registers in hardware numbering, as jit_thread_gpr and struct jit_regs
 * index them. */
#define JIT_GPR_RAX 0
#define JIT_GPR_RCX 1
#define JIT_GPR_RDX 2
#define JIT_GPR_RBX 3
#define JIT_GPR_RSP 4
#define JIT_GPR_RBP 5
#define JIT_GPR_RSI 6
#define JIT_GPR_RDI 7
#define JIT_GPR_R8 8
#define JIT_GPR_R9 9
#define JIT_GPR_R10 10
#define JIT_GPR_R11 11
#define JIT_GPR_R12 12
#define JIT_GPR_R13 13
#define JIT_GPR_R14 14
#define JIT_GPR_R15 15

/* The app's registers while the thread is in the runtime (callouts, syscall hooks, safe
 * points), or, for another thread, while the caller holds the world stopped (the thread
 * waits at a block boundary, in a syscall, or in a hook). */
uint64_t jit_thread_gpr(const struct jit_thread *t, int reg);
void jit_thread_set_gpr(struct jit_thread *t, int reg, uint64_t value);

struct jit_regs {
	uint64_t gpr[16];
	uint64_t rip; /* the app pc the thread runs next */
	uint64_t rflags, fs_base, gs_base;
};
void jit_thread_get_regs(const struct jit_thread *t, struct jit_regs *r);
void jit_thread_set_regs(struct jit_thread *t, const struct jit_regs *r);
/* The thread's extended state (x87/SSE/AVX...) in the CPU's standard xsave layout. */
const uint8_t *jit_thread_xsave(const struct jit_thread *t, size_t *len);
void jit_thread_set_xsave(struct jit_thread *t, const uint8_t *data, size_t len);
size_t jit_xsave_size(void);

/* From a safe point (or a callout): every other thread stops at the end of its current
 * basic block (or is in a syscall) and stays stopped until this thread returns to the app. */
void jit_stop_the_world(const struct jit_thread *self);

/* Asks t to stop at the end of its current block (or before a callout it is about to run);
 * the clients' safe_point hooks then run on t before it goes on. From a callout or hook
 * running on t; or, for any thread, from the thread that stopped the world, before it
 * lets the others go on. */
void jit_request_safe_point(struct jit_thread *t);

/* Runs wait(arg) with the runtime's lock released, from a callout or hook that must wait
 * for another app thread (a recorder's or a replayer's schedule): the other thread may need
 * the lock meanwhile. The waiting thread counts as stopped for jit_stop_the_world. wait
 * must be restartable: in a copy of the process (jit_fork) it runs again from its start,
 * on a new kernel thread, and must return only once what it waits for holds. */
void jit_wait_unlocked(void (*wait)(void *arg), void *arg);

/* Whether t has handed syscall *nr to the kernel and its clients have not seen it return
 * (t is blocked in it, or its result waits for the runtime's lock): t's registers are
 * those of the syscall instruction (JIT_GPR_RAX: the number). For another thread while
 * the world is stopped. */
bool jit_thread_in_syscall(const struct jit_thread *t, long *nr);

/* From a budget check's callout (jit_insert_budget_check): only the block's first `insns`
 * instructions run, from a translation of them alone, and the thread comes back to its
 * budget checks at the next one, so that it can stop at an exact instruction count (a REP
 * string instruction is checked by iterations: jit_insert_budget_check). When several
 * callouts at the block's start limit it, the smallest limit holds. */
void jit_callout_limit_block(const struct jit_callout *c, uint32_t insns);

/* What `cpuid` answers for leaf and subleaf (eax, ebx, ecx, edx), from the table the run's
 * processes share where the leaf does not name the CPU that asks (a recorder executing the
 * app's `cpuid` in its place). From a callout or hook. */
void jit_cpuid(uint32_t leaf, uint32_t subleaf, uint32_t out[4]);

/* From a callout that asked for a safe point on its own thread (jit_request_safe_point,
 * say through a client's event): the clients' safe_point hooks run now, at the callout's
 * instruction with the count before it, instead of at the end of the block. */
void jit_callout_safe_point(const struct jit_callout *c);

/* From a callout: the rest of the block runs from a fresh translation that starts at the
 * callout's instruction (without the callouts already run there), as after a change of
 * instrumentation: its budget checks come first (a debugger stops after exactly one
 * instruction from there with jit_callout_limit_block). */
void jit_callout_restart_block(const struct jit_callout *c);

/* From a callout whose thread never runs the rest of its block (it waits for ever, or the
 * process ends there): the thread's instruction count and the clients' (block_left) no
 * longer hold the instructions from the callout's to the block's end. */
void jit_callout_abandon_block(const struct jit_callout *c);

/* Replays. The next thread the runtime makes (jit_run_state's, jit_start_thread's,
 * jit_app_clone_thread's) has this number (jit_thread_id) instead of the next in line: the
 * tools and the controller name the threads as the recording did. From the driver's
 * thread before jit_run_state, or a hook or callout. */
void jit_number_next_thread(uint32_t number);

/* Replays. A thread as clone(flags | CLONE_VM | CLONE_THREAD) would make it for t, without
 * the kernel's writes of the child's tid (CLONE_PARENT_SETTID, CLONE_CHILD_SETTID,
 * CLONE_CHILD_CLEARTID, CLONE_PIDFD: the replayer applies the recorded ones): the child
 * starts after t's syscall with rax 0, on `stack` (0: t's) and with %fs base `tls` under
 * CLONE_SETTLS. The clients' thread_start hooks run on t first. Returns the kernel's
 * result (the child's real tid, or -errno). From t's syscall_pre hook. */
long jit_app_clone_thread(struct jit_thread *t, unsigned long flags, uint64_t stack, uint64_t tls);

/* Replays. A new app thread in state r with that xsave image, as it was at a region's
 * start: the clients' thread_start hooks run (on self) before it enters the cache. NULL
 * when it cannot be made. From a hook or callout running on self. */
struct jit_thread *jit_start_thread(struct jit_thread *self, const struct jit_regs *r,
				    const uint8_t *xsave, size_t xsave_len);

/* Replays (a debugger's checkpoints). A copy of the process as clone(flags) makes it
 * (CLONE_PARENT and the exit signal, say; never CLONE_VM or CLONE_THREAD), in which only
 * the calling thread runs: the other app threads are gone there, but those waiting in
 * jit_wait_unlocked, which jit_thaw_threads can bring back. The runtime's lock, when the caller
 * holds it, is held by the copy's thread. Returns as fork does: the child's pid, 0 in the child, or
 * -errno. From a callout or hook running on self. */
long jit_fork(struct jit_thread *self, unsigned long flags);

/* Replays (a debugger's checkpoints). Whether every other live app thread waits in
 * jit_wait_unlocked now, so that a copy of the process made now (jit_fork) can have them
 * all: in the copy they are frozen (no kernel thread runs them) until jit_thaw_threads
 * gives each one a kernel thread of its own, which runs its wait again. From a callout or
 * hook running on self; jit_thaw_threads in the copy, 0 or -errno. */
bool jit_others_waiting(const struct jit_thread *self);
long jit_thaw_threads(struct jit_thread *self);

void jit_thread_slot_set(struct jit_thread *t, int slot, uint64_t value);
uint64_t jit_thread_slot_get(const struct jit_thread *t, int slot);

/* Delivers a signal to t as recorded elsewhere (the replayer): builds the handler's frame
 * with that action and saved mask, and points t at the handler. From a callout, the thread
 * then continues in the handler instead of the rest of its block. False when the frame
 * could not be written. */
bool jit_deliver_signal(struct jit_thread *t, int sig, const void *info,
			const struct jit_sigaction *act, uint64_t old_mask);

/* The app's signal state as the runtime keeps it, for a recorder to save at region start
 * and a replayer to put back. Actions (sig 1..64) and the alternate stack are those of t's
 * process; the mask is t's own (set it from t itself: its real mask follows). */
void jit_app_sigaction(const struct jit_thread *t, int sig, struct jit_sigaction *act);
void jit_set_app_sigaction(struct jit_thread *t, int sig, const struct jit_sigaction *act);
struct jit_sigstack {
	uint64_t sp;
	int32_t flags; /* SS_DISABLE: none */
	uint64_t size;
};
void jit_app_sigstack(const struct jit_thread *t, struct jit_sigstack *s);
void jit_set_app_sigstack(struct jit_thread *t, const struct jit_sigstack *s);
uint64_t jit_thread_sigmask(const struct jit_thread *t);
void jit_thread_set_sigmask(struct jit_thread *t, uint64_t mask);

/* Retranslate everything from the next block on (instrumentation changed). */
void jit_request_retranslation(void);
/* The same from a syscall_post hook of a fork, in the child: with the child's only thread
 * in the runtime, the translations are dropped and the code cache reused rather than
 * unlinked in place, which in a child copies every page of code it shares with its parent
 * (5-9 ms for a bash). Otherwise (a vfork child, threads left) jit_request_retranslation. */
void jit_request_retranslation_in_forked_child(const struct jit_thread *t);
/* Retranslate only the blocks holding one of the app pcs (sorted ascending): cheaper when
 * the client knows where its instrumentation changed. */
void jit_request_retranslation_at(const uint64_t *pcs, size_t n);

/* Where the thread that catches the app's deadly signal stands (jit_client.app_dies). */
enum jit_death_place {
	/* Before the instruction that faulted, which did not execute: the thread's registers
	 * (jit_thread_get_regs, xsave) and instruction count are exactly those there. */
	JIT_DEATH_AT_INSN,
	/* Inside a syscall (jit_thread_in_syscall): its registers are the syscall's. */
	JIT_DEATH_IN_SYSCALL,
	/* Anywhere else (a signal from outside caught in the middle of a block): its state is
	 * not known. */
	JIT_DEATH_ELSEWHERE,
};

struct jit_client {
	const char *name;
	void *arg;
	void (*instrument_block)(struct jit_block *b, void *arg);
	/* For translations kept across runs (-jit:persist): nonzero when what
	 * instrument_block inserts now is a function of a block's code alone, and then a
	 * name for that instrumentation (a kept translation is taken only under the tags it
	 * was made with); 0, or no such hook: it depends on more (the client's state), and
	 * nothing translated meanwhile is kept or taken. Called under the runtime lock. */
	uint64_t (*keep_tag)(void *arg);
	/* The callouts (functions, NULL-terminated) whose translations may be kept too, under
	 * keep_tag: each is inserted with a plain value as its argument (a kept translation
	 * holds the value, never an address), and not as a budget check. */
	const jit_callout_fn *kept_callouts;
	/* On the new thread before its first instruction (pc) runs. */
	void (*thread_start)(struct jit_thread *t, uint64_t pc, void *arg);
	/* An executable file mapping appeared (the program, its interpreter, a library). */
	void (*image_mapped)(const char *path, uint64_t start, uint64_t end, uint64_t offset,
			     void *arg);
	/* Before the thread's syscall (nr, args) runs: returning true takes it over; the hook
	 * leaves the result in JIT_GPR_RAX (jit_thread_set_gpr). rt_sigreturn is the
	 * runtime's own business: no hook sees it. */
	bool (*syscall_pre)(struct jit_thread *t, long nr, const long args[6], void *arg);
	/* After the syscall ran, with its result (-JIT_ERESTARTSYS: a signal interrupted it
	 * and it will run again once the handler returns). */
	void (*syscall_post)(struct jit_thread *t, long nr, const long args[6], long result,
			     void *arg);
	/* The syscall failed with EFAULT (not seen by syscall_post yet): returning true says
	 * the client made more app memory accessible (first-touch recording withholds pages
	 * the kernel may have needed), and the syscall runs once more in its place. */
	bool (*syscall_efault)(struct jit_thread *t, long nr, const long args[6], void *arg);
	/* An asynchronous signal is about to be delivered to an app handler at a block
	 * boundary (info: the kernel's siginfo; old_mask: the mask the frame saves). */
	void (*signal_delivery)(struct jit_thread *t, int sig, const void *info,
				const struct jit_sigaction *act, uint64_t old_mask, void *arg);
	/* An asynchronous signal is about to reach t at a block boundary (its handler, or its
	 * default action): returning false discards it (a debugger's user said so). t's
	 * registers are those it has there; the hook may stop the world, as at a safe point. */
	bool (*signal_filter)(struct jit_thread *t, int sig, const void *info, void *arg);
	/* At the block boundary (or before the callout) after jit_request_safe_point. icount:
	 * the instructions the thread has executed there (exact). */
	void (*safe_point)(struct jit_thread *t, uint64_t icount, void *arg);
	/* The thread left its current block before the instruction at pc (a callout sent it
	 * elsewhere or into a fresh translation): the instructions from pc to the block's
	 * end, counted at the block's start (table counters), do not run in this block. */
	void (*block_left)(struct jit_thread *t, uint64_t pc, void *arg);
	/* Once, on the exiting thread, when the process exits normally (exit_group or the last
	 * thread's exit). Not called when the app dies of a signal. */
	void (*at_exit)(int status, void *arg);
	/* The app is about to die of signal sig (its action is the default one, or a fault it
	 * does not handle): the process ends by it once the hooks return, unless a hook ends
	 * it first (a replayer reports a divergence; hooks registered earlier have run). On
	 * the thread that caught it, possibly inside a signal handler with the runtime's locks
	 * in any state: raw system calls only, for what must not outlive the process (a file
	 * to remove) or what must be said about it. `where` says what is known of t's state
	 * (jit_death_place). */
	void (*app_dies)(struct jit_thread *t, int sig, enum jit_death_place where, void *arg);
	/* Whether a clone(CLONE_VM|CLONE_VFORK) child (vfork, posix_spawn) may run now as it
	 * does natively, in the parent's memory until it execs or exits. Such a child is no
	 * thread of the process: no hook above runs on it (not even at_exit), it takes no
	 * thread id of its own (jit_thread_id answers its parent's) and jit_thread_count does
	 * not count it, but it runs the client's inline code and callouts, on its own thread
	 * block. When some client has no such hook or answers false, the child runs in a copy
	 * of the parent's memory instead (a fork the parent waits for): then what it writes
	 * for the parent, such as posix_spawn's exec error, is lost. */
	bool (*vfork_shares_memory)(void *arg);
	/* The thread's execve (or execveat) is about to replace the process: the checks the
	 * kernel makes first have passed (a call that fails them returns its error to the app
	 * without this hook), so this is the last moment to finish what must not be lost with
	 * the process image. Not on a vfork child (see above). */
	void (*before_exec)(struct jit_thread *t, void *arg);
};

/* Knobs (NULL-terminated, in the client's static memory, read at each exec) that the
 * driver re-executed by a followed execve gets after its own: what a process's next image
 * must know of the current one. Not given to a vfork child's exec, which starts afresh. */
void jit_set_exec_knobs(char *const *knobs);

/* Ends the process with `status` as the app's exit_group would: the clients' at_exit
 * hooks and the statistics first. */
_Noreturn void jit_process_exit(int status);
/* From an at_exit hook: the process exits with `status` instead of the app's (a recorder
 * whose pinballs could not be written says so to whoever waits for the run). */
void jit_set_exit_status(int status);

/* Clients are kept by reference; register them before jit_start. */
void jit_register_client(const struct jit_client *c);

/* The threads the runtime knows, for reporting (thread ids count from 0 in creation order). */
size_t jit_thread_count(void);
struct jit_thread *jit_thread_at(size_t index);
uint32_t jit_thread_id(const struct jit_thread *t);
/* The kernel's id of the thread (its /proc/self/task entry). */
int32_t jit_thread_os_tid(const struct jit_thread *t);
/* Whether the thread has exited (its block stays for the reports). */
bool jit_thread_exited(const struct jit_thread *t);
/* Threads started and not exited (an exit of the last one ends the process). */
size_t jit_thread_live_count(void);

#endif
