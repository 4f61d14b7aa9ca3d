#include "echo.h"

#include <errno.h>
#include <signal.h>
#include <sys/syscall.h>
#include <time.h>

#include "rt_syscall.h"
#include "syscall_model.h"

static bool broken[3]; /* by stream: 1 stdout, 2 stderr */

/* Writes to the replayer's own stream. SIGPIPE is held back meanwhile and taken if the
 * write raised it, so that the app under replay never sees a signal of ours. */
static void emit(uint32_t stream, const void *data, size_t len)
{
	if (broken[stream] || !len)
		return;
	uint64_t pipe_bit = 1ull << (SIGPIPE - 1), old;
	rt_syscall4(SYS_rt_sigprocmask, SIG_BLOCK, (long)&pipe_bit, (long)&old, 8);
	long r = rt_write_all((int)stream, data, len);
	if (r < 0) {
		broken[stream] = true;
		struct timespec now = {0, 0};
		if (r == -EPIPE)
			rt_syscall4(SYS_rt_sigtimedwait, (long)&pipe_bit, 0, (long)&now, 8);
	}
	rt_syscall4(SYS_rt_sigprocmask, SIG_SETMASK, (long)&old, 0, 8);
}

/* Which stream a call reached: recorded in the pinball, or for older pinballs, a write
 * to fd 1 or 2. */
static uint32_t stream_of(const struct replay_input *in, const struct replay_event *e, long nr,
			  const long a[6])
{
	if (in->has_echo_streams)
		return e->echo <= 2 ? e->echo : 0;
	bool plain_write = nr == SYS_write || nr == SYS_pwrite64 || nr == SYS_writev;
	return plain_write && (a[0] == 1 || a[0] == 2) ? (uint32_t)a[0] : 0;
}

void echo_syscall(const struct replay_input *in, const struct replay_event *e, long nr,
		  const long a[6])
{
	uint32_t stream = stream_of(in, e, nr, a);
	if (!stream || e->result <= 0)
		return;
	if (e->output_len) {
		emit(stream, e->output, e->output_len);
		return;
	}
	struct mem_range r[SYSCALL_MAX_RANGES];
	int n = syscall_output_ranges(nr, a, e->result, r);
	for (int i = 0; i < n; i++)
		emit(stream, (const void *)r[i].addr, r[i].len);
}
