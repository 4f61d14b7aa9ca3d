/* The packets gdb sends while the app is stopped (and the stop replies). */
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rsp_registers.h"
#include "stub_internal.h"

/* gdb numbers signals its own way (its enum gdb_signal): the host's, by name. */
static const struct {
	int host, gdb;
} signal_map[] = {
    {SIGHUP, 1},     {SIGINT, 2},   {SIGQUIT, 3},   {SIGILL, 4},   {SIGTRAP, 5},  {SIGABRT, 6},
    {SIGFPE, 8},     {SIGKILL, 9},  {SIGBUS, 10},   {SIGSEGV, 11}, {SIGSYS, 12},  {SIGPIPE, 13},
    {SIGALRM, 14},   {SIGTERM, 15}, {SIGURG, 16},   {SIGSTOP, 17}, {SIGTSTP, 18}, {SIGCONT, 19},
    {SIGCHLD, 20},   {SIGTTIN, 21}, {SIGTTOU, 22},  {SIGIO, 23},   {SIGXCPU, 24}, {SIGXFSZ, 25},
    {SIGVTALRM, 26}, {SIGPROF, 27}, {SIGWINCH, 28}, {SIGUSR1, 30}, {SIGUSR2, 31}, {SIGPWR, 32},
};

int stub_gdb_signal(int host)
{
	for (size_t i = 0; i < sizeof signal_map / sizeof signal_map[0]; i++)
		if (signal_map[i].host == host)
			return signal_map[i].gdb;
	return 143; /* GDB_SIGNAL_UNKNOWN */
}

int stub_host_signal(int gdb)
{
	for (size_t i = 0; i < sizeof signal_map / sizeof signal_map[0]; i++)
		if (signal_map[i].gdb == gdb)
			return signal_map[i].host;
	return 0;
}

void stub_send_stop(struct stub *s)
{
	const struct dbg_stop *st = &s->stop;
	char reply[128];
	if (st->kind == DBG_STOP_EXITED) {
		snprintf(reply, sizeof reply, "W%02x", st->status & 0xff);
	} else if (st->kind == DBG_STOP_KILLED) {
		snprintf(reply, sizeof reply, "X%02x", stub_gdb_signal(st->signal));
	} else {
		static const char *const reasons[] = {[DBG_STOP_SWBREAK] = "swbreak",
						      [DBG_STOP_WATCH] = "watch",
						      [DBG_STOP_RWATCH] = "rwatch",
						      [DBG_STOP_AWATCH] = "awatch"};
		int n = snprintf(reply, sizeof reply, "T%02xthread:%" PRIx32 ";",
				 stub_gdb_signal(st->signal), st->thread);
		if (st->kind == DBG_STOP_SWBREAK)
			n += snprintf(reply + n, sizeof reply - (size_t)n, "swbreak:;");
		else if (st->kind != DBG_STOP_SIGNAL)
			n += snprintf(reply + n, sizeof reply - (size_t)n, "%s:%" PRIx64 ";",
				      reasons[st->kind], st->watch_addr);
		if (st->libraries_changed)
			snprintf(reply + n, sizeof reply - (size_t)n, "library:;");
	}
	rsp_send_str(&s->conn, reply);
}

static uint32_t regs_thread(const struct stub *s)
{
	return s->selected ? s->selected : s->stop.thread;
}

static bool fetch_regs(uint32_t thread, struct reg_image *im)
{
	struct dbg_request *r = stub_begin(DBG_OP_GET_REGS);
	r->thread = thread;
	if (!stub_call() || r->out_len < sizeof im->regs ||
	    r->out_len - sizeof im->regs > sizeof im->xsave)
		return false;
	memcpy(&im->regs, r->buf, sizeof im->regs);
	im->xsave_len = r->out_len - sizeof im->regs;
	memcpy(im->xsave, r->buf + sizeof im->regs, im->xsave_len);
	return true;
}

static bool store_regs(uint32_t thread, const struct reg_image *im)
{
	struct dbg_request *r = stub_begin(DBG_OP_SET_REGS);
	r->thread = thread;
	r->len = sizeof im->regs + im->xsave_len;
	memcpy(r->buf, &im->regs, sizeof im->regs);
	memcpy(r->buf + sizeof im->regs, im->xsave, im->xsave_len);
	return stub_call();
}

