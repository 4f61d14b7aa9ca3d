/* The registers an app's SIGSEGV handler sees, for faults in blocks that name only a few
 * registers: instrumentation may keep its own values in the others there (memory marks
 * hold three), and the handler must still see the app's. Prints every general-purpose
 * register but %rsp and %rip at each fault; the output is the same natively and under any
 * tool.
 */
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <ucontext.h>

/* Sets every register but %rsp to a known value in one block, then, in blocks of their own
 * that name only %rax and %rcx (or %rdx): loads through %rax (a valid address), then
 * through what it loaded (NULL: the fault). The handler resumes at after_fault_N. */
void fault_in_small_blocks(uint64_t *valid);
__asm__(".text\n"
	".globl fault_in_small_blocks\n"
	"fault_in_small_blocks:\n"
	"	push %rbx; push %rbp; push %r12; push %r13; push %r14; push %r15\n"
	"	mov %rdi, %rax\n"
	"	movabs $0x0202020202020202, %rdx\n"
	"	movabs $0x0303030303030303, %rbx\n"
	"	movabs $0x0505050505050505, %rbp\n"
	"	movabs $0x0606060606060606, %rsi\n"
	"	movabs $0x0707070707070707, %rdi\n"
	"	movabs $0x0808080808080808, %r8\n"
	"	movabs $0x0909090909090909, %r9\n"
	"	movabs $0x0a0a0a0a0a0a0a0a, %r10\n"
	"	movabs $0x0b0b0b0b0b0b0b0b, %r11\n"
	"	movabs $0x0c0c0c0c0c0c0c0c, %r12\n"
	"	movabs $0x0d0d0d0d0d0d0d0d, %r13\n"
	"	movabs $0x0e0e0e0e0e0e0e0e, %r14\n"
	"	movabs $0x0f0f0f0f0f0f0f0f, %r15\n"
	"	jmp 1f\n"
	"1:	mov (%rax), %rcx\n"
	"	add %rcx, 8(%rax)\n"
	"	mov (%rcx), %rcx\n" /* faults */
	".globl after_fault_1\n"
	"after_fault_1:\n"
	"	jmp 2f\n"
	"2:	mov 16(%rax), %rdx\n"
	"	mov %rdx, 24(%rax)\n"
	"	movq $1, (%rdx)\n" /* faults */
	".globl after_fault_2\n"
	"after_fault_2:\n"
	"	pop %r15; pop %r14; pop %r13; pop %r12; pop %rbp; pop %rbx\n"
	"	ret\n");
extern const char after_fault_1[], after_fault_2[];

static int faults;

static void on_segv(int sig, siginfo_t *info, void *ctx)
{
	(void)sig;
	(void)info;
	static const struct {
		const char *name;
		int reg;
	} regs[] = {{"rax", REG_RAX}, {"rcx", REG_RCX}, {"rdx", REG_RDX}, {"rbx", REG_RBX},
		    {"rbp", REG_RBP}, {"rsi", REG_RSI}, {"rdi", REG_RDI}, {"r8", REG_R8},
		    {"r9", REG_R9},   {"r10", REG_R10}, {"r11", REG_R11}, {"r12", REG_R12},
		    {"r13", REG_R13}, {"r14", REG_R14}, {"r15", REG_R15}};
	ucontext_t *uc = ctx;
	char line[512];
	int n = snprintf(line, sizeof line, "fault %d:", ++faults);
	for (size_t i = 0; i < sizeof regs / sizeof regs[0]; i++) {
		uint64_t v = (uint64_t)uc->uc_mcontext.gregs[regs[i].reg];
		if (regs[i].reg == REG_RAX)
			v = v != 0; /* an address: only whether it is there */
		n += snprintf(line + n, sizeof line - (size_t)n, " %s=%llx", regs[i].name,
			      (unsigned long long)v);
	}
	puts(line);
	uc->uc_mcontext.gregs[REG_RIP] =
	    (greg_t)(faults == 1 ? (uintptr_t)after_fault_1 : (uintptr_t)after_fault_2);
}

int main(void)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_sigaction = on_segv;
	sa.sa_flags = SA_SIGINFO;
	sigaction(SIGSEGV, &sa, NULL);
	static uint64_t data[4] = {0, 40, 0, 0};
	fault_in_small_blocks(data);
	printf("faults %d, data %llu %llu\n", faults, (unsigned long long)data[1],
	       (unsigned long long)data[3]);
	return 0;
}
