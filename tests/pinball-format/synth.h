/* A synthetic pinball with every kind of record, written and checked back field by field. */
#ifndef PINBALL_SYNTH_H
#define PINBALL_SYNTH_H

#include <stdint.h>

#include "pinball.h"

#define SYNTH_THREADS 3
#define SYNTH_DATA_PAGES 100 /* 400 KiB: the pages part spans two chunks */
#define SYNTH_ZERO_PAGES                                                                           \
	24		/* in runs of 8, 8 and 8: two of them contiguous but with other prot       \
			 */
#define SYNTH_EVENTS 50 /* per thread */
#define SYNTH_SLICES 30

/* Writes it; 0 or -1 with err. */
int synth_write(const char *base, char err[PINBALL_ERR_MAX]);
/* Reads it back through a reader and cursors; returns NULL when everything matches,
 * otherwise a static string saying what differs. */
const char *synth_check(const char *base);
/* The event number i of thread t, as synth_write gives it (pointers into static storage). */
void synth_event(uint32_t t, uint32_t i, struct pinball_event *e);
uint32_t synth_tid(uint32_t t);

/* A fresh directory under $TMPDIR (or /tmp), and its removal with everything in it. */
char *synth_tmpdir(void);
void synth_rmdir(char *dir);
/* How many entries the directory holds whose name contains `part` (NULL: all). */
int synth_count_files(const char *dir, const char *part);
#endif
