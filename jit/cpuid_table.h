/* The app's `cpuid`, answered from a table that the processes of a run share (a file in
 * its session directory). Under a hypervisor every `cpuid` traps (8-11 us on the
 * development VM), and every process start runs about fifty, the same in each (ld.so's and
 * glibc's probing of the CPU's features and caches): a short process under the JIT paid
 * for them twice, once for the runtime's own C library and once for the app's. Leaves that
 * name the CPU the thread runs on (its APIC ids, its core type) are kept per CPU, and a
 * `cpuid` that a client instruments (a recording's, a replay's, an alarm's) is the
 * client's. */
#ifndef JIT_CPUID_TABLE_H
#define JIT_CPUID_TABLE_H

#include <stdbool.h>
#include <stdint.h>

#include "instrument.h"

/* Reads the run's table (NULL: no session, this process's table only). */
void cpuid_table_start(const char *session_dir);
/* After the clients: the block's `cpuid` instructions that none of them instruments are
 * answered from the table (a callout in their place). */
void cpuid_table_instrument(struct jit_block *b);
/* The callout that answers (kept translations name it: instrument.c). */
void cpuid_table_answer(const struct jit_callout *c);
/* Writes the table back for the run's next processes, if this one learned leaves they
 * have not. Before an exec, at exit (but the run's first process's: the run ends), and
 * before a fork: the children then know the file has what they have, where each of them
 * would otherwise write it again before its exec (a shell's every command). */
void cpuid_table_save(bool at_exit);
/* How many of the app's `cpuid` instructions the table answered, and how many it had to
 * ask the CPU (the runtime's own questions, and a recorder's, are not counted). */
uint64_t cpuid_table_answered(void);
uint64_t cpuid_table_asked(void);

#endif
