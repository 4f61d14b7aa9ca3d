/* The per-thread runtime block, addressed through %gs while the app runs.
 *
 * Code in the cache reaches it as %gs:<offset>; the context switch (context_switch.S)
 * uses the same offsets, so they are plain constants shared by C and assembly, checked
 * against the struct below at compile time.
 *
 * The block also serves as the TCB that %fs points at while runtime C code runs: glibc-built
 * code (Zydis, mem* routines) reads the stack-protector canary at %fs:0x28 and the pointer
 * guard at %fs:0x30, and nothing else of it. */
#ifndef JIT_THREAD_BLOCK_H
#define JIT_THREAD_BLOCK_H

#define TB_SELF 0x00
#define TB_STACK_GUARD 0x28
#define TB_POINTER_GUARD 0x30
#define TB_GPR 0x80 /* 16 GPRs in hardware order: rax rcx rdx rbx rsp rbp rsi rdi r8..r15 */
#define TB_RFLAGS 0x100
#define TB_APP_FS 0x108
#define TB_RT_STACK_TOP 0x110
#define TB_ENTER_DISPATCH 0x118 /* code does `jmp *%gs:TB_ENTER_DISPATCH` to leave the cache */
#define TB_EXIT_RECORD 0x120
#define TB_JUMP_TARGET 0x128 /* cache pc the context switch resumes at */
#define TB_SCRATCH_RAX 0x130
#define TB_SCRATCH_RCX 0x138
#define TB_IBL_MISS 0x140    /* address of jit_ibl_miss, for `jmp *%gs:TB_IBL_MISS` */
#define TB_SCRATCH_REG 0x148 /* a borrowed register's (an operand's rewrite, a lookup's) */
#define TB_USE_XSAVEOPT 0x150
#define TB_IBL_TARGET 0x158    /* app pc of an indirect branch that missed the table */
#define TB_SCRATCH_FLAGS 0x160 /* lahf/seto image of the app flags */
#define TB_USE_FSGSBASE 0x168
#define TB_SCRATCH_REP 0x170 /* a REP string instruction's iterations after its part */
#define TB_IBL_HITS 0x178    /* counted only with -jit:stats */
#define TB_CLIENT_SLOTS 0x180
#define TB_CLIENT_SLOT_COUNT 24
/* The app's values of the registers that memory marks hold across a run of instructions
 * (memory_marks.h, held marks), lowest register number first. */
#define TB_HELD_REGS 0x240
#define TB_HELD_REG_COUNT 3
/* Where a table jump's miss would have its entry filled (table_jump.h): the entry's offset
 * in the block, set by the table's miss code on its way to jit_ibl_miss. */
#define TB_TABLE_FILL 0x258
#define TB_PARK 0x260 /* struct thread_park, read by park.S */
#define PARK_RSP 0x00
#define PARK_WAIT 0x08
#define PARK_ARG 0x10
#define PARK_WAITING 0x18
#define TB_XSAVE_AREA 0x400 /* 64-byte aligned, TB_XSAVE_SIZE bytes */
#define TB_XSAVE_SIZE 0x3000
#define TB_SIZE (TB_XSAVE_AREA + TB_XSAVE_SIZE)
/* The indirect-branch table lives in the same mapping, right after the block, so that
 * generated code indexes it as %gs:TB_IBL_TABLE(,%index,8): IBL_ENTRIES cache addresses,
 * indexed by the low 16 bits of the app target. Empty entries hold jit_ibl_miss. */
#define TB_IBL_TABLE 0x4000
#define IBL_ENTRIES 65536
/* Then the table jumps' own tables (table_jump.h): TABLE_JUMP_TABLES of TABLE_JUMP_ENTRIES
 * cache addresses each, indexed as the app's table is. */
#define TB_TABLE_JUMPS (TB_IBL_TABLE + IBL_ENTRIES * 8)
#define TABLE_JUMP_TABLES 32
#define TABLE_JUMP_ENTRIES 256
#define TB_MAPPING_SIZE (TB_TABLE_JUMPS + TABLE_JUMP_TABLES * TABLE_JUMP_ENTRIES * 8)
/* What stays of an exited thread's block: the page up to the runtime-only fields. */
#define TB_KEPT_AFTER_EXIT 0x1000

#ifndef __ASSEMBLER__
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "instrument.h"

/* A thread in jit_wait_unlocked, as a copy of the process (jit_fork) can resume it: the
 * stack pointer where park.S saved its caller's registers, and the wait it runs again. */
struct thread_park {
	uint64_t rsp;
	void (*wait)(void *arg);
	void *arg;
	int32_t waiting; /* set from before the wait starts until it has returned */
	int32_t frozen;	 /* in a copy: waiting, but with no kernel thread yet */
};