static void read_registers(struct stub *s)
{
	static struct reg_image im;
	static char hex[4096];
	hex[0] = '\0';
	if (!fetch_regs(regs_thread(s), &im)) {
		rsp_send_str(&s->conn, "E01");
		return;
	}
	for (size_t i = 0; i < rsp_register_count(); i++)
		rsp_register_hex(&im, i, hex, sizeof hex);
	rsp_send_str(&s->conn, hex);
}

/* G (all registers) or P<n>=<value> (one). */
static void write_registers(struct stub *s, const char *p, bool all)
{
	static struct reg_image im;
	bool ok = fetch_regs(regs_thread(s), &im);
	size_t used;
	if (all) {
		for (size_t i = 0; ok && i < rsp_register_count() && *p; i++, p += used)
			ok = rsp_register_parse(&im, i, p, &used);
	} else {
		char *eq;
		unsigned long n = strtoul(p, &eq, 16);
		ok = ok && *eq == '=' && rsp_register_parse(&im, n, eq + 1, &used);
	}
	rsp_send_str(&s->conn, ok && store_regs(regs_thread(s), &im) ? "OK" : "E01");
}

static void read_register(struct stub *s, const char *p)
{
	static struct reg_image im;
	char hex[64] = "";
	unsigned long n = strtoul(p, NULL, 16);
	if (!fetch_regs(regs_thread(s), &im) || !rsp_register_hex(&im, n, hex, sizeof hex))
		rsp_send_str(&s->conn, "E01");
	else
		rsp_send_str(&s->conn, hex);
}

static void read_memory(struct stub *s, const char *p)
{
	uint64_t addr, len;
	if (sscanf(p, "%" SCNx64 ",%" SCNx64, &addr, &len) != 2) {
		rsp_send_str(&s->conn, "E01");
		return;
	}
	struct dbg_request *r = stub_begin(DBG_OP_READ);
	r->addr = addr;
	r->len = len < RSP_PACKET_MAX / 2 - 8 ? len : RSP_PACKET_MAX / 2 - 8;
	if (!stub_call() || (len && !r->out_len)) {
		rsp_send_str(&s->conn, "E14"); /* EFAULT */
		return;
	}
	static char hex[RSP_PACKET_MAX];
	for (size_t i = 0; i < r->out_len; i++)
		snprintf(hex + 2 * i, 3, "%02x", r->buf[i]);
	hex[2 * r->out_len] = '\0';
	rsp_send_str(&s->conn, hex);
}

static void write_memory(struct stub *s, const char *p)
{
	uint64_t addr, len;
	int at = 0;
	struct dbg_request *r = stub_begin(DBG_OP_WRITE);
	if (sscanf(p, "%" SCNx64 ",%" SCNx64 ":%n", &addr, &len, &at) != 2 || !at ||
	    len > sizeof r->buf || strlen(p + at) < 2 * len) {
		rsp_send_str(&s->conn, "E01");
		return;
	}
	for (uint64_t i = 0; i < len; i++) {
		unsigned byte;
		sscanf(p + at + 2 * i, "%2x", &byte);
		r->buf[i] = (uint8_t)byte;
	}
	r->addr = addr;
	r->len = len;
	rsp_send_str(&s->conn, stub_call() ? "OK" : "E14");
}

/* Z/z<type>,<addr>,<kind>: breakpoints (0 software, 1 hardware: both in the JIT) and
 * watchpoints (2 write, 3 read, 4 access; kind is the length). */
static void breakpoint(struct stub *s, const char *p, bool insert)
{
	unsigned type;
	uint64_t addr, kind;
	if (sscanf(p, "%u,%" SCNx64 ",%" SCNx64, &type, &addr, &kind) != 3 || type > 4) {
		rsp_send_str(&s->conn, "");
		return;
	}
	static const enum dbg_stop_kind watch[] = {
	    [2] = DBG_STOP_WATCH, [3] = DBG_STOP_RWATCH, [4] = DBG_STOP_AWATCH};
	struct dbg_request *r = stub_begin(type <= 1 ? DBG_OP_BREAK : DBG_OP_WATCH);
	r->addr = addr;
	r->len = kind;
	r->kind = type <= 1 ? 0 : (int)watch[type];
	r->insert = insert;
	rsp_send_str(&s->conn, stub_call() ? "OK" : "E01");
}

