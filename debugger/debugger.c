/* Starting the stub, and its helper thread's loop: wait for gdb, then alternate between
 * serving gdb's packets while a thread holds the world stopped and watching, while the app
 * runs, for the next stop (the eventfd) and for gdb's interrupt byte or departure. */
#include "debugger.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include "jit_messages.h"
#include "port_file.h"
#include "rsp_registers.h"
#include "rt_syscall.h"
#include "stub_internal.h"

/* The stub's descriptors sit high, out of the way of the app's dup2 targets. */
enum { STUB_FD_FLOOR = 600, INTERRUPT_REPEAT_MS = 2 };

static struct stub stub;
static int listen_fd = -1;
static struct rt_port_file port_file;

static void remove_port_file(void)
{
	rt_port_file_remove(&port_file);
}

static int high_fd(int fd)
{
	int moved = fcntl(fd, F_DUPFD_CLOEXEC, STUB_FD_FLOOR);
	if (moved >= 0) {
		close(fd);
		return moved;
	}
	return fd;
}

/* Takes a stop or the end the app published, if there is a new one. Returns false when the
 * process is ending (gdb was told). */
static bool take_event(struct stub *s, bool *got)
{
	uint64_t count;
	while (read(dbg_channel.event_fd, &count, sizeof count) > 0)
		;
	int seq = __atomic_load_n(&dbg_channel.stop_seq, __ATOMIC_ACQUIRE);
	*got = seq != s->seen_seq;
	if (!*got)
		return true;
	s->seen_seq = seq;
	s->stop = dbg_channel.stop;
	bool ends = s->stop.kind == DBG_STOP_EXITED || s->stop.kind == DBG_STOP_KILLED;
	if (ends)
		stub_send_stop(s);
	else
		s->stopped = true;
	__atomic_store_n(&dbg_channel.stop_sent, seq, __ATOMIC_RELEASE);
	rt_futex_wake(&dbg_channel.stop_sent, INT_MAX);
	return !ends;
}

/* The program's first thread stops before its first instruction, maybe before gdb came. */
static void wait_first_stop(struct stub *s)
{
	struct pollfd p = {.fd = dbg_channel.event_fd, .events = POLLIN};
	bool got = false;
	while (!got && poll(&p, 1, -1) >= 0)
		take_event(s, &got);
}

/* While the app runs: the next stop, gdb's interrupt, or gdb gone (then the app is
 * stopped once more, to be let go without the debugger). Returns false when the process
 * ended, or when gdb left and the app was let go. */
static bool run(struct stub *s)
{
	bool interrupting = s->interrupt, gone = false;
	s->interrupt = false;
	for (;;) {
		bool event = false;
		bool from_gdb = !gone && rsp_wait(&s->conn, dbg_channel.event_fd,
						  interrupting ? INTERRUPT_REPEAT_MS : -1, &event);
		bool got;
		if (!take_event(s, &got))
			return false;
		if (got && gone) {
			stub_begin(DBG_OP_DETACH);
			s->stopped = false;
			stub_call();
			return false;
		}
		if (got) {
			stub_send_stop(s);
			return true;
		}
		if (from_gdb) {
			char packet[64];
			gone = rsp_read_packet(&s->conn, packet, sizeof packet) == RSP_CLOSED;
			interrupting = true; /* gdb's interrupt, or gdb left: stop, then detach */
		}
		if (interrupting)
			debug_stop_interrupt();
	}
}

static void *stub_main(void *arg)
{
	struct stub *s = arg;
	int fd = accept4(listen_fd, NULL, NULL, SOCK_CLOEXEC);
	close(listen_fd);
	if (fd < 0)
		return NULL;
	int one = 1;
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
	s->conn.fd = high_fd(fd);
	__atomic_store_n(&dbg_channel.attached, true, __ATOMIC_RELEASE);
	wait_first_stop(s);
	static char packet[RSP_PACKET_MAX + 1];
	while (s->stopped || run(s)) {
		int n = rsp_read_packet(&s->conn, packet, sizeof packet);
		if (n == RSP_INTERRUPT) { /* gdb handled a stop of its own meanwhile */
			s->interrupt = true;
			continue;
		}
		if (n == RSP_CLOSED) { /* gdb died: the app goes on without it */
			stub_begin(DBG_OP_DETACH);
			s->stopped = false;
			stub_call();
			break;
		}
		if (!stub_packet(s, packet, (size_t)n) && !dbg_channel.connected)
			break; /* detached */
	}
	__atomic_store_n(&dbg_channel.attached, false, __ATOMIC_RELEASE);
	close(s->conn.fd);
	return NULL;
}

/* The listening socket on 127.0.0.1 (port 0: one the kernel chooses); *port: its port. */
static int listen_on(uint64_t want, unsigned *port, char *err, size_t errlen)
{
	int sock = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	struct sockaddr_in addr = {.sin_family = AF_INET,
				   .sin_port = htons((uint16_t)want),
				   .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	socklen_t len = sizeof addr;
	if (sock < 0 || bind(sock, (struct sockaddr *)&addr, sizeof addr) || listen(sock, 1) ||
	    getsockname(sock, (struct sockaddr *)&addr, &len)) {
		snprintf(err, errlen, "gdb stub: cannot listen on 127.0.0.1:%lu: %s",
			 (unsigned long)want, strerror(errno));
		if (sock >= 0)
			close(sock);
		return -1;
	}
	*port = ntohs(addr.sin_port);
	return high_fd(sock);
}

static int start_helper(char *err, size_t errlen)
{
	sigset_t all, old;
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old); /* the helper inherits: no signal for it */
	pthread_t thread;
	int rc = pthread_create(&thread, NULL, stub_main, &stub);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (rc) {
		snprintf(err, errlen, "gdb stub: cannot start its thread: %s", strerror(rc));
		return -1;
	}
	pthread_detach(thread);
	return 0;
}

int debugger_start(const struct debugger_knobs *k, const char *tool,
		   const struct debug_hooks *hooks, char *err, size_t errlen)
{
	if (!k->on)
		return 0;
	unsigned port;
	listen_fd = listen_on(k->port, &port, err, errlen);
	if (listen_fd < 0)
		return -1;
	dbg_channel.event_fd = high_fd(eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK));
	if (dbg_channel.event_fd < 0) {
		snprintf(err, errlen, "gdb stub: cannot create an eventfd: %s", strerror(errno));
		return -1;
	}
	if (k->file) {
		if (port_file_create(&port_file, k->file, port, "gdb stub", err, errlen))
			return -1;
		atexit(remove_port_file);
		jit_on_fatal(remove_port_file);
	}
	if (debug_stop_register(hooks, remove_port_file)) {
		snprintf(err, errlen, "gdb stub: no per-thread counter left");
		return -1;
	}
	rsp_registers_init();
	dbg_channel.connected = true;
	if (start_helper(err, errlen))
		return -1;
	fprintf(stderr, "%s: gdb stub listening on 127.0.0.1:%u%s%s (target remote :%u)\n", tool,
		port, k->file ? ", port in " : "", k->file ? port_file.path : "", port);
	return 0;
}
