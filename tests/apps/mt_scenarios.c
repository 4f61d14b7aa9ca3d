/* Multithreaded programs for record and replay, scenario by argv[1]. Each prints what it
 * computed inside the region it marks (SSC 11223344 starts it, 55667788 stops it, both
 * after the threads it needs exist), so that a replay of the region echoes all of it:
 *
 *   racy       four threads add to a plain counter without any lock
 *   queue      a lock-free single-producer single-consumer ring of atomics, spinning
 *   short      fifty short-lived threads at once
 *   exits      threads created and exiting inside the region while main goes on
 *   sleeper    the region starts (in thread 3) while thread 1 sleeps in read(2), which a
 *              write in the region wakes; it stops while thread 2 waits in a futex
 *   signals    pthread_kill and tgkill between threads, kill to the process, to handlers
 *   before     threads created before the region, running across its start and stop
 *   both_start two threads reach the start mark at the same time: one region
 *   cpus       threads ask sched_getcpu (which reads rseq's cpu_id when glibc registered it)
 *   robust     threads exit holding robust mutexes, one with main waiting on it: the kernel
 *              marks them owner-dead at the exit
 *   raw_clone  threads made by clone(2) itself with the flags Go's runtime uses, and with
 *              the kernel's tid writes (PARENT_SETTID, CHILD_SETTID, CHILD_CLEARTID)
 *   exit_at_start  rounds in which threads exit (pthread_join waits for the kernel to
 *              clear their tid word) just as another thread starts a region
 *   strings    threads copy and fill a shared buffer with REP string instructions of
 *              every length up to 300 (each iteration counts as an instruction), racing
 */
#include <errno.h>
#include <linux/futex.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/rseq.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "ssc_mark.h"

#define START() SSC_MARK(0x11223344)
#define STOP() SSC_MARK(0x55667788)

static void say(const char *fmt, long a, long b)
{
	printf(fmt, a, b);
	fflush(stdout);
}

static long work(long seed, long n)
{
	long x = seed;
	for (long i = 0; i < n; i++)
		x = x * 6364136223846793005L + 1442695040888963407L;
	return x & 0xffff;
}

/* ---- racy ---- */
static volatile long racy_counter;
static void *racy_add(void *arg)
{
	for (long i = 0; i < 200000; i++)
		racy_counter = racy_counter + 1 + (long)arg * 0;
	return NULL;
}
static void racy(void)
{
	START();
	pthread_t t[4];
	for (long i = 0; i < 4; i++)
		pthread_create(&t[i], NULL, racy_add, (void *)i);
	for (int i = 0; i < 4; i++)
		pthread_join(t[i], NULL);
	say("racy counter %ld of %ld\n", racy_counter, 4 * 200000L);
	STOP();
}

/* ---- queue ---- */
enum { RING = 64, ITEMS = 50000 };
static _Atomic long ring[RING];
static _Atomic unsigned head, tail;
static void *produce(void *arg)
{
	(void)arg;
	for (long i = 1; i <= ITEMS; i++) {
		while (atomic_load(&tail) - atomic_load(&head) == RING)
			__builtin_ia32_pause();
		atomic_store(&ring[atomic_load(&tail) % RING], i);
		atomic_fetch_add(&tail, 1);
	}
	return NULL;
}
static void queue(void)
{
	START();
	pthread_t p;
	pthread_create(&p, NULL, produce, NULL);
	long sum = 0;
	for (long got = 0; got < ITEMS; got++) {
		while (atomic_load(&head) == atomic_load(&tail))
			__builtin_ia32_pause();
		sum += atomic_load(&ring[atomic_load(&head) % RING]);
		atomic_fetch_add(&head, 1);
	}
	pthread_join(p, NULL);
	say("queue sum %ld (want %ld)\n", sum, (long)ITEMS * (ITEMS + 1) / 2);
	STOP();
}

/* ---- short ---- */
static void *briefly(void *arg)
{
	return (void *)work((long)arg, 2000);
}
static void short_lived(void)
{
	START();
	pthread_t t[50];
	for (long i = 0; i < 50; i++)
		pthread_create(&t[i], NULL, briefly, (void *)i);
	long sum = 0;
	for (int i = 0; i < 50; i++) {
		void *r;
		pthread_join(t[i], &r);
		sum += (long)r;
	}
	say("fifty threads: %ld %ld\n", sum, 50L);
	STOP();
}

