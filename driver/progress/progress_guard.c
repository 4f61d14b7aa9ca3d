#include "progress_guard.h"

#include <stdint.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>

#include "instrument.h"
#include "jit_messages.h"
#include "rt_mutex.h"
#include "rt_syscall.h"

enum { QUIET_NS = 200 * 1000000L };

static const char erase[] = "\r\033[K";

static rt_mutex lock;
static bool shown;	    /* the line is on the screen */
static bool ended;	    /* the image exits or execs: never again */
static bool partial;	    /* the app's last output to fd 1 or 2 did not end a line */
static int64_t last_output; /* ns, CLOCK_MONOTONIC */

static int64_t now_ns(void)
{
	struct timespec ts = {0, 0};
	rt_syscall2(SYS_clock_gettime, CLOCK_MONOTONIC, (long)&ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static void erase_locked(void)
{
	if (shown)
		rt_write_all(jit_messages_fd(), erase, sizeof erase - 1);
	shown = false;
}

bool progress_guard_draw(const char *text)
{
	rt_mutex_lock(&lock);
	bool draw = !ended && !partial && now_ns() - last_output >= QUIET_NS;
	if (draw) {
		rt_write_all(jit_messages_fd(), erase, sizeof erase - 1);
		rt_write_all(jit_messages_fd(), text, strlen(text));
		shown = true;
	}
	rt_mutex_unlock(&lock);
	return draw;
}

/* The last byte the app writes to fd 1 or 2, when the call says (write, and writev's last
 * buffer). */
static bool ends_line(long nr, const long a[6])
{
	uint64_t buf = (uint64_t)a[1], len = (uint64_t)a[2];
	if (nr == SYS_writev) {
		struct {
			uint64_t base, len;
		} iov = {0, 0};
		for (uint64_t i = len; i > 0 && !iov.len; i--)
			if (!jit_read_app_memory(&iov, buf + (i - 1) * sizeof iov, sizeof iov))
				return true;
		buf = iov.base;
		len = iov.len;
	}
	char last = '\n';
	return !len || !jit_read_app_memory(&last, buf + len - 1, 1) || last == '\n';
}

static bool is_output(long nr)
{
	switch (nr) {
	case SYS_write:
	case SYS_writev:
	case SYS_pwrite64:
	case SYS_pwritev:
	case SYS_pwritev2:
	case SYS_sendfile:
	case SYS_splice:
	case SYS_copy_file_range:
	case SYS_sendto:
	case SYS_sendmsg:
	case SYS_vmsplice:
		return true;
	default:
		return false;
	}
}

static bool syscall_pre(struct jit_thread *t, long nr, const long a[6], void *arg)
{
	(void)t;
	(void)arg;
	if (!is_output(nr))
		return false;
	rt_mutex_lock(&lock);
	erase_locked();
	last_output = now_ns();
	if ((nr == SYS_write || nr == SYS_writev) && (a[0] == 1 || a[0] == 2))
		partial = !ends_line(nr, a);
	rt_mutex_unlock(&lock);
	return false;
}

/* Before a message of the runtime's: the line goes, and waits as after the app's output (a
 * lock the thread may hold, dying, is not waited for). */
static void erase_for_message(void)
{
	if (!rt_mutex_trylock(&lock))
		return;
	erase_locked();
	last_output = now_ns();
	rt_mutex_unlock(&lock);
}

/* The process image ends: the line goes, for good. */
static void end(void)
{
	if (!rt_mutex_trylock(&lock))
		return;
	erase_locked();
	ended = true;
	rt_mutex_unlock(&lock);
}

static void before_exec(struct jit_thread *t, void *arg)
{
	(void)t;
	(void)arg;
	end();
}

static void at_exit(int status, void *arg)
{
	(void)status;
	(void)arg;
	end();
}

static void app_dies(struct jit_thread *t, int sig, enum jit_death_place where, void *arg)
{
	(void)t;
	(void)sig;
	(void)where;
	(void)arg;
	end();
}

static bool vfork_shares_memory(void *arg)
{
	(void)arg;
	return true;
}

static const struct jit_client client = {
    .name = "progress",
    .syscall_pre = syscall_pre,
    .before_exec = before_exec,
    .at_exit = at_exit,
    .app_dies = app_dies,
    .vfork_shares_memory = vfork_shares_memory,
};

void progress_guard_register(void)
{
	last_output = now_ns();
	jit_register_client(&client);
	jit_messages_before(erase_for_message);
}