/* A thread id of a packet: hex, -1 for all (0 in our requests: "every other"). */
static uint32_t thread_id(const char *p)
{
	return p[0] == '-' ? 0 : (uint32_t)strtoul(p, NULL, 16);
}

/* The request that lets the world go (resume, detach): no more requests until a stop. */
static void let_go(struct stub *s)
{
	s->stopped = false;
	stub_call();
}

/* vCont;<action>[:<thread>];...: s/S step, c/C continue (S and C with a signal). Threads
 * no action names stay stopped. */
static bool vcont(struct stub *s, char *p)
{
	struct dbg_request *r = stub_begin(DBG_OP_RESUME);
	for (char *tok = strtok(p, ";"); tok && r->nactions < DBG_MAX_ACTIONS;
	     tok = strtok(NULL, ";")) {
		struct dbg_resume_action *a = &r->actions[r->nactions];
		char kind = tok[0];
		if (kind != 'c' && kind != 'C' && kind != 's' && kind != 'S') {
			rsp_send_str(&s->conn, "E01");
			return true;
		}
		a->action = kind == 's' || kind == 'S' ? DBG_STEP : DBG_CONTINUE;
		a->signal = kind == 'C' || kind == 'S'
				? stub_host_signal((int)strtol(tok + 1, NULL, 16))
				: 0;
		char *colon = strchr(tok, ':');
		a->thread = colon ? thread_id(colon + 1) : 0;
		r->nactions++;
	}
	let_go(s);
	return false;
}

/* The old c/s/C/S packets: the Hc thread (or the one that stopped) continues or steps;
 * the others continue. */
static bool old_resume(struct stub *s, char kind, const char *p)
{
	struct dbg_request *r = stub_begin(DBG_OP_RESUME);
	int signal = kind == 'C' || kind == 'S' ? stub_host_signal((int)strtol(p, NULL, 16)) : 0;
	bool step = kind == 's' || kind == 'S';
	r->actions[0] = (struct dbg_resume_action){s->continued ? s->continued : s->stop.thread,
						   step ? DBG_STEP : DBG_CONTINUE, signal};
	r->actions[1] = (struct dbg_resume_action){0, DBG_CONTINUE, 0};
	r->nactions = 2;
	let_go(s);
	return false;
}

static void monitor(struct stub *s, const char *hex)
{
	struct dbg_request *r = stub_begin(DBG_OP_MONITOR);
	size_t n = 0;
	for (; hex[0] && hex[1] && n + 1 < sizeof r->text; hex += 2) {
		unsigned byte;
		sscanf(hex, "%2x", &byte);
		r->text[n++] = (char)byte;
	}
	r->text[n] = '\0';
	r->thread = s->selected;
	stub_call();
	/* The answer goes to gdb's console as O packets of hex text. */
	static char out[RSP_PACKET_MAX];
	const char *text = r->text;
	size_t len = strlen(text);
	for (size_t from = 0; from < len;) {
		size_t take =
		    len - from < RSP_PACKET_MAX / 2 - 2 ? len - from : RSP_PACKET_MAX / 2 - 2;
		out[0] = 'O';
		for (size_t i = 0; i < take; i++)
			snprintf(out + 1 + 2 * i, 3, "%02x", (unsigned char)text[from + i]);
		rsp_send(&s->conn, out, 1 + 2 * take);
		from += take;
	}
	rsp_send_str(&s->conn, "OK");
}

static void thread_list(struct stub *s)
{
	struct dbg_request *r = stub_begin(DBG_OP_THREADS);
	if (!stub_call()) {
		rsp_send_str(&s->conn, "E01");
		return;
	}
	static char reply[DBG_MAX_THREADS * 10 + 2];
	size_t n = 0;
	for (size_t i = 0; i * sizeof(struct dbg_thread_info) < r->out_len; i++) {
		struct dbg_thread_info t;
		memcpy(&t, r->buf + i * sizeof t, sizeof t);
		n += (size_t)snprintf(reply + n, sizeof reply - n, "%c%" PRIx32, i ? ',' : 'm',
				      t.id);
	}
	rsp_send_str(&s->conn, n ? reply : "l");
}

