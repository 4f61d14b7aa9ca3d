#include "vsyscall.h"

#include <errno.h>
#include <signal.h>
#include <sys/syscall.h>

#include "app_copy.h"
#include "signals.h"
#include "syscalls.h"

#define VSYSCALL_PAGE 0xffffffffff600000ull

/* The syscall behind each entry (the kernel's emulate_vsyscall). */
static long entry_syscall(uint64_t pc)
{
	switch (pc) {
	case VSYSCALL_PAGE:
		return SYS_gettimeofday;
	case VSYSCALL_PAGE + 0x400:
		return SYS_time;
	case VSYSCALL_PAGE + 0x800:
		return SYS_getcpu;
	default:
		return -1;
	}
}

bool vsyscall_emulate(struct jit_thread *t, uint64_t pc)
{
	long nr = entry_syscall(pc);
	uint64_t caller;
	if (nr < 0 || !app_copy_in(&caller, t->gpr[JIT_GPR_RSP], sizeof caller))
		return false;
	/* The kernel's emulation leaves every register but rax as it was (a syscall
	 * instruction would change rcx and r11); its arguments are the C call's. */
	uint64_t rax = t->gpr[JIT_GPR_RAX], rcx = t->gpr[JIT_GPR_RCX], r11 = t->gpr[JIT_GPR_R11];
	t->gpr[JIT_GPR_RAX] = (uint64_t)nr;
	t->app_pc = caller;
	syscall_dispatch(t);
	t->gpr[JIT_GPR_RCX] = rcx;
	t->gpr[JIT_GPR_R11] = r11;
	if ((long)t->gpr[JIT_GPR_RAX] == -EFAULT) {
		t->gpr[JIT_GPR_RAX] = rax;
		signals_app_fault(t, SIGSEGV, SEGV_MAPERR, pc, pc);
		return true;
	}
	t->gpr[JIT_GPR_RSP] += 8; /* the emulated ret */
	return true;
}