struct jit_thread {
	uint64_t self;
	uint64_t tcb_unused[4];
	uint64_t stack_guard;
	uint64_t pointer_guard;
	uint64_t tcb_pad[9];
	uint64_t gpr[16];
	uint64_t rflags;
	uint64_t app_fs;
	uint64_t rt_stack_top;
	uint64_t enter_dispatch;
	uint64_t exit_record;
	uint64_t jump_target;
	uint64_t scratch_rax;
	uint64_t scratch_rcx;
	uint64_t ibl_miss;
	uint64_t scratch_reg;
	uint64_t use_xsaveopt;
	uint64_t ibl_target;
	uint64_t scratch_flags;
	uint64_t use_fsgsbase;
	uint64_t scratch_rep;
	uint64_t ibl_hits;
	uint64_t client_slots[TB_CLIENT_SLOT_COUNT];
	uint64_t held_regs[TB_HELD_REG_COUNT];
	uint64_t table_fill;
	/* Runtime-only fields (not reached from generated code; park.S reads park). */
	struct thread_park park;
	uint64_t app_pc; /* app pc the thread will run next, when in the runtime */
	/* The callouts that ran at ran_pc in its current execution (see run_callout). */
	uint64_t ran_pc;
	void *ran_args[4];
	uint32_t ran_count;
	bool safe_point_pending;
	struct pending_signals *signals; /* received for the app, not delivered yet */
	struct jit_thread *parent;	 /* the thread that created it */
	uint64_t start_mask; /* the app's signal mask it starts with: its parent's at the clone */
	int in_runtime;	     /* between leaving and re-entering the cache */
	int exited;
	int reclaimed;
	uint32_t tid; /* Pin-style thread number, from 0 in creation order */
	int32_t os_tid;
	void *rt_stack_base;
	/* A clone(CLONE_VM|CLONE_VFORK) child (vfork, posix_spawn) running in its parent's
	 * memory until it execs or exits: not a thread of the process (threads.c). */
	int vfork_child;
	/* A vfork child whose parent goes on (clone CLONE_VM without CLONE_VFORK or
	 * CLONE_THREAD): its block goes once its process has ended (threads.c). */
	int parent_goes_on;
	struct app_signal_state *own_signals; /* a vfork child's own signal actions */
	void *exec_argv;		      /* a vfork child's execve arguments, to free */
	/* The syscall the thread has handed to the kernel (or whose return waits for the
	 * runtime lock), -1 when none: its registers are those at the syscall. */
	long syscall_in_progress;
	/* A client asked for the next block to stop after this many instructions (0: no). */
	uint32_t block_limit;
	/* While a callout runs: the counted instructions from its one to the block's end, which
	 * the thread's count already holds (jit_thread_next_icount). */
	uint32_t callout_remaining;
	/* A callout asked for the rest of its block from a fresh translation. */
	bool restart_block;
	/* Its lookup table holds an entry (thread_clear_ibl has something to clear). */
	bool ibl_dirty;
	bool seccomp_strict;		/* the app's seccomp strict mode (seccomp.h) */
	struct seccomp_filter *seccomp; /* the app's filters on this thread, newest first */
	uint8_t pad2[TB_XSAVE_AREA - TB_PARK - 176 - sizeof(struct thread_park)];
	uint8_t xsave_area[TB_XSAVE_SIZE] __attribute__((aligned(64)));
};

#define TB_CHECK(field, off) _Static_assert(offsetof(struct jit_thread, field) == (off), #field)
TB_CHECK(stack_guard, TB_STACK_GUARD);
TB_CHECK(pointer_guard, TB_POINTER_GUARD);
TB_CHECK(gpr, TB_GPR);
TB_CHECK(rflags, TB_RFLAGS);
TB_CHECK(app_fs, TB_APP_FS);
TB_CHECK(rt_stack_top, TB_RT_STACK_TOP);
TB_CHECK(enter_dispatch, TB_ENTER_DISPATCH);
TB_CHECK(exit_record, TB_EXIT_RECORD);
TB_CHECK(jump_target, TB_JUMP_TARGET);
TB_CHECK(scratch_rax, TB_SCRATCH_RAX);
TB_CHECK(scratch_rcx, TB_SCRATCH_RCX);
TB_CHECK(ibl_miss, TB_IBL_MISS);
TB_CHECK(scratch_reg, TB_SCRATCH_REG);
TB_CHECK(ibl_target, TB_IBL_TARGET);
TB_CHECK(use_fsgsbase, TB_USE_FSGSBASE);
TB_CHECK(use_xsaveopt, TB_USE_XSAVEOPT);
TB_CHECK(scratch_rep, TB_SCRATCH_REP);
TB_CHECK(scratch_flags, TB_SCRATCH_FLAGS);
TB_CHECK(ibl_hits, TB_IBL_HITS);
TB_CHECK(client_slots, TB_CLIENT_SLOTS);
TB_CHECK(held_regs, TB_HELD_REGS);
TB_CHECK(table_fill, TB_TABLE_FILL);
TB_CHECK(park, TB_PARK);
_Static_assert(offsetof(struct thread_park, rsp) == PARK_RSP, "park rsp");
_Static_assert(offsetof(struct thread_park, wait) == PARK_WAIT, "park wait");
_Static_assert(offsetof(struct thread_park, arg) == PARK_ARG, "park arg");
_Static_assert(offsetof(struct thread_park, waiting) == PARK_WAITING, "park waiting");
TB_CHECK(xsave_area, TB_XSAVE_AREA);
_Static_assert(sizeof(struct jit_thread) == TB_SIZE, "thread block size");
_Static_assert(offsetof(struct jit_thread, pad2) <= TB_KEPT_AFTER_EXIT,
	       "an exited thread's fields stay mapped");
_Static_assert(TB_SIZE <= TB_IBL_TABLE, "table after the block");
#undef TB_CHECK

#endif
#endif
