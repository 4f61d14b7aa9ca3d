/* pintrace value profilers: plug-ins that choose which values to capture for which
 * instructions, turn what was captured into samples merged into a profile, and format the
 * most frequent values for printing (DCPI's value profilers, brought to pintrace).
 *
 * A value profiler is a shared object defining one table, `pintrace_vprofiler` (below):
 *
 *   cc -shared -fPIC -O2 $(pkg-config --cflags pintrace-vprofiler) myprof.c -o myprof.so
 *   replayer -vprofile ./myprof.so -vprofile_out my.vprof pinball/log.0
 *   logger -log 0 -vprofile ./myprof.so -- ./app           (a run, without recording)
 *   pinball vplist my.vprof                                 (the hotlists)
 *
 * Who calls what, and where:
 *   - name, init, prof_init: when the replayer or the logger loads the plug-in, on its main
 *     thread, before the app runs. prof_init returns the capture specification: rules that
 *     select instructions (by mnemonic, by category, by memory access, by a selector function
 *     asked once per mnemonic) and the values to capture for them.
 *   - The app's threads then capture inline, into per-thread buffers (no plug-in code runs
 *     there). A thread whose buffers the plug-in has not processed yet waits: nothing is
 *     dropped.
 *   - process: on a helper thread, with batches of captured entries, in each thread's order
 *     (batches mix threads); it returns samples, (pc, context, value), which pintrace merges
 *     into the profile (counting each distinct value per instruction). Ordinary C: malloc,
 *     stdio, anything a helper thread may do.
 *   - prof_release, then release: on the helper thread after the last batch, before the
 *     profile is written.
 *   - name, init, prof_init, preface, format, prof_release, release: in `pinball vplist`,
 *     which describes each instruction as it was profiled (prof_init's specification) and
 *     prints its hotlist under the line preface gives, each value as format writes it.
 *   Only process is called concurrently with the app; no two calls ever overlap.
 *
 * The profile covers the -control regions (every thread's part of them), or the whole run or
 * replay without -control. A replay profiled twice gives identical profiles. */
#ifndef PINTRACE_VPROFILER_H
#define PINTRACE_VPROFILER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The interface's version: pintrace refuses a plug-in built for another. */
#define VPROF_API_VERSION 1

#define VPROF_MAX_VALUES 8	      /* values captured per instruction */
#define VPROF_MAX_RULES 64	      /* rules in a specification */
#define VPROF_MAX_SAMPLES_PER_ENTRY 8 /* samples process may return per entry */

/* General-purpose registers (VPROF_REG), in the hardware's numbering. */
enum vprof_reg {
	VPROF_RAX,
	VPROF_RCX,
	VPROF_RDX,
	VPROF_RBX,
	VPROF_RSP,
	VPROF_RBP,
	VPROF_RSI,
	VPROF_RDI,
	VPROF_R8,
	VPROF_R9,
	VPROF_R10,
	VPROF_R11,
	VPROF_R12,
	VPROF_R13,
	VPROF_R14,
	VPROF_R15,
};

/* What to capture. Register operands are general-purpose registers (a vector or x87
 * register is not captured), read at their width: eax's 32 bits, ah's 8. */
enum vprof_value_kind {
	VPROF_REG = 1, /* register `arg` (enum vprof_reg), 64 bits */
	VPROF_DEST,    /* the destination register operand: the first explicit operand the
			* instruction writes, when it is a register */
	VPROF_SRC,     /* source register operand `arg`: the arg-th (from 0) explicit register
			* operand the instruction reads */
	VPROF_ADDR,    /* the effective address of memory operand `arg` (from 0, in operand
			* order: the memory the instruction accesses as data, not lea's), segment
			* base included; always taken before the instruction. A REP string
			* instruction: its first iteration's, captured only when it runs one */
	VPROF_MEM,     /* the value memory operand `arg` loaded or stored: its first 8, 4, 2 or 1
			* bytes; always read after the instruction (what a load read, a store or
			* read-modify-write wrote). Not for REP string instructions, masked or
			* gathering accesses, nor an instruction that ends its basic block */
	VPROF_RESULT,  /* the instruction's result: its first explicit written operand, a
			* register (as VPROF_DEST) or memory (as VPROF_MEM) */
};

/* When a register is read. Addresses are always taken before the instruction and memory
 * values after it, whatever `when` says. Nothing is captured after an instruction that
 * ends its basic block (a jump, call, return or syscall). */
enum vprof_when {
	VPROF_AFTER,  /* once the instruction ran: its results (the default) */
	VPROF_BEFORE, /* as the instruction finds it: its inputs */
};

struct vprof_value {
	uint8_t kind; /* enum vprof_value_kind */
	uint8_t arg;
	uint8_t when; /* enum vprof_when */
};