static bool thread_alive(const char *p)
{
	uint32_t id = thread_id(p);
	struct dbg_request *r = stub_begin(DBG_OP_THREADS);
	stub_call();
	for (size_t i = 0; i * sizeof(struct dbg_thread_info) < r->out_len; i++) {
		struct dbg_thread_info t;
		memcpy(&t, r->buf + i * sizeof t, sizeof t);
		if (t.id == id)
			return true;
	}
	return false;
}

static void query(struct stub *s, char *p)
{
	char reply[64];
	if (!strncmp(p, "qSupported", 10)) {
		snprintf(reply, sizeof reply, "PacketSize=%x;", RSP_PACKET_MAX);
		char full[512];
		snprintf(full, sizeof full,
			 "%sQStartNoAckMode+;qXfer:features:read+;qXfer:auxv:read+;"
			 "qXfer:exec-file:read+;qXfer:libraries-svr4:read+;qXfer:threads:read+;"
			 "swbreak+;hwbreak+;vContSupported+",
			 reply);
		rsp_send_str(&s->conn, full);
	} else if (!strncmp(p, "qXfer:", 6)) {
		stub_xfer(s, p + 6);
	} else if (!strcmp(p, "qAttached")) {
		rsp_send_str(&s->conn, "1"); /* gdb leaves the app running when it quits */
	} else if (!strcmp(p, "qC")) {
		snprintf(reply, sizeof reply, "QC%" PRIx32, s->stop.thread);
		rsp_send_str(&s->conn, reply);
	} else if (!strcmp(p, "qfThreadInfo")) {
		thread_list(s);
	} else if (!strcmp(p, "qsThreadInfo")) {
		rsp_send_str(&s->conn, "l");
	} else if (!strncmp(p, "qRcmd,", 6)) {
		monitor(s, p + 6);
	} else if (!strncmp(p, "qSymbol", 7)) {
		rsp_send_str(&s->conn, "OK");
	} else {
		rsp_send_str(&s->conn, "");
	}
}

static bool verb(struct stub *s, char *p)
{
	if (!strcmp(p, "vCont?")) {
		rsp_send_str(&s->conn, "vCont;c;C;s;S");
	} else if (!strncmp(p, "vCont;", 6)) {
		return vcont(s, p + 6);
	} else if (!strncmp(p, "vKill", 5)) {
		rsp_send_str(&s->conn, "OK");
		stub_begin(DBG_OP_KILL);
		stub_call(); /* does not come back: the process ends */
	} else {
		rsp_send_str(&s->conn, ""); /* vFile, vRun...: gdb reads files itself */
	}
	return true;
}

bool stub_packet(struct stub *s, char *p, size_t n)
{
	(void)n;
	switch (p[0]) {
	case '?':
		stub_send_stop(s);
		return true;
	case 'q':
		query(s, p);
		return true;
	case 'Q':
		if (!strcmp(p, "QStartNoAckMode")) {
			rsp_send_str(&s->conn, "OK");
			s->conn.no_ack = true;
		} else {
			rsp_send_str(&s->conn, "");
		}
		return true;
	case 'H':
		if (p[1] == 'g')
			s->selected = thread_id(p + 2);
		else if (p[1] == 'c')
			s->continued = thread_id(p + 2);
		rsp_send_str(&s->conn, "OK");
		return true;
	case 'g':
		read_registers(s);
		return true;
	case 'G':
		write_registers(s, p + 1, true);
		return true;
	case 'p':
		read_register(s, p + 1);
		return true;
	case 'P':
		write_registers(s, p + 1, false);
		return true;
	case 'm':
		read_memory(s, p + 1);
		return true;
	case 'M':
		write_memory(s, p + 1);
		return true;
	case 'Z':
	case 'z':
		breakpoint(s, p + 1, p[0] == 'Z');
		return true;
	case 'T':
		rsp_send_str(&s->conn, thread_alive(p + 1) ? "OK" : "E01");
		return true;
	case 'v':
		return verb(s, p);
	case 'c':
	case 's':
	case 'C':
	case 'S':
		return old_resume(s, p[0], p + 1);
	case 'D':
		rsp_send_str(&s->conn, "OK");
		stub_begin(DBG_OP_DETACH);
		let_go(s);
		return false;
	case 'k':
		stub_begin(DBG_OP_KILL);
		stub_call();
		return false;
	default:
		rsp_send_str(&s->conn, "");
		return true;
	}
}
