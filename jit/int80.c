#include "int80.h"

#include <errno.h>
#include <linux/audit.h>
#include <string.h>
#include <sys/syscall.h>

#include "syscalls.h"

/* i386 numbers and their x86-64 twins: calls whose arguments are integers, descriptors,
 * strings, byte buffers or int arrays, so that the 32-bit call and the 64-bit one with the
 * same (zero-extended) values do the same. Not here: calls taking a structure of another
 * layout (times, sigaction, stat, iovecs, execve's pointer arrays), a signed 32-bit
 * offset, open and creat (their 32-bit forms do not add O_LARGEFILE), mmap (its 32-bit
 * forms map below 4 GiB). */
static const struct {
	uint16_t i386, x86_64;
} twins[] = {
    {1, SYS_exit},     {2, SYS_fork},	  {3, SYS_read},	  {4, SYS_write},
    {6, SYS_close},    {9, SYS_link},	  {10, SYS_unlink},	  {12, SYS_chdir},
    {15, SYS_chmod},   {20, SYS_getpid},  {29, SYS_pause},	  {33, SYS_access},
    {36, SYS_sync},    {37, SYS_kill},	  {38, SYS_rename},	  {39, SYS_mkdir},
    {40, SYS_rmdir},   {41, SYS_dup},	  {42, SYS_pipe},	  {45, SYS_brk},
    {57, SYS_setpgid}, {60, SYS_umask},	  {63, SYS_dup2},	  {64, SYS_getppid},
    {65, SYS_getpgrp}, {66, SYS_setsid},  {83, SYS_symlink},	  {85, SYS_readlink},
    {91, SYS_munmap},  {94, SYS_fchmod},  {122, SYS_uname},	  {125, SYS_mprotect},
    {133, SYS_fchdir}, {147, SYS_getsid}, {158, SYS_sched_yield}, {183, SYS_getcwd},
    {199, SYS_getuid}, {200, SYS_getgid}, {201, SYS_geteuid},	  {202, SYS_getegid},
    {224, SYS_gettid}, {238, SYS_tkill},  {252, SYS_exit_group},  {270, SYS_tgkill},
};

static long x86_64_twin(uint64_t i386)
{
	for (size_t i = 0; i < sizeof twins / sizeof twins[0]; i++)
		if (twins[i].i386 == i386)
			return twins[i].x86_64;
	return -1;
}

void int80_dispatch(struct jit_thread *t)
{
	static const int from[6] = {JIT_GPR_RBX, JIT_GPR_RCX, JIT_GPR_RDX,
				    JIT_GPR_RSI, JIT_GPR_RDI, JIT_GPR_RBP};
	static const int to[6] = {JIT_GPR_RDI, JIT_GPR_RSI, JIT_GPR_RDX,
				  JIT_GPR_R10, JIT_GPR_R8,  JIT_GPR_R9};
	uint64_t args[6];
	for (int i = 0; i < 6; i++)
		args[i] = (uint32_t)t->gpr[from[i]];
	/* The kernel takes eax only: the upper half of rax does not matter. */
	uint32_t i386 = (uint32_t)t->gpr[JIT_GPR_RAX];
	struct seccomp_verdict v = seccomp_judge(t, AUDIT_ARCH_I386, i386, args, t->app_pc);
	long nr = x86_64_twin(i386);
	if (nr < 0) {
		long r = v.outcome == SECCOMP_RUNS ? -ENOSYS : syscall_refused(t, &v);
		t->gpr[JIT_GPR_RAX] = (uint64_t)r;
		return;
	}
	uint64_t saved[16];
	memcpy(saved, t->gpr, sizeof saved);
	for (int i = 0; i < 6; i++)
		t->gpr[to[i]] = args[i];
	t->gpr[JIT_GPR_RAX] = (uint64_t)nr;
	uint64_t after = t->app_pc;
	syscall_dispatch_judged(t, &v);
	uint64_t result = t->gpr[JIT_GPR_RAX];
	memcpy(t->gpr, saved, sizeof saved);
	/* A restart (back on the instruction) keeps the i386 number in eax. */
	if (t->app_pc == after)
		t->gpr[JIT_GPR_RAX] = result;
}
