#include "rsp_conn.h"

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

/* The next byte from gdb, or -1 when the connection ended. */
static int next_byte(struct rsp_conn *c)
{
	if (c->in_pos == c->in_len) {
		ssize_t n;
		do
			n = recv(c->fd, c->in, sizeof c->in, 0);
		while (n < 0 && errno == EINTR);
		if (n <= 0)
			return -1;
		c->in_len = (size_t)n;
		c->in_pos = 0;
	}
	return (unsigned char)c->in[c->in_pos++];
}

static bool send_all(int fd, const char *p, size_t n)
{
	while (n) {
		ssize_t w = send(fd, p, n, MSG_NOSIGNAL);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return false;
		p += w;
		n -= (size_t)w;
	}
	return true;
}

static int hex_digit(int ch)
{
	if (ch >= '0' && ch <= '9')
		return ch - '0';
	if (ch >= 'a' && ch <= 'f')
		return ch - 'a' + 10;
	if (ch >= 'A' && ch <= 'F')
		return ch - 'A' + 10;
	return -1;
}

int rsp_read_packet(struct rsp_conn *c, char *payload, size_t size)
{
	for (;;) {
		int ch = next_byte(c);
		if (ch < 0)
			return RSP_CLOSED;
		if (ch == 0x03)
			return RSP_INTERRUPT;
		if (ch != '$')
			continue; /* acknowledgements and noise between packets */
		size_t n = 0;
		unsigned sum = 0;
		bool overflow = false;
		while ((ch = next_byte(c)) >= 0 && ch != '#') {
			sum += (unsigned)ch;
			if (n + 1 < size)
				payload[n++] = (char)ch;
			else
				overflow = true;
		}
		int hi = next_byte(c), lo = next_byte(c);
		if (ch < 0 || hi < 0 || lo < 0)
			return RSP_CLOSED;
		payload[n] = '\0';
		bool good = !overflow && hex_digit(hi) >= 0 && hex_digit(lo) >= 0 &&
			    (unsigned)(hex_digit(hi) * 16 + hex_digit(lo)) == (sum & 0xff);
		if (!c->no_ack && !send_all(c->fd, good ? "+" : "-", 1))
			return RSP_CLOSED;
		if (good || c->no_ack)
			return (int)n;
	}
}

bool rsp_send(struct rsp_conn *c, const void *data, size_t len)
{
	static char frame[2 * RSP_PACKET_MAX + 8];
	const unsigned char *d = data;
	size_t n = 0;
	unsigned sum = 0;
	frame[n++] = '$';
	for (size_t i = 0; i < len && n + 6 < sizeof frame; i++) {
		unsigned char ch = d[i];
		if (ch == '$' || ch == '#' || ch == '}' || ch == '*') {
			frame[n++] = '}';
			sum += '}';
			ch ^= 0x20;
		}
		frame[n++] = (char)ch;
		sum += ch;
	}
	n += (size_t)snprintf(frame + n, sizeof frame - n, "#%02x", sum & 0xff);
	for (;;) {
		if (!send_all(c->fd, frame, n))
			return false;
		if (c->no_ack)
			return true;
		int ch;
		while ((ch = next_byte(c)) >= 0 && ch != '+' && ch != '-')
			;
		if (ch == '+')
			return true;
		if (ch < 0)
			return false;
	}
}

bool rsp_send_str(struct rsp_conn *c, const char *s)
{
	return rsp_send(c, s, strlen(s));
}

bool rsp_wait(struct rsp_conn *c, int other_fd, int timeout_ms, bool *other_ready)
{
	*other_ready = false;
	if (c->in_pos < c->in_len)
		return true;
	struct pollfd p[2] = {{.fd = c->fd, .events = POLLIN}, {.fd = other_fd, .events = POLLIN}};
	if (poll(p, 2, timeout_ms) <= 0)
		return false;
	*other_ready = p[1].revents != 0;
	return p[0].revents != 0;
}
