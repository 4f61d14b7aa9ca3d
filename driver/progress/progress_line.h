/* A progress line on the terminal (stderr, when it is one), redrawn a few times a second by
 * a helper thread, and kept out of the app's output: the line is erased before any write
 * of the app, and drawn only when the app has been silent for a moment and its last
 * output to stdout or stderr ended a line. */
#ifndef PROGRESS_LINE_H
#define PROGRESS_LINE_H

#include <stddef.h>

#include <stdint.h>

/* What every line shows: the instructions run so far (all threads), and their rate. */
struct progress_sample {
	uint64_t instructions;
	double mips; /* over the last period */
};

/* Fills buf with the line's text (no newline); on the helper thread (glibc allowed). */
typedef void (*progress_describe)(char *buf, size_t cap, const struct progress_sample *s);

/* "123.4M" */
const char *progress_count(uint64_t n, char *buf, size_t cap);

/* When the messages go to a terminal: registers the guard with the JIT and starts the
 * helper thread (before the app starts). Does nothing otherwise. */
void progress_line_start(progress_describe describe);

#endif
