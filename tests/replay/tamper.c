/* tamper IN OUT [PREFIX]: copies pinball IN to OUT through the format library, flipping the
 * first byte of the data IN's first read(2) returned (for a dynamic program: the ELF header
 * of a library, which the dynamic linker checks), or the first read whose data start with
 * PREFIX. Used to prove that the replayer notices when what it injects does not lead where
 * it led in the recording. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pinball.h"

static int die(const char *what)
{
	fprintf(stderr, "tamper: %s\n", what);
	return 1;
}

#define COPY_PART(part, type, next, add)                                                           \
	do {                                                                                       \
		struct pinball_cursor *c = pinball_cursor_open(r, part, err);                      \
		if (!c)                                                                            \
			return die(err);                                                           \
		type rec;                                                                          \
		int got;                                                                           \
		while ((got = next(c, &rec)) == 1)                                                 \
			if (add)                                                                   \
				return die(pinball_writer_error(w));                               \
		if (got < 0)                                                                       \
			return die(pinball_cursor_error(c));                                       \
		pinball_cursor_close(c);                                                           \
	} while (0)

/* Zero pages of region start are zero anyway; those of a mapping made in the region zero a
 * file's page. */
static int copy_page(struct pinball_writer *w, const struct pinball_page *p)
{
	static const uint8_t zero[4096];
	if (p->at_mmap)
		return pinball_writer_add_mmap_page(w, p->addr, p->prot, p->data ? p->data : zero,
						    p->mmap_tid, p->mmap_icount);
	return p->data ? pinball_writer_add_page(w, p->addr, p->prot, p->data) : 0;
}

int main(int argc, char **argv)
{
	if (argc != 3 && argc != 4)
		return die("usage: tamper IN OUT [PREFIX]");
	const char *prefix = argc == 4 ? argv[3] : "";
	char err[PINBALL_ERR_MAX];
	struct pinball_reader *r = pinball_reader_open(argv[1], err);
	if (!r)
		return die(err);
	struct pinball_writer *w = pinball_writer_create(argv[2], pinball_reader_header(r), err);
	if (!w)
		return die(err);
	COPY_PART("threads", struct pinball_thread, pinball_next_thread,
		  pinball_writer_add_thread(w, &rec));
	COPY_PART("memmap", struct pinball_map_entry, pinball_next_map,
		  pinball_writer_add_map(w, &rec));
	COPY_PART("pages", struct pinball_page, pinball_next_page, copy_page(w, &rec));
	COPY_PART("schedule", struct pinball_slice, pinball_next_slice,
		  pinball_writer_add_slice(w, &rec));
	COPY_PART("end", struct pinball_thread, pinball_next_thread,
		  pinball_writer_add_end(w, &rec));
	bool tampered = false;
	uint32_t tids[16];
	size_t ntids = pinball_reader_event_tids(r, tids, 16);
	for (size_t t = 0; t < ntids; t++) {
		char part[32];
		snprintf(part, sizeof part, "events.%u", tids[t]);
		struct pinball_cursor *c = pinball_cursor_open(r, part, err);
		if (!c)
			return die(err);
		struct pinball_event ev;
		int got;
		while ((got = pinball_next_event(c, &ev)) == 1) {
			uint8_t *copy = NULL;
			struct pinball_mem_write first;
			if (!tampered && ev.kind == PINBALL_EV_SYSCALL && ev.syscall.nr == 0 &&
			    ev.syscall.nwrites && ev.syscall.writes[0].len >= strlen(prefix) &&
			    !memcmp(ev.syscall.writes[0].data, prefix, strlen(prefix))) {
				first = ev.syscall.writes[0];
				copy = malloc(first.len);
				memcpy(copy, first.data, first.len);
				copy[0] ^= 0xff;
				first.data = copy;
				struct pinball_mem_write *ws =
				    malloc(ev.syscall.nwrites * sizeof *ws);
				memcpy(ws, ev.syscall.writes, ev.syscall.nwrites * sizeof *ws);
				ws[0] = first;
				ev.syscall.writes = ws;
				tampered = true;
				printf("tampered: syscall %lu at icount %lu, byte at 0x%lx\n",
				       ev.syscall.nr, ev.icount, first.addr);
			}
			if (pinball_writer_add_event(w, tids[t], &ev))
				return die(pinball_writer_error(w));
		}
		if (got < 0)
			return die(pinball_cursor_error(c));
		pinball_cursor_close(c);
	}
	if (!tampered)
		return die("no read(2) in the pinball returned data");
	if (pinball_writer_finish(w, pinball_reader_region_stop(r)))
		return die(pinball_writer_error(w));
	pinball_writer_free(w);
	pinball_reader_close(r);
	return 0;
}