/* ---- exits ---- */
static void *exit_early(void *arg)
{
	long r = work((long)arg, 5000);
	pthread_exit((void *)r);
}
static void exits(void)
{
	START();
	pthread_t t[6];
	for (long i = 0; i < 6; i++)
		pthread_create(&t[i], NULL, exit_early, (void *)i);
	long mine = work(99, 200000);
	long sum = 0;
	for (int i = 0; i < 6; i++) {
		void *r;
		pthread_join(t[i], &r);
		sum += (long)r;
	}
	say("exits: %ld main %ld\n", sum, mine);
	STOP();
}

/* ---- sleeper ---- */
static int wake[2];
static pthread_mutex_t held = PTHREAD_MUTEX_INITIALIZER;
static pthread_barrier_t sleeper_ready;
static void *sleeps_in_read(void *arg)
{
	(void)arg;
	pthread_barrier_wait(&sleeper_ready);
	char c;
	long got = read(wake[0], &c, 1); /* blocked here when the region starts */
	say("thread 1 woke with %ld byte(s), then %ld\n", got, work(c, 10000));
	return NULL;
}
static void *waits_for_lock(void *arg)
{
	(void)arg;
	pthread_barrier_wait(&sleeper_ready);
	pthread_mutex_lock(&held); /* blocked in a futex when the region stops */
	pthread_mutex_unlock(&held);
	return NULL;
}
static void *starts_region(void *arg)
{
	(void)arg;
	pthread_barrier_wait(&sleeper_ready);
	usleep(100000); /* thread 1 is in read(2) by now */
	START();
	long w = work(3, 50000);
	if (write(wake[1], "x", 1) != 1)
		abort();
	usleep(100000);
	say("thread 3 worked %ld and woke thread 1 (%ld)\n", w, 1L);
	STOP();
	return NULL;
}
static void sleeper(void)
{
	if (pipe(wake))
		abort();
	pthread_barrier_init(&sleeper_ready, NULL, 4);
	pthread_mutex_lock(&held);
	pthread_t t[3];
	pthread_create(&t[0], NULL, sleeps_in_read, NULL);
	pthread_create(&t[1], NULL, waits_for_lock, NULL);
	pthread_create(&t[2], NULL, starts_region, NULL);
	pthread_barrier_wait(&sleeper_ready);
	pthread_join(t[2], NULL);
	pthread_join(t[0], NULL);
	pthread_mutex_unlock(&held);
	pthread_join(t[1], NULL);
}

/* ---- signals ---- */
static volatile sig_atomic_t hits[3];
static pthread_t targets[3];
static void on_usr1(int sig)
{
	(void)sig;
	for (int i = 0; i < 3; i++)
		if (pthread_equal(pthread_self(), targets[i]))
			hits[i]++;
}
static volatile sig_atomic_t process_hits;
static void on_usr2(int sig)
{
	(void)sig;
	process_hits++; /* whichever thread the kernel chose */
}
static _Atomic int shooting_done;
static void *target(void *arg)
{
	(void)arg;
	while (!atomic_load(&shooting_done))
		work(1, 100);
	return NULL;
}
static void signals_between_threads(void)
{
	struct sigaction sa = {0};
	sa.sa_handler = on_usr1;
	sigaction(SIGUSR1, &sa, NULL);
	sa.sa_handler = on_usr2;
	sigaction(SIGUSR2, &sa, NULL);
	START();
	for (int i = 0; i < 2; i++)
		pthread_create(&targets[i], NULL, target, NULL);
	targets[2] = pthread_self();
	for (int round = 0; round < 5; round++) {
		pthread_kill(targets[0], SIGUSR1);
		syscall(SYS_tgkill, getpid(), syscall(SYS_gettid), SIGUSR1);
		pthread_kill(targets[1], SIGUSR1);
		kill(getpid(), SIGUSR2); /* process-directed */
		/* A signal still pending absorbs another of its kind: one round at a time. */
		while (hits[0] <= round || hits[1] <= round || process_hits <= round)
			usleep(1000);
	}
	atomic_store(&shooting_done, 1);
	for (int i = 0; i < 2; i++)
		pthread_join(targets[i], NULL);
	say("signals: %ld to the threads, %ld to main\n", hits[0] + hits[1], hits[2]);
	say("signals: %ld to the process, %ld rounds\n", process_hits, 5L);
	STOP();
}

