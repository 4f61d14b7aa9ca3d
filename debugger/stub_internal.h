/* The gdb stub: a helper thread of the driver (glibc allowed) that speaks the remote
 * protocol and has the stopped app thread carry out what needs the app (debug_channel.h). */
#ifndef STUB_INTERNAL_H
#define STUB_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>

#include "debug_channel.h"
#include "rsp_conn.h"

struct stub {
	struct rsp_conn conn;
	/* Hg: the thread registers and monitor commands are about (0: the one that stopped) */
	uint32_t selected;
	/* Hc: the thread the old c/s packets resume (0: the one that stopped) */
	uint32_t continued;
	bool stopped;	/* a thread holds the world: requests can be made */
	bool interrupt; /* gdb's interrupt came while stopped: it applies to the next run */
	struct dbg_stop stop;
	int seen_seq; /* dbg_channel.stop_seq of the last stop taken */
};

/* stub_request.c: one request to the stopped app thread. stub_begin clears the request
 * and sets its op; stub_call runs it and returns false when it failed. */
struct dbg_request *stub_begin(enum dbg_op op);
bool stub_call(void);

/* stub_images.c: what gdb needs to find the program and its libraries, from the app's
 * mappings and their ELF files: an auxiliary vector (AT_PHDR, AT_ENTRY, AT_BASE...), the
 * SVR4 library list, the program's path. Each returns a malloc'd document (false when the
 * app's mappings cannot be had). */
bool stub_auxv(char **out, size_t *len);
bool stub_libraries(char **out, size_t *len);
bool stub_exec_file(char **out, size_t *len);

/* stub_xfer.c: qXfer:<object>:read:<annex>:<offset>,<length>. */
void stub_xfer(struct stub *s, const char *args);

/* stub_packets.c: one packet from gdb while the app is stopped. Returns false when the app
 * goes on (a resume) or gdb left (detach, kill). */
bool stub_packet(struct stub *s, char *p, size_t n);
/* The stop reply for s->stop (T, W or X packet). */
void stub_send_stop(struct stub *s);
/* Host signal numbers to gdb's and back. */
int stub_gdb_signal(int host);
int stub_host_signal(int gdb);

#endif
