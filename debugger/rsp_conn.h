/* The GDB remote serial protocol's framing: $payload#checksum packets, '+'/'-'
 * acknowledgements (until gdb asks for no-ack mode), the interrupt byte, and escaping of
 * binary data. Helper thread (glibc). */
#ifndef RSP_CONN_H
#define RSP_CONN_H

#include <stdbool.h>
#include <stddef.h>

enum { RSP_PACKET_MAX = 0x4000 }; /* what we tell gdb (PacketSize) and accept */

struct rsp_conn {
	int fd;
	bool no_ack;
	char in[4096]; /* bytes read ahead */
	size_t in_len, in_pos;
};

enum { RSP_CLOSED = -1, RSP_INTERRUPT = -2 };

/* Waits for the next packet: its payload (NUL-terminated) and length; RSP_INTERRUPT for
 * gdb's interrupt byte (0x03); RSP_CLOSED when gdb is gone. */
int rsp_read_packet(struct rsp_conn *c, char *payload, size_t size);

/* Sends one packet (binary bytes escaped) and, unless no-ack, waits for gdb's '+'.
 * False when gdb is gone. */
bool rsp_send(struct rsp_conn *c, const void *data, size_t len);
bool rsp_send_str(struct rsp_conn *c, const char *s);

/* Whether gdb sent something (the interrupt byte, or it closed) within timeout_ms (-1: no
 * limit); *other_ready: whether other_fd became readable meanwhile. */
bool rsp_wait(struct rsp_conn *c, int other_fd, int timeout_ms, bool *other_ready);

#endif
