/* The classic BPF programs of seccomp filters: the checks the kernel makes before it takes
 * a program as a filter (the classic checker, then seccomp's own list of instructions and
 * loads), and running one on a syscall's seccomp_data. Pure functions of their arguments,
 * any thread. */
#ifndef JIT_SECCOMP_BPF_H
#define JIT_SECCOMP_BPF_H

#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Whether the kernel accepts prog (len instructions) as a seccomp filter: 1 to BPF_MAXINSNS
 * instructions of seccomp's set, aligned loads inside seccomp_data, jumps inside the
 * program, scratch words written before they are read on every path, a return at the end. */
bool seccomp_bpf_valid(const struct sock_filter *prog, size_t len);

/* What a valid prog returns for d: a SECCOMP_RET_* action and its data (a division by a zero
 * X returns 0, as in the kernel: SECCOMP_RET_KILL_THREAD). */
uint32_t seccomp_bpf_run(const struct sock_filter *prog, size_t len, const struct seccomp_data *d);

#endif
