/* qXfer:<object>:read:<annex>:<offset>,<length>: gdb reads a document in pieces; each
 * answer is 'm' (more follows) or 'l' (the last piece) and the bytes. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rsp_registers.h"
#include "stub_internal.h"

/* <threads>: gdb's `info threads`, with the names the kernel knows (prctl, pthread_setname_np). */
static bool threads_doc(char **out, size_t *len)
{
	struct dbg_request *r = stub_begin(DBG_OP_THREADS);
	if (!stub_call())
		return false;
	size_t count = r->out_len / sizeof(struct dbg_thread_info);
	size_t cap = 64 + count * 96, n = 0;
	char *doc = malloc(cap);
	if (!doc)
		return false;
	n += (size_t)snprintf(doc, cap, "<threads>");
	for (size_t i = 0; i < count; i++) {
		struct dbg_thread_info t;
		memcpy(&t, r->buf + i * sizeof t, sizeof t);
		char path[64], name[32] = "";
		snprintf(path, sizeof path, "/proc/self/task/%d/comm", t.os_tid);
		FILE *f = fopen(path, "re");
		if (f && fgets(name, sizeof name, f))
			name[strcspn(name, "\n<>&\"")] = '\0';
		if (f)
			fclose(f);
		n += (size_t)snprintf(doc + n, cap - n, "<thread id=\"%" PRIx32 "\" name=\"%s\"/>",
				      t.id, name);
	}
	n += (size_t)snprintf(doc + n, cap - n, "</threads>");
	*out = doc;
	*len = n;
	return true;
}

static bool document(const char *object, const char *annex, char **out, size_t *len)
{
	if (!strcmp(object, "features")) {
		if (strcmp(annex, "target.xml"))
			return false;
		*out = strdup(rsp_target_xml());
		*len = strlen(rsp_target_xml());
		return *out != NULL;
	}
	if (!strcmp(object, "auxv"))
		return stub_auxv(out, len);
	if (!strcmp(object, "exec-file"))
		return stub_exec_file(out, len);
	if (!strcmp(object, "libraries-svr4"))
		return stub_libraries(out, len);
	if (!strcmp(object, "threads"))
		return threads_doc(out, len);
	return false;
}

void stub_xfer(struct stub *s, const char *args)
{
	char object[32], annex[256] = "";
	unsigned long offset, length;
	const char *read = strstr(args, ":read:");
	size_t olen = read ? (size_t)(read - args) : 0;
	const char *rest = read ? read + 6 : NULL;
	const char *colon = rest ? strrchr(rest, ':') : NULL;
	if (!read || olen >= sizeof object || !colon || (size_t)(colon - rest) >= sizeof annex ||
	    sscanf(colon + 1, "%lx,%lx", &offset, &length) != 2) {
		rsp_send_str(&s->conn, "");
		return;
	}
	memcpy(object, args, olen);
	object[olen] = '\0';
	memcpy(annex, rest, (size_t)(colon - rest));
	annex[colon - rest] = '\0';
	char *doc;
	size_t len;
	if (!document(object, annex, &doc, &len)) {
		rsp_send_str(&s->conn, "E00");
		return;
	}
	if (length > RSP_PACKET_MAX / 2)
		length = RSP_PACKET_MAX / 2;
	size_t from = offset < len ? offset : len;
	size_t take = len - from < length ? len - from : length;
	char *reply = malloc(take + 1);
	if (reply) {
		reply[0] = from + take < len ? 'm' : 'l';
		memcpy(reply + 1, doc + from, take);
		rsp_send(&s->conn, reply, take + 1);
	}
	free(reply);
	free(doc);
}
