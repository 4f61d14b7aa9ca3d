/* Alarms that come from outside the app's instruction stream: `timeout` (wall time since
 * the alarm was armed) and `interactive` (a client on a TCP port). A watcher thread forces
 * the budget of every app thread whose such alarm is due negative, so the thread checks its
 * alarms at its next block (engine_on_budget); a listener thread serves the interactive
 * clients. Both are created before the app starts, block all signals and are invisible to
 * the app. glibc is fine on helpers. */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "engine/engine_internal.h"
#include "jit.h"
#include "jit_messages.h"
#include "port_file.h"

enum { POLL_NS = 2 * 1000 * 1000 };

/* What one client may take: to send its command, and then to see the event sent before
 * it reach the app. An idle client delays the others by this much at most. */
static const uint64_t CLIENT_WAIT_NS = 2000ull * 1000 * 1000;

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
			/* The thread's own `sub` may overwrite this store; the watcher keeps
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

static void *watch(void *arg)
{
	(void)arg;
	bool timeouts = spec_has(CONTROL_ALARM_TIMEOUT);
	bool interactive = spec_has(CONTROL_ALARM_INTERACTIVE);
	for (;;) {
		if (timeouts)
			poke_threads(CONTROL_ALARM_TIMEOUT, timeout_due);
		if (interactive)
			poke_threads(CONTROL_ALARM_INTERACTIVE, interactive_due);
		sleep_poll();
	}
	return NULL;
}

/* Before the app's first thread is born (a client may be quicker): whether it will arm an
 * interactive alarm for `event` at birth, the first of a chain that waits for no other. */
static bool interactive_first(int event)
{
	for (size_t c = 0; c < engine.spec->nchains; c++) {
		const struct control_chain *chain = &engine.spec->chains[c];
		const struct control_alarm *a = &chain->alarms[0];
		if (!chain->waitfor && a->type == CONTROL_ALARM_INTERACTIVE &&
		    (int)a->event == event)
			return true;
	}
	return false;
}

/* Whether some thread has an interactive alarm for `event` armed (engine.lock held). */
static bool interactive_armed(int event)
{
	if (!engine.threads[0])
		return interactive_first(event);
	for (uint32_t i = 0; i < ENGINE_MAX_THREADS; i++) {
		const struct engine_thread *et = engine.threads[i];
		for (uint32_t ch = 0; et && ch < engine.spec->nchains; ch++) {
			const struct engine_run *run = &et->runs[ch];
			if (!run->active)
				continue;
			const struct control_alarm *a = engine_alarm(engine_ref(ch, run->alarm));
			if (a->type == CONTROL_ALARM_INTERACTIVE && (int)a->event == event &&
			    engine_alarm_applies(et, a))
				return true;
		}
	}
	return false;
}

/* Waits until no event is pending, or the deadline. An event that no armed alarm waits
 * for any more (another event moved the chain on) can never be taken: it is dropped. */
static bool pending_taken(uint64_t deadline_ns)
{
	for (;;) {
		rt_mutex_lock(&engine.lock);
		int pending = engine.interactive_pending;
		if (pending && !interactive_armed(pending - 1))
			__atomic_store_n(&engine.interactive_pending, pending = 0,
					 __ATOMIC_RELEASE);
		rt_mutex_unlock(&engine.lock);
		if (!pending)
			return true;
		if (engine_now_ns() >= deadline_ns)
			return false;
		sleep_poll();
	}
}

/* One line from the client, before the deadline: false when none came in time. */
static bool read_command(int fd, char *line, size_t size, uint64_t deadline_ns)
{
	size_t n = 0;
	while (n < size - 1 && !memchr(line, '\n', n)) {
		int64_t left_ms = (int64_t)(deadline_ns - engine_now_ns()) / 1000000;
		struct pollfd p = {.fd = fd, .events = POLLIN};
		if (left_ms <= 0 || poll(&p, 1, (int)left_ms) <= 0)
			return false;
		ssize_t got = read(fd, line + n, size - 1 - n);
		if (got <= 0)
			break;
		n += (size_t)got;
	}
	line[n] = '\0';
	line[strcspn(line, "\r\n ")] = '\0';
	return true;
}

/* The answer to one command: "ok" once its event is handed to the app threads (it fires at
 * an armed alarm's thread's next block), else what is wrong. */
static void answer(const char *word, char *reply, size_t size)
{
	static const char *const names[] = {
	    [CONTROL_EVENT_START] = "start", [CONTROL_EVENT_STOP] = "stop"};
	int event = !strcmp(word, "start")  ? CONTROL_EVENT_START
		    : !strcmp(word, "stop") ? CONTROL_EVENT_STOP
					    : -1;
	if (event < 0) {
		snprintf(reply, size, "error: expected start or stop");
		return;
	}
	/* The event sent before goes first: `start` then `stop` must find the stop armed. */
	int before = __atomic_load_n(&engine.interactive_pending, __ATOMIC_ACQUIRE);
	if (!pending_taken(engine_now_ns() + CLIENT_WAIT_NS)) {
		snprintf(reply, size, "error: the %s sent before has not reached the app yet",
			 names[before - 1]);
		return;
	}
	rt_mutex_lock(&engine.lock);
	bool armed = interactive_armed(event);
	if (armed)
		__atomic_store_n(&engine.interactive_pending, event + 1, __ATOMIC_RELEASE);
	rt_mutex_unlock(&engine.lock);
	if (armed)
		snprintf(reply, size, "ok");
	else
		snprintf(reply, size, "error: no %s alarm is armed", names[event]);
}

static void serve_client(int fd)
{
	char line[32], reply[96];
	if (read_command(fd, line, sizeof line, engine_now_ns() + CLIENT_WAIT_NS))
		answer(line, reply, sizeof reply);
	else
		snprintf(reply, sizeof reply, "error: no command within 2 seconds");
	size_t n = strlen(reply);
	reply[n++] = '\n';
	send(fd, reply, n, MSG_NOSIGNAL | MSG_DONTWAIT); /* a client that left gets nothing */
}

static void *interactive_listen(void *arg)
{
	int sock = (int)(long)arg;
	for (;;) {
		int fd = accept4(sock, NULL, NULL, SOCK_CLOEXEC);
		if (fd < 0) {
			if (errno == EINTR || errno == ECONNABORTED)
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
	if (sock < 0 || bind(sock, (struct sockaddr *)&addr, sizeof addr) || listen(sock, 16) ||
	    getsockname(sock, (struct sockaddr *)&addr, &len)) {
		snprintf(err, errlen, "interactive controller: cannot listen on 127.0.0.1: %s",
			 strerror(errno));
		return -1;
	}
	if (port_file_create(&engine.port_file, engine.spec->interactive_file, ntohs(addr.sin_port),
			     "interactive controller", err, errlen))
		return -1;
	/* Removed at every end: the JIT's hooks (engine_start.c) and these two. */
	atexit(engine_remove_port_file);
	jit_on_fatal(engine_remove_port_file);
	return jit_runtime_fd(sock);
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
	bool interactive = spec_has(CONTROL_ALARM_INTERACTIVE);
	if ((interactive || spec_has(CONTROL_ALARM_TIMEOUT)) &&
	    start_helper(watch, NULL, err, errlen))
		return -1;
	if (interactive) {
		int sock = open_listener(err, errlen);
		if (sock < 0 || start_helper(interactive_listen, (void *)(long)sock, err, errlen))
			return -1;
	}
	return 0;
}
