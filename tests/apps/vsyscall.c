/* Old programs call the legacy vsyscall page (issue 19 item 27): gettimeofday at
 * 0xffffffffff600000, time at 0xffffffffff600400, getcpu at 0xffffffffff600800, which the
 * kernel emulates (the call's target is the page: the syscall runs and returns to the
 * caller). Their results are compared with the syscalls' own; a bad pointer given to one
 * raises SIGSEGV, as the kernel's emulation does. Also what the app learns of a
 * vDSO: AT_SYSINFO_EHDR and [vdso]/[vvar] in /proc/self/maps must agree (a runtime that
 * gives the app no vDSO hides it in the maps too). Exits 77 where the kernel has no
 * vsyscall page (vsyscall=none). */
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

typedef long (*gettimeofday_fn)(struct timeval *, struct timezone *);
typedef long (*time_fn)(long *);
typedef long (*getcpu_fn)(unsigned *, unsigned *, void *);

static const gettimeofday_fn vgettimeofday = (gettimeofday_fn)0xffffffffff600000ul;
static const time_fn vtime = (time_fn)0xffffffffff600400ul;
static const getcpu_fn vgetcpu = (getcpu_fn)0xffffffffff600800ul;

/* Whether /proc/self/maps lists the vsyscall page, and the vDSO or its data. */
static void scan_maps(int *vsyscall, int *vdso)
{
	*vsyscall = *vdso = 0;
	FILE *f = fopen("/proc/self/maps", "r");
	char line[512];
	while (f && fgets(line, sizeof line, f)) {
		*vsyscall |= strstr(line, "[vsyscall]") != NULL;
		*vdso |= strstr(line, "[vdso]") != NULL || strstr(line, "[vvar") != NULL;
	}
	if (f)
		fclose(f);
}

static sigjmp_buf after_fault;

static void on_segv(int sig)
{
	siglongjmp(after_fault, sig);
}

int main(void)
{
	int vsyscall, vdso;
	scan_maps(&vsyscall, &vdso);
	if (!vsyscall) {
		printf("no vsyscall page here\n");
		return 77;
	}
	printf("vDSO: the auxv and the maps %s\n",
	       !getauxval(AT_SYSINFO_EHDR) == !vdso ? "agree" : "disagree");

	struct timeval tv = {0, 0}, now;
	struct timezone tz;
	long r = vgettimeofday(&tv, &tz);
	gettimeofday(&now, NULL);
	printf("gettimeofday: %ld, %s\n", r,
	       now.tv_sec - tv.tv_sec <= 1 && tv.tv_sec > 1000000000 ? "now" : "wrong time");
	r = vgettimeofday(NULL, NULL);
	printf("gettimeofday(NULL, NULL): %ld\n", r);

	long t = 0, back = vtime(&t);
	long own = syscall(SYS_time, NULL);
	printf("time: %s, %s\n", back == t ? "result and store agree" : "result and store differ",
	       own - t <= 1 && t > 1000000000 ? "now" : "wrong time");
	printf("time(NULL): %s\n", vtime(NULL) > 1000000000 ? "now" : "wrong time");

	unsigned cpu = ~0u, node = ~0u, own_node = ~0u;
	r = vgetcpu(&cpu, &node, NULL);
	syscall(SYS_getcpu, NULL, &own_node, NULL);
	printf("getcpu: %ld, cpu %s, node %s\n", r, cpu < 4096 ? "valid" : "unset",
	       node == own_node ? "the same" : "another");

	signal(SIGSEGV, on_segv);
	int sig = sigsetjmp(after_fault, 1);
	if (!sig)
		vgettimeofday((struct timeval *)16, NULL);
	printf("gettimeofday(bad pointer): %s\n", sig == SIGSEGV ? "SIGSEGV" : "returned");
	return 0;
}
