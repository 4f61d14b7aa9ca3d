/* The replay feed: how `replayer -trace feed` hands a replay's instructions to the replay
 * library (libpintrace-replay) over a pipe. Little-endian, packed, in this order:
 *
 *   header   "PTRFEED1", u32 flags (FEED_REGS, FEED_MEMORY), u32 threads
 *   thread   (per thread) u32 tid, u32 start (FEED_AT_START, FEED_IN_SYSCALL), u64 gpr[16],
 *            u64 rip, rflags, fs_base (the state at the region's start; zero for a thread
 *            created in the region)
 *   memory   (FEED_MEMORY) records u64 addr, u32 prot, u32 len, len bytes, ended by a
 *            record of len 0: the region's memory at its start
 *   insn     (per executed instruction, in each thread's order) u8 'I', u32 tid, u64 pc,
 *            u8 length, length bytes, u8 nmem, nmem x (u64 address, u16 size,
 *            u8 FEED_READ|FEED_WRITE), u8 branch (enum insn_branch), u8 taken, and with
 *            FEED_REGS u64 gpr[16] before it
 *   end      u8 'E'
 *
 * The library checks what it reads; it is no interface for anything else. */
#ifndef TOOL_FEED_FORMAT_H
#define TOOL_FEED_FORMAT_H

#define FEED_MAGIC "PTRFEED1"
#define FEED_REGS 1u
#define FEED_MEMORY 2u
#define FEED_AT_START 1u
#define FEED_IN_SYSCALL 2u
#define FEED_READ 1u
#define FEED_WRITE 2u
#define FEED_INSN 'I'
#define FEED_END 'E'

#endif
