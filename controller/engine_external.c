/* Alarms that come from outside the app's instruction stream: `timeout` (wall time since
 * the alarm was armed) and `interactive` (a client on a TCP port). Each is watched by a
 * helper thread, created before the app starts, blocking all signals and invisible to the
 * app; when one is due the helper forces the app thread's budget negative, so the thread
 * checks its alarms at its next block (engine_on_budget). glibc is fine on helpers. */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "engine/engine_internal.h"

enum { POLL_NS = 2 * 1000 * 1000 };

static bool spec_has(enum control_alarm_type type)
{
	for (uint32_t k = 0; k < engine.nrefs; k++)
		if (engine_alarm(&engine.refs[k])->type == type)
			return true;
	return false;
}

/* Makes every thread that has an alarm of `type` armed look at its alarms soon. */
static void poke_threads(enum control_alarm_type type, bool (*due)(const struct engine_run *))
{
	for (uint32_t i = 0; i < ENGINE_MAX_THREADS; i++) {
		struct engine_thread *et = __atomic_load_n(&engine.threads[i], __ATOMIC_ACQUIRE);
		if (!et)
			continue;
		for (uint32_t ch = 0; ch < engine.spec->nchains; ch++) {
			const struct engine_run *run = &et->runs[ch];
			if (!run->active ||
			    engine_alarm(engine_ref(ch, run->alarm))->type != type || !due(run))
				continue;
			/* The thread's own `sub` may overwrite this store; the helper keeps
			 * poking while the alarm stays due, so the race only delays it. */
			jit_thread_slot_set(et->jt, engine.budget_slot, (uint64_t)-1);
		}
	}
}

static bool timeout_due(const struct engine_run *run)
{
	return engine_now_ns() >= run->deadline_ns;
}
static bool interactive_due(const struct engine_run *run)
{
	(void)run;
	return __atomic_load_n(&engine.interactive_pending, __ATOMIC_ACQUIRE) != 0;
}

static void sleep_poll(void)
{
	struct timespec ts = {0, POLL_NS};
	nanosleep(&ts, NULL);
}

static void *timeout_watch(void *arg)
{
	(void)arg;
	for (;;) {
		poke_threads(CONTROL_ALARM_TIMEOUT, timeout_due);
		sleep_poll();
	}
	return NULL;
}

/* Reads one word ("start" or "stop") from a client and hands it to the app thread. */
static void serve_client(int fd)
{
	char word[16] = {0};
	ssize_t n = read(fd, word, sizeof word - 1);
	if (n <= 0)
		return;
	word[strcspn(word, "\r\n ")] = '\0';
	int event = !strcmp(word, "start")  ? CONTROL_EVENT_START + 1
		    : !strcmp(word, "stop") ? CONTROL_EVENT_STOP + 1
					    : 0;
	const char *reply = event ? "ok\n" : "error: expected start or stop\n";
	if (event)
		__atomic_store_n(&engine.interactive_pending, event, __ATOMIC_RELEASE);
	if (write(fd, reply, strlen(reply)) < 0)
		return;
	/* Deliver before the next command: wait until the app thread took it. */
	while (__atomic_load_n(&engine.interactive_pending, __ATOMIC_ACQUIRE) == event && event) {
		poke_threads(CONTROL_ALARM_INTERACTIVE, interactive_due);
		sleep_poll();
	}
}

static void *interactive_listen(void *arg)
{
	int sock = (int)(long)arg;
	for (;;) {
		int fd = accept(sock, NULL, NULL);
		if (fd < 0) {
			if (errno == EINTR)
				continue;
			return NULL;
		}
		serve_client(fd);
		close(fd);
	}
}

/* Listens on 127.0.0.1 (a port from the kernel) and writes the port to <file>.<pid>. */
static int open_listener(char *err, size_t errlen)
{
	int sock = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	struct sockaddr_in addr = {.sin_family = AF_INET,
				   .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	socklen_t len = sizeof addr;
	if (sock < 0 || bind(sock, (struct sockaddr *)&addr, sizeof addr) || listen(sock, 4) ||
	    getsockname(sock, (struct sockaddr *)&addr, &len)) {
		snprintf(err, errlen, "interactive controller: cannot listen on 127.0.0.1: %s",
			 strerror(errno));
		return -1;
	}
	char path[4096];
	snprintf(path, sizeof path, "%s.%d", engine.spec->interactive_file, (int)getpid());
	FILE *f = fopen(path, "w");
	if (!f || fprintf(f, "%u\n", ntohs(addr.sin_port)) < 0 || fclose(f)) {
		snprintf(err, errlen, "interactive controller: cannot write %s: %s", path,
			 strerror(errno));
		return -1;
	}
	return sock;
}

static int start_helper(void *(*fn)(void *), void *arg, char *err, size_t errlen)
{
	sigset_t all, old;
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old); /* the helper inherits: no signal for it */
	pthread_t thread;
	int rc = pthread_create(&thread, NULL, fn, arg);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (rc) {
		snprintf(err, errlen, "cannot start the controller's helper thread: %s",
			 strerror(rc));
		return -1;
	}
	pthread_detach(thread);
	return 0;
}

int engine_external_start(char *err, size_t errlen)
{
	if (spec_has(CONTROL_ALARM_TIMEOUT) && start_helper(timeout_watch, NULL, err, errlen))
		return -1;
	if (spec_has(CONTROL_ALARM_INTERACTIVE)) {
		int sock = open_listener(err, errlen);
		if (sock < 0 || start_helper(interactive_listen, (void *)(long)sock, err, errlen))
			return -1;
	}
	return 0;
}
