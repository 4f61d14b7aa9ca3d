#include "messages.h"

#include <fcntl.h>
#include <stdarg.h>

#include "rt_format.h"
#include "rt_syscall.h"

enum { MAX_FATAL_CLEANUPS = 4 };

static const char *tool_name = "jit";
static void (*fatal_cleanups[MAX_FATAL_CLEANUPS])(void);
static int fatal_cleanup_count;

void jit_on_fatal(void (*cleanup)(void))
{
	if (fatal_cleanup_count < MAX_FATAL_CLEANUPS)
		fatal_cleanups[fatal_cleanup_count++] = cleanup;
}
static int message_fd = 2;
static void (*before_line)(void);

void jit_messages_before(void (*hook)(void))
{
	before_line = hook;
}

void messages_init(const char *tool, int fd)
{
	tool_name = tool;
	message_fd = fd;
}

int jit_messages_fd(void)
{
	return message_fd;
}

/* "<tool>: <prefix><message>", or the message alone when prefix is NULL. */
static void vline(const char *prefix, const char *fmt, va_list ap)
{
	char line[1024];
	size_t n = prefix ? rt_format(line, sizeof line, "%s: %s", tool_name, prefix) : 0;
	if (n < sizeof line)
		n += rt_vformat(line + n, sizeof line - n, fmt, ap);
	if (n > sizeof line - 2)
		n = sizeof line - 2;
	line[n++] = '\n';
	if (before_line)
		before_line();
	rt_write_all(message_fd, line, n);
}

void jit_abandon(int status)
{
	/* Each once: the list is emptied first, so one that fails fatally runs none again. */
	int n = fatal_cleanup_count;
	fatal_cleanup_count = 0;
	for (int i = 0; i < n; i++)
		fatal_cleanups[i]();
	rt_exit_group(status);
	__builtin_unreachable();
}

void jit_fatal(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vline("error: ", fmt, ap);
	va_end(ap);
	jit_abandon(1);
}

void jit_message(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vline("", fmt, ap);
	va_end(ap);
}

void jit_message_line(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vline(NULL, fmt, ap);
	va_end(ap);
}