/* ---- before ---- */
static _Atomic int stop_spinning;
static _Atomic long spins[3];
static void *spin(void *arg)
{
	long i = (long)arg;
	while (!atomic_load(&stop_spinning)) {
		work(i, 1000);
		atomic_fetch_add(&spins[i], 1);
	}
	return NULL;
}
static void before(void)
{
	pthread_t t[3];
	for (long i = 0; i < 3; i++)
		pthread_create(&t[i], NULL, spin, (void *)i);
	while (atomic_load(&spins[2]) < 10)
		usleep(100);
	START();
	long w = work(5, 300000);
	atomic_store(&stop_spinning, 1);
	for (int i = 0; i < 3; i++)
		pthread_join(t[i], NULL);
	say("before: main worked %ld with %ld threads running\n", w, 3L);
	STOP();
}

/* ---- both_start ---- */
static pthread_barrier_t together;
static void *race_to_start(void *arg)
{
	pthread_barrier_wait(&together);
	START();
	return (void *)work((long)arg, 20000);
}
static void both_start(void)
{
	pthread_barrier_init(&together, NULL, 2);
	pthread_t t[2];
	for (long i = 0; i < 2; i++)
		pthread_create(&t[i], NULL, race_to_start, (void *)i);
	long sum = 0;
	for (int i = 0; i < 2; i++) {
		void *r;
		pthread_join(t[i], &r);
		sum += (long)r;
	}
	say("both started: %ld %ld\n", sum, 2L);
	STOP();
}

/* ---- cpus ---- */
static void *ask_cpu(void *arg)
{
	long valid = 0;
	for (int i = 0; i < 1000; i++) {
		valid += sched_getcpu() >= 0;
		work(i, 100);
	}
	*(long *)arg = valid;
	return NULL;
}
static void cpus(void)
{
	START();
	pthread_t t[2];
	long valid[2];
	for (int i = 0; i < 2; i++)
		pthread_create(&t[i], NULL, ask_cpu, &valid[i]);
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	say("cpus: rseq %ld, %ld valid answers of sched_getcpu\n", __rseq_size > 0,
	    valid[0] + valid[1]);
	STOP();
}

/* ---- robust ---- */
static pthread_mutex_t robust_mutex[2];
static atomic_int robust_held;
static void *hold_and_exit(void *arg)
{
	pthread_mutex_lock(&robust_mutex[(long)arg]);
	atomic_fetch_add(&robust_held, 1);
	if ((long)arg == 0)
		usleep(20000); /* main is likely waiting on it by now */
	return NULL;
}
static int lock_dead(pthread_mutex_t *m)
{
	int r = pthread_mutex_lock(m);
	if (r == EOWNERDEAD)
		pthread_mutex_consistent(m);
	pthread_mutex_unlock(m);
	return r;
}
static void robust(void)
{
	pthread_mutexattr_t a;
	pthread_mutexattr_init(&a);
	pthread_mutexattr_setrobust(&a, PTHREAD_MUTEX_ROBUST);
	for (int i = 0; i < 2; i++)
		pthread_mutex_init(&robust_mutex[i], &a);
	START();
	pthread_t t[2];
	pthread_create(&t[0], NULL, hold_and_exit, (void *)0L);
	while (atomic_load(&robust_held) < 1)
		sched_yield();
	long waited = lock_dead(&robust_mutex[0]) == EOWNERDEAD;
	pthread_create(&t[1], NULL, hold_and_exit, (void *)1L);
	pthread_join(t[1], NULL);
	long after = lock_dead(&robust_mutex[1]) == EOWNERDEAD;
	pthread_join(t[0], NULL);
	say("robust: owner dead while waiting %ld, after the exit %ld\n", waited, after);
	STOP();
}

