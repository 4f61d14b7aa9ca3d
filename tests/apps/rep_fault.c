/* A REP string instruction that faults partway, its SIGSEGV handler making the page
 * writable: the handler sees %rcx and %rdi at the faulting iteration, and the instruction
 * goes on from there when it returns. Under a region whose instruction count ends among
 * the iterations, the runtime runs the instruction in parts; the registers at the fault
 * must still be the app's. Prints what the handler saw and what the instruction wrote: the
 * same natively and under any tool.
 */
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <ucontext.h>

enum { PAGE = 4096, PAGES = 3 };
static uint8_t *area;
static volatile uint64_t fault_rcx, fault_rdi;
static volatile int faults;

static void on_segv(int sig, siginfo_t *info, void *ctx)
{
	(void)sig;
	(void)info;
	const ucontext_t *uc = ctx;
	fault_rcx = (uint64_t)uc->uc_mcontext.gregs[REG_RCX];
	fault_rdi = (uint64_t)uc->uc_mcontext.gregs[REG_RDI];
	faults++;
	mprotect(area + 2 * PAGE, PAGE, PROT_READ | PROT_WRITE);
}

/* Where a region starts (-control start:enter_func:before_fill). */
__attribute__((noinline)) void before_fill(void)
{
	__asm__ volatile("" ::: "memory");
}

int main(void)
{
	area = mmap(NULL, PAGES * PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (area == MAP_FAILED || mprotect(area + 2 * PAGE, PAGE, PROT_NONE))
		return 1;
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_sigaction = on_segv;
	sa.sa_flags = SA_SIGINFO;
	sigaction(SIGSEGV, &sa, NULL);
	before_fill();
	uint64_t rcx = PAGES * PAGE;
	void *rdi = area;
	__asm__ volatile("rep stosb" : "+c"(rcx), "+D"(rdi) : "a"(0x3c) : "memory");
	uint64_t filled = 0;
	for (size_t i = 0; i < PAGES * PAGE; i++)
		filled += area[i] == 0x3c;
	printf("faults %d; at the fault rcx %lu, rdi area+%lu; after: rcx %lu, rdi area+%lu, "
	       "%lu bytes filled\n",
	       faults, (unsigned long)fault_rcx, (unsigned long)(fault_rdi - (uint64_t)area),
	       (unsigned long)rcx, (unsigned long)((uint8_t *)rdi - area), (unsigned long)filled);
	return 0;
}
