/* -controller_log: one line per event, appended with raw syscalls (app threads). */
#include <fcntl.h>

#include "engine_internal.h"
#include "rt_format.h"
#include "rt_syscall.h"

static const char *event_word(enum control_event e)
{
	return e == CONTROL_EVENT_START ? "start" : e == CONTROL_EVENT_STOP ? "stop" : "threadid";
}

void engine_log_event(const char *verb, const struct control_event_info *ev)
{
	if (!engine.log_path)
		return;
	char tid[16];
	if (ev->bcast)
		rt_format(tid, sizeof tid, "bcast");
	else
		rt_format(tid, sizeof tid, "%u", ev->tid);
	char line[512];
	size_t n = rt_format(line, sizeof line, "%s %s tid=%s icount=%lu pc=0x%lx alarm=\"%s\"\n",
			     verb, event_word(ev->event), tid, ev->icount, ev->pc,
			     ev->alarm ? ev->alarm->text : "default-start");
	if (n >= sizeof line)
		n = sizeof line - 1;
	long fd = rt_openat(AT_FDCWD, engine.log_path, O_WRONLY | O_APPEND | O_CLOEXEC, 0);
	if (fd < 0)
		return;
	rt_write_all((int)fd, line, n);
	rt_close((int)fd);
}

void control_engine_log_ignored(const struct control_event_info *ev)
{
	engine_log_event("ignored", ev);
}