/* ---- raw_clone ---- */
static int raw_tid[3];
static long raw_result[3];
static atomic_int raw_done[3];
static int raw_worker(void *arg)
{
	long i = (long)arg;
	raw_result[i] = work(i + 7, 50000);
	atomic_store(&raw_done[i], 1);
	syscall(SYS_exit, 0); /* this thread only */
	return 0;
}
static void raw_clone(void)
{
	static char stacks[3][65536] __attribute__((aligned(16)));
	const int go_flags =
	    CLONE_VM | CLONE_FS | CLONE_FILES | CLONE_SIGHAND | CLONE_SYSVSEM | CLONE_THREAD;
	/* PARENT_SETTID makes the word the tid before clone returns, so that the wait below
	 * cannot see it zero before the thread ran */
	const int tid_flags[3] = {0, CLONE_PARENT_SETTID | CLONE_CHILD_CLEARTID,
				  CLONE_PARENT_SETTID | CLONE_CHILD_SETTID | CLONE_CHILD_CLEARTID};
	START();
	for (long i = 0; i < 3; i++)
		if (clone(raw_worker, stacks[i] + sizeof stacks[i], go_flags | tid_flags[i],
			  (void *)i, &raw_tid[i], NULL, &raw_tid[i]) < 0)
			perror("clone");
	while (!atomic_load(&raw_done[0]))
		sched_yield();
	long cleared = 0;
	for (int i = 1; i < 3; i++) {
		/* as pthread_join: the kernel zeroes the word at the thread's exit, and wakes */
		int seen;
		while ((seen = __atomic_load_n(&raw_tid[i], __ATOMIC_ACQUIRE)) != 0)
			syscall(SYS_futex, &raw_tid[i], FUTEX_WAIT, seen, NULL, NULL, 0);
		cleared++;
	}
	say("raw clone: %ld, tid words cleared %ld\n",
	    raw_result[0] + raw_result[1] + raw_result[2], cleared);
	STOP();
}

/* ---- exit_at_start ---- */
static pthread_barrier_t round_start;
static void *exit_now(void *arg)
{
	pthread_barrier_wait(&round_start);
	return (void *)work((long)arg, (long)arg * 50);
}
static void *start_region(void *arg)
{
	pthread_barrier_wait(&round_start);
	START();
	long x = work((long)arg, 2000);
	STOP();
	return (void *)x;
}
static void exit_at_start(void)
{
	enum { ROUNDS = 25, EXITERS = 6 };
	long sum = 0;
	for (long round = 0; round < ROUNDS; round++) {
		pthread_t t[EXITERS + 1];
		pthread_barrier_init(&round_start, NULL, EXITERS + 1);
		for (long i = 0; i < EXITERS; i++)
			pthread_create(&t[i], NULL, exit_now, (void *)i);
		pthread_create(&t[EXITERS], NULL, start_region, (void *)round);
		for (long i = 0; i <= EXITERS; i++) {
			void *r;
			pthread_join(t[i], &r);
			sum += (long)r;
		}
		pthread_barrier_destroy(&round_start);
	}
	say("exit at start: %ld rounds, %ld\n", ROUNDS, sum);
}

/* ---- strings ---- */
static unsigned char shared_bytes[4096];
static void *copy_and_fill(void *arg)
{
	long id = (long)arg;
	for (long i = 0; i < 20000; i++) {
		size_t n = (size_t)((i * 7 + id * 13) % 301), at = (size_t)(i * 31 % 3000);
		unsigned char *dst = shared_bytes + at, *src = shared_bytes + (at + 512) % 3000;
		__asm__ volatile("rep movsb" : "+D"(dst), "+S"(src), "+c"(n) : : "memory");
		n = (size_t)(i % 97);
		dst = shared_bytes + (at + 1024) % 3000;
		__asm__ volatile("rep stosb" : "+D"(dst), "+c"(n) : "a"(id + i) : "memory");
	}
	return NULL;
}
static void strings(void)
{
	pthread_t t[3];
	for (long i = 0; i < 3; i++)
		pthread_create(&t[i], NULL, copy_and_fill, (void *)i);
	for (int i = 0; i < 3; i++)
		pthread_join(t[i], NULL);
	long sum = 0;
	for (size_t i = 0; i < sizeof shared_bytes; i++)
		sum = sum * 31 + shared_bytes[i];
	say("strings %ld (%ld)\n", sum, 3L);
}

int main(int argc, char **argv)
{
	static const struct {
		const char *name;
		void (*run)(void);
	} scenarios[] = {
	    {"racy", racy},	 {"queue", queue},	     {"short", short_lived},
	    {"exits", exits},	 {"sleeper", sleeper},	     {"signals", signals_between_threads},
	    {"before", before},	 {"both_start", both_start}, {"cpus", cpus},
	    {"robust", robust},	 {"raw_clone", raw_clone},   {"exit_at_start", exit_at_start},
	    {"strings", strings}};
	for (size_t i = 0; argc > 1 && i < sizeof scenarios / sizeof scenarios[0]; i++)
		if (!strcmp(argv[1], scenarios[i].name)) {
			scenarios[i].run();
			return 0;
		}
	fprintf(stderr,
		"usage: mt_scenarios racy|queue|short|exits|sleeper|signals|before|both_start|"
		"cpus|robust|raw_clone|exit_at_start|strings\n");
	return 2;
}
