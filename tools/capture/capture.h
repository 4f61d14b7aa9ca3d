/* Capturing every executed instruction of a replay, fast: inline code writes what each
 * block execution did (effective addresses, branch conditions, REP string registers) into
 * per-thread buffers (instrument.h, "Inline trace records"); full buffers go to a helper
 * thread, which turns them back into one event per executed instruction (a REP string
 * instruction: one per iteration, as -icount counts) for a sink: the ChampSim writer, the
 * replay library. App threads never do I/O: they only fill buffers and hand them over.
 *
 * Set-up and the helper run on the driver's side (glibc); the rest runs on app threads. */
#ifndef TOOL_CAPTURE_H
#define TOOL_CAPTURE_H

#include <stdbool.h>
#include <stdint.h>

#include "insn_facts.h"

/* An instruction as translated (static: the same for each of its executions). */
struct capture_insn {
	uint64_t pc;
	uint16_t data;	   /* offset of its values in the block's record */
	uint16_t gprs;	   /* offset of the 16 registers before it (0: not captured) */
	uint16_t mnemonic; /* ZydisMnemonic */
	uint8_t length;
	uint8_t bytes[15];
	struct insn_facts facts;
	/* The sink's own per-instruction data, computed the first time it sees the
	 * instruction (helper thread only; zero until then). */
	uint8_t sink_ready;
	uint8_t sink_data[16];
};

/* One execution of one instruction. */
struct capture_exec {
	uint32_t tid;
	struct capture_insn *insn;	   /* its sink_data is the sink's */
	uint64_t address[INSN_MAX_MEMOPS]; /* of insn->facts.mem[k] (k < nmem); 0: unknown */
	bool taken;			   /* a branch: whether it was taken */
	/* With capture_start's `gprs`: the 16 general-purpose registers before it (JIT_GPR_*
	 * order); else NULL. */
	const uint64_t *gpr;
};

struct capture_sink {
	/* Helper thread: the executions of one thread, in order. */
	void (*exec)(const struct capture_exec *x, void *arg);
	/* Helper thread, once, after the last execution: finish the output. */
	void (*finish)(void *arg);
	void *arg;
};

/* Driver thread, before the app starts: reserves the per-thread slots, registers the JIT
 * client and starts the helper thread (all signals blocked) that feeds `sink`; with
 * `gprs`, every instruction's registers are captured too (16 inline stores each: slower).
 * Returns 0, or -1 with a one-line reason in err. */
int capture_start(const struct capture_sink *sink, bool gprs, char *err, size_t errlen);

#endif