enum vprof_match {
	VPROF_MATCH_ALL = 1,  /* every instruction */
	VPROF_MATCH_MNEMONIC, /* name is a mnemonic: "add", "mov", "vaddps" (Intel names in lower
			       * case, as Zydis and `objdump -M intel` spell them) */
	VPROF_MATCH_CATEGORY, /* name is a category: "BINARY", "DATAXFER", "LOGICAL", "COND_BR"
			       * (XED's categories, as Zydis names them and -mix prints them) */
	VPROF_MATCH_MEMORY,   /* instructions that load or store memory as data */
	VPROF_MATCH_SELECT,   /* select(mnemonic) returns true; asked once for every mnemonic
			       * when the plug-in is loaded */
};

/* A rule adds its values to every instruction it selects. An instruction selected by several
 * rules gets all their values in rule order (the same value once), at most
 * VPROF_MAX_VALUES; one selected by none is not profiled (it runs, unrecorded). A rule with
 * no values still selects: its instructions' executions are counted. */
struct vprof_rule {
	uint8_t match; /* enum vprof_match */
	const char *name;
	bool (*select)(const char *mnemonic);
	unsigned nvalues;
	struct vprof_value values[VPROF_MAX_VALUES];
};

/* Context values each entry carries (vprof_spec.contexts). */
#define VPROF_CONTEXT_THREAD 1u /* context[0]: the thread's number (as the pinball numbers it) */
/* context[1]: the address of the call instruction that entered the running function, as
 * the thread's calls and returns since the region (or run) began show it; 0 when that call
 * was not seen. Costs a record for every block executed. */
#define VPROF_CONTEXT_CALLER 2u

struct vprof_spec {
	unsigned contexts; /* VPROF_CONTEXT_* */
	unsigned nrules;   /* at most VPROF_MAX_RULES */
	const struct vprof_rule *rules;
};

/* One value an instruction has captured. */
struct vprof_slot {
	struct vprof_value value; /* as the rules asked */
	/* Whether it is captured at all for this instruction: false when the instruction has no
	 * such operand, or it cannot be read there (after a jump, a masked store). */
	bool valid;
	uint8_t size;	 /* bytes: the register's or the memory operand's (at most 8); 8 for an
			  * address */
	uint8_t access;	 /* an address or memory value: VPROF_READ, VPROF_WRITE or both */
	const char *reg; /* a register value's register ("eax"), else NULL */
};

#define VPROF_READ 1u  /* the instruction loads the memory operand */
#define VPROF_WRITE 2u /* the instruction stores to it */

/* An instruction as profiled: the same for each of its executions. */
struct vprof_insn {
	uint64_t pc;
	uint8_t length;
	uint8_t bytes[15];
	const char *mnemonic; /* "mov" */
	const char *category; /* "DATAXFER" */
	unsigned nvalues;
	struct vprof_slot values[VPROF_MAX_VALUES];
};

/* One execution of a profiled instruction. */
struct vprof_entry {
	const struct vprof_insn *insn;
	uint32_t tid;	     /* the thread */
	uint32_t valid;	     /* bit k: values[k] was captured in this execution */
	uint64_t context[2]; /* as vprof_spec.contexts asked; 0 otherwise */
	uint64_t values[VPROF_MAX_VALUES];
};

/* What the profile counts: how often each (context, value) was seen at pc. */
struct vprof_sample {
	uint64_t pc;
	uint64_t context[2];
	uint64_t value;
};

struct vprof_plugin {
	uint32_t api_version; /* VPROF_API_VERSION */
	/* The profile's name ("classic"): stored in the profile, shown by vplist. Required. */
	const char *(*name)(void);
	/* After loading; nonzero refuses to run. Optional. */
	int (*init)(void);
	/* Before unloading. Optional. */
	void (*release)(void);
	/* The capture specification; it stays valid until prof_release. Required. */
	const struct vprof_spec *(*prof_init)(void);
	/* After the last process. Optional. */
	void (*prof_release)(void);
	/* Turns n entries into at most n * VPROF_MAX_SAMPLES_PER_ENTRY samples, written to
	 * `samples`; returns how many. Required. */
	size_t (*process)(const struct vprof_entry *entries, size_t n,
			  struct vprof_sample *samples);
	/* The line printed before an instruction's hotlist ("result", "load address");
	 * NULL omits its hotlist. Optional (default "value"). vplist calls it once per
	 * instruction, then format for each of that instruction's values, so preface may keep
	 * what format needs in static data. */
	const char *(*preface)(const struct vprof_insn *insn);
	/* Writes the value as a user should read it (NUL-terminated, at most size bytes).
	 * Optional (default: hexadecimal). */
	void (*format)(const struct vprof_insn *insn, uint64_t value, char *buf, size_t size);
};

/* The symbol pintrace looks for. Define the table with it:
 *   VPROF_PLUGIN = {.api_version = VPROF_API_VERSION, .name = ..., ...}; */
#define VPROF_PLUGIN_SYMBOL "pintrace_vprofiler"
#define VPROF_PLUGIN                                                                               \
	__attribute__((visibility("default"))) const struct vprof_plugin pintrace_vprofiler

#ifdef __cplusplus
}
#endif

#endif
