/* libpintrace-replay: replay a pintrace pinball and receive every instruction it executes,
 * for simulators written as ordinary programs (pkg-config: pintrace-replay).
 *
 *   struct ptr_replay *r = ptr_replay_open("pinball/log.0", PTR_REGS, err, sizeof err);
 *   const struct ptr_insn *in;
 *   while (ptr_replay_next(r, &in) > 0)
 *           simulate(in);
 *   if (ptr_replay_close(r, msg, sizeof msg)) ... the replay did not end OK: msg says why
 *
 * The replay runs in a child process (the replayer, found through $PINTRACE_REPLAYER or the
 * installed one), which streams the instructions to this process: the simulator's address
 * space, signals and threads are its own. Instructions come in each thread's order (a REP
 * string instruction once per iteration, as replayer -icount counts); a multithreaded
 * pinball's threads come in chunks, each instruction tagged with its thread. Not
 * thread-safe: one thread per ptr_replay. */
#ifndef PINTRACE_REPLAY_H
#define PINTRACE_REPLAY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <Zydis/Zydis.h>

#ifdef __cplusplus
extern "C" {
#endif

#define PTR_API __attribute__((visibility("default")))

/* ptr_replay_open's flags. */
#define PTR_REGS 1u   /* the 16 general-purpose registers before and after each instruction */
#define PTR_MEMORY 2u /* the region's memory at its start (ptr_replay_memory) */

enum ptr_branch {
	PTR_NOT_BRANCH,
	PTR_JUMP,
	PTR_JUMP_INDIRECT,
	PTR_CONDITIONAL, /* jcc */
	PTR_RCX_BRANCH,	 /* jrcxz, jecxz, loop, loope, loopne */
	PTR_CALL,
	PTR_CALL_INDIRECT,
	PTR_RETURN,
};

/* A memory operand accessed as data (not lea's address, prefetches or a gather's
 * elements). */
struct ptr_mem_access {
	uint64_t address; /* effective address, segment base included */
	uint16_t size;	  /* bytes */
	bool read, write;
};

/* One executed instruction; valid until the next ptr_replay_next (or callback). */
struct ptr_insn {
	uint32_t tid; /* the thread's number in the pinball */
	uint64_t pc;
	uint8_t length;
	const uint8_t *bytes;
	const ZydisDecodedInstruction *decoded; /* Zydis 4, 64-bit mode */
	const ZydisDecodedOperand *operands;	/* decoded->operand_count of them */
	unsigned nmem;
	struct ptr_mem_access mem[4];
	enum ptr_branch branch;
	bool taken;	  /* a branch: whether it was taken */
	uint64_t next_pc; /* where the thread went next (a taken branch's target); 0 for the
			   * thread's last instruction */
	/* PTR_REGS: rax rcx rdx rbx rsp rbp rsi rdi r8..r15 before and after it (after: NULL
	 * for the thread's last instruction; a REP string instruction's iterations all see
	 * the registers before the instruction). NULL without PTR_REGS. */
	const uint64_t *regs_before, *regs_after;
};

/* A thread's state at the region's start. */
struct ptr_thread_state {
	uint32_t tid;
	bool at_start; /* false: created in the region (no start state) */
	/* At the start, inside a system call (rip after its instruction, rax its number): the
	 * call returns first, and the thread's first instruction sees its result in rax. */
	bool in_syscall;
	uint64_t gpr[16], rip, rflags, fs_base;
};

struct ptr_replay;

/* Starts replaying the pinball (its basename, as for the replayer). NULL with a one-line
 * reason in err when it cannot start (no replayer, a missing or corrupt pinball). */
PTR_API struct ptr_replay *ptr_replay_open(const char *pinball, unsigned flags, char *err,
					   size_t errlen);

/* The threads of the region (at its start or created in it) and their start states. */
PTR_API size_t ptr_replay_threads(const struct ptr_replay *r);
PTR_API const struct ptr_thread_state *ptr_replay_thread(const struct ptr_replay *r, size_t i);

/* PTR_MEMORY: calls fn for each range of the region's memory at its start, in address
 * order of recording; stops when fn returns nonzero (and returns that). */
typedef int (*ptr_memory_fn)(uint64_t addr, uint32_t prot, const void *data, uint64_t len,
			     void *arg);
PTR_API int ptr_replay_memory(const struct ptr_replay *r, ptr_memory_fn fn, void *arg);

/* Pull: 1 with the next instruction in *insn, 0 at the end, -1 when the stream broke (the
 * replay failed: see ptr_replay_close). */
PTR_API int ptr_replay_next(struct ptr_replay *r, const struct ptr_insn **insn);

/* Push: fn for every remaining instruction. 0 at the end, -1 as ptr_replay_next. */
typedef void (*ptr_insn_fn)(const struct ptr_insn *insn, void *arg);
PTR_API int ptr_replay_run(struct ptr_replay *r, ptr_insn_fn fn, void *arg);

/* Ends the replay (stopping it if it was not read to the end) and frees r. 0 when the
 * replay ended OK, else -1; msg gets the replayer's verdict or error line. */
PTR_API int ptr_replay_close(struct ptr_replay *r, char *msg, size_t msglen);

#ifdef __cplusplus
}
#endif

#endif
