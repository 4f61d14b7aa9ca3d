#include "rt_string.h"

#include <string.h>

#include "rt_format.h"

static int digit_value(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return 99;
}

static bool parse_digits(const char *s, unsigned base, uint64_t *out)
{
	if (*s == '\0')
		return false;
	uint64_t v = 0;
	for (; *s; s++) {
		int d = digit_value(*s);
		if (d >= (int)base)
			return false;
		if (__builtin_mul_overflow(v, base, &v) || __builtin_add_overflow(v, d, &v))
			return false;
	}
	*out = v;
	return true;
}

static bool has_hex_prefix(const char *s)
{
	return s[0] == '0' && (s[1] == 'x' || s[1] == 'X');
}

bool rt_parse_u64(const char *s, uint64_t *out)
{
	if (has_hex_prefix(s))
		return parse_digits(s + 2, 16, out);
	return parse_digits(s, 10, out);
}

bool rt_parse_hex_u64(const char *s, uint64_t *out)
{
	return parse_digits(has_hex_prefix(s) ? s + 2 : s, 16, out);
}

size_t rt_strlcpy(char *dst, const char *src, size_t cap)
{
	size_t n = strlen(src);
	if (cap > 0) {
		size_t copy = n < cap - 1 ? n : cap - 1;
		memcpy(dst, src, copy);
		dst[copy] = '\0';
	}
	return n;
}

bool rt_starts_with(const char *s, const char *prefix)
{
	return strncmp(s, prefix, strlen(prefix)) == 0;
}

bool rt_ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);
	return n >= m && memcmp(s + n - m, suffix, m) == 0;
}

size_t rt_file_path_length(const char *path)
{
	static const char deleted[] = " (deleted)";
	size_t n = strlen(path);
	return rt_ends_with(path, deleted) ? n - (sizeof deleted - 1) : n;
}

static const char *const signal_names[] = {
    "0",	 "SIGHUP",  "SIGINT",	 "SIGQUIT", "SIGILL",	"SIGTRAP", "SIGABRT", "SIGBUS",
    "SIGFPE",	 "SIGKILL", "SIGUSR1",	 "SIGSEGV", "SIGUSR2",	"SIGPIPE", "SIGALRM", "SIGTERM",
    "SIGSTKFLT", "SIGCHLD", "SIGCONT",	 "SIGSTOP", "SIGTSTP",	"SIGTTIN", "SIGTTOU", "SIGURG",
    "SIGXCPU",	 "SIGXFSZ", "SIGVTALRM", "SIGPROF", "SIGWINCH", "SIGIO",   "SIGPWR",  "SIGSYS"};
enum { NAMED_SIGNALS = sizeof signal_names / sizeof signal_names[0], MAX_SIGNAL = 64 };

const char *rt_signal_name(int sig, char buf[16])
{
	if (sig > 0 && sig < NAMED_SIGNALS)
		return signal_names[sig];
	rt_format(buf, 16, "SIGRT%d", sig - NAMED_SIGNALS);
	return buf;
}

int rt_signal_number(const char *name)
{
	for (int sig = 1; sig < NAMED_SIGNALS; sig++)
		if (!strcmp(name, signal_names[sig]))
			return sig;
	uint64_t n;
	char buf[16];
	if (rt_starts_with(name, "SIGRT") && rt_parse_u64(name + 5, &n) &&
	    n <= MAX_SIGNAL - NAMED_SIGNALS &&
	    !strcmp(rt_signal_name(NAMED_SIGNALS + (int)n, buf), name)) /* no "SIGRT0x1" */
		return NAMED_SIGNALS + (int)n;
	return 0;
}
