#include "rt_format.h"

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "rt_syscall.h"

/* Output goes through a sink: either a caller's buffer (truncating) or a small stack
 * buffer that is flushed to a file descriptor whenever it fills. */
struct sink {
	char *buf;
	size_t cap;
	size_t used;  /* bytes currently in buf */
	size_t total; /* bytes produced so far, including flushed or truncated ones */
	int fd;	      /* -1 for buffer mode */
	long error;   /* first write error in fd mode */
};

static void sink_flush(struct sink *s)
{
	if (s->fd >= 0 && s->used > 0 && s->error == 0) {
		long r = rt_write_all(s->fd, s->buf, s->used);
		if (r < 0)
			s->error = r;
	}
	s->used = 0;
}

static void sink_put(struct sink *s, char c)
{
	s->total++;
	if (s->fd >= 0) {
		if (s->used == s->cap)
			sink_flush(s);
		s->buf[s->used++] = c;
	} else if (s->used + 1 < s->cap) {
		s->buf[s->used++] = c;
	}
}

static void sink_repeat(struct sink *s, char c, int n)
{
	for (int i = 0; i < n; i++)
		sink_put(s, c);
}

struct spec {
	bool left;
	bool zero;
	int width;
	int precision; /* -1: none */
};

static void put_padded(struct sink *s, const struct spec *sp, const char *text, int len)
{
	int pad = sp->width > len ? sp->width - len : 0;
	if (!sp->left)
		sink_repeat(s, ' ', pad);
	for (int i = 0; i < len; i++)
		sink_put(s, text[i]);
	if (sp->left)
		sink_repeat(s, ' ', pad);
}

/* Writes digits of v in base, with an optional sign or prefix, honouring width and '0'. */
static void put_number(struct sink *s, const struct spec *sp, uint64_t v, unsigned base, bool upper,
		       const char *prefix)
{
	const char *digits = upper ? "0123456789ABCDEF" : "0123456789abcdef";
	char tmp[24];
	int n = 0;
	do {
		tmp[n++] = digits[v % base];
		v /= base;
	} while (v);

	int prefix_len = (int)strlen(prefix);
	int body = n + prefix_len;
	int pad = sp->width > body ? sp->width - body : 0;
	if (!sp->left && !sp->zero)
		sink_repeat(s, ' ', pad);
	for (int i = 0; i < prefix_len; i++)
		sink_put(s, prefix[i]);
	if (!sp->left && sp->zero)
		sink_repeat(s, '0', pad);
	while (n > 0)
		sink_put(s, tmp[--n]);
	if (sp->left)
		sink_repeat(s, ' ', pad);
}

enum length { LEN_INT, LEN_SHORT, LEN_LONG, LEN_LONGLONG, LEN_SIZE };

static uint64_t take_unsigned(va_list *ap, enum length len)
{
	switch (len) {
	case LEN_SHORT:
		return (unsigned short)va_arg(*ap, unsigned int);
	case LEN_LONG:
		return va_arg(*ap, unsigned long);
	case LEN_LONGLONG:
		return va_arg(*ap, unsigned long long);
	case LEN_SIZE:
		return va_arg(*ap, size_t);
	default:
		return va_arg(*ap, unsigned int);
	}
}

static int64_t take_signed(va_list *ap, enum length len)
{
	switch (len) {
	case LEN_SHORT:
		return (short)va_arg(*ap, int);
	case LEN_LONG:
		return va_arg(*ap, long);
	case LEN_LONGLONG:
		return va_arg(*ap, long long);
	case LEN_SIZE:
		return va_arg(*ap, long); /* ssize_t */
	default:
		return va_arg(*ap, int);
	}
}

static const char *parse_int(const char *p, int *out, va_list *ap)
{
	if (*p == '*') {
		*out = va_arg(*ap, int);
		return p + 1;
	}
	int v = 0;
	while (*p >= '0' && *p <= '9' && v < 100000)
		v = v * 10 + (*p++ - '0');
	*out = v;
	return p;
}

/* Parses one conversion after '%' and emits it. Returns the position after it, or NULL
 * when the conversion is unknown (the caller then copies it literally). */
static const char *format_one(struct sink *s, const char *p, va_list *ap)
{
	struct spec sp = {.precision = -1};
	for (;; p++) {
		if (*p == '-')
			sp.left = true;
		else if (*p == '0')
			sp.zero = true;
		else
			break;
	}
	p = parse_int(p, &sp.width, ap);
	if (sp.width < 0) {
		sp.left = true;
		sp.width = -sp.width;
	}
	if (*p == '.')
		p = parse_int(p + 1, &sp.precision, ap);

	enum length len = LEN_INT;
	if (p[0] == 'l' && p[1] == 'l') {
		len = LEN_LONGLONG;
		p += 2;
	} else if (*p == 'l') {
		len = LEN_LONG;
		p++;
	} else if (*p == 'z') {
		len = LEN_SIZE;
		p++;
	} else if (*p == 'h') {
		len = LEN_SHORT;
		p++;
	}

	switch (*p) {
	case 'd':
	case 'i': {
		int64_t v = take_signed(ap, len);
		uint64_t mag = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
		put_number(s, &sp, mag, 10, false, v < 0 ? "-" : "");
		break;
	}
	case 'u':
		put_number(s, &sp, take_unsigned(ap, len), 10, false, "");
		break;
	case 'x':
	case 'X':
		put_number(s, &sp, take_unsigned(ap, len), 16, *p == 'X', "");
		break;
	case 'p':
		put_number(s, &sp, (uintptr_t)va_arg(*ap, void *), 16, false, "0x");
		break;
	case 'c': {
		char c = (char)va_arg(*ap, int);
		put_padded(s, &sp, &c, 1);
		break;
	}
	case 's': {
		const char *str = va_arg(*ap, const char *);
		if (!str)
			str = "(null)";
		size_t n = sp.precision >= 0 ? strnlen(str, (size_t)sp.precision) : strlen(str);
		put_padded(s, &sp, str, (int)n);
		break;
	}
	case '%':
		sink_put(s, '%');
		break;
	default:
		return NULL;
	}
	return p + 1;
}

static void format_into(struct sink *s, const char *fmt, va_list ap)
{
	va_list args;
	va_copy(args, ap);
	const char *p = fmt;
	while (*p) {
		if (*p != '%') {
			sink_put(s, *p++);
			continue;
		}
		const char *next = format_one(s, p + 1, &args);
		if (next) {
			p = next;
		} else {
			sink_put(s, *p++); /* unknown conversion: copy the '%' and go on */
		}
	}
	va_end(args);
}

size_t rt_vformat(char *buf, size_t cap, const char *fmt, va_list ap)
{
	struct sink s = {.buf = buf, .cap = cap, .fd = -1};
	format_into(&s, fmt, ap);
	if (cap > 0)
		buf[s.used] = '\0';
	return s.total;
}

size_t rt_format(char *buf, size_t cap, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	size_t n = rt_vformat(buf, cap, fmt, ap);
	va_end(ap);
	return n;
}

long rt_vdprintf(int fd, const char *fmt, va_list ap)
{
	char local[512];
	struct sink s = {.buf = local, .cap = sizeof(local), .fd = fd};
	format_into(&s, fmt, ap);
	sink_flush(&s);
	return s.error ? s.error : (long)s.total;
}

long rt_dprintf(int fd, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	long n = rt_vdprintf(fd, fmt, ap);
	va_end(ap);
	return n;
}
