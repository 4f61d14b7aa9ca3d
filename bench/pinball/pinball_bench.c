/* pinball_bench [-m MIB] [-d DIR]: writes MIB MiB of pages into a pinball in DIR and reads
 * them back, for two kinds of content: compressible program-like data (page_pattern.h) and
 * incompressible random bytes. Prints MB/s (10^6 bytes of page data per second). The
 * writer's time includes finish (fsync of every part and the renames). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "page_pattern.h"
#include "pinball.h"

#define PAGE 4096u
#define POOL_PAGES 16384u /* 64 MiB of distinct pages, generated before timing */

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void die(const char *msg)
{
	fprintf(stderr, "pinball_bench: error: %s\n", msg);
	exit(1);
}

static void fill_pool(uint8_t *pool, int random)
{
	uint64_t x = 88172645463325252u;
	for (uint32_t i = 0; i < POOL_PAGES; i++) {
		uint8_t *page = pool + (size_t)i * PAGE;
		if (!random) {
			page_pattern(page, PAGE, i);
			continue;
		}
		for (size_t k = 0; k < PAGE; k += 8) {
			x ^= x << 13;
			x ^= x >> 7;
			x ^= x << 17;
			memcpy(page + k, &x, 8);
		}
	}
}

static void run(const char *dir, uint64_t pages, int random)
{
	static uint8_t *pool;
	if (!pool && !(pool = malloc((size_t)POOL_PAGES * PAGE)))
		die("out of memory");
	fill_pool(pool, random);
	char base[1024], err[PINBALL_ERR_MAX];
	snprintf(base, sizeof base, "%s/bench-%d", dir, (int)getpid());
	struct pinball_header h = {.tool_version = "bench", .page_size = PAGE};

	double t0 = now();
	struct pinball_writer *w = pinball_writer_create(base, &h, err);
	if (!w)
		die(err);
	for (uint64_t i = 0; i < pages; i++)
		if (pinball_writer_add_page(w, 0x100000000u + i * PAGE, 3,
					    pool + (size_t)(i % POOL_PAGES) * PAGE) < 0)
			die(pinball_writer_error(w));
	if (pinball_writer_finish(w, NULL) < 0)
		die(pinball_writer_error(w));
	pinball_writer_free(w);
	double t1 = now();

	struct pinball_reader *r = pinball_reader_open(base, err);
	if (!r)
		die(err);
	struct pinball_cursor *c = pinball_cursor_open(r, "pages", err);
	if (!c)
		die(err);
	struct pinball_page p;
	uint64_t n = 0, sum = 0;
	int got;
	while ((got = pinball_next_page(c, &p)) == 1) {
		sum += p.data[n % PAGE]; /* touch the data */
		n++;
	}
	if (got < 0)
		die(pinball_cursor_error(c));
	double t2 = now();
	const struct pinball_part_info *pi = pinball_reader_part(r, 2);
	double mb = (double)pages * PAGE / 1e6;
	if (n != pages || sum == UINT64_MAX) /* sum: keep the reads */
		die("read back fewer pages than written");
	printf("%-14s %7.0f MB  write %7.0f MB/s  read %7.0f MB/s  stored %7.1f MB (ratio %5.2f)\n",
	       random ? "random pages" : "program-like", mb, mb / (t1 - t0), mb / (t2 - t1),
	       (double)pi->file_bytes / 1e6, (double)pi->raw_bytes / (double)pi->stored_bytes);
	pinball_cursor_close(c);
	for (size_t i = 0; i < pinball_reader_part_count(r); i++) {
		char path[1100];
		snprintf(path, sizeof path, "%s.%s", base, pinball_reader_part(r, i)->name);
		unlink(path);
	}
	snprintf(base + strlen(base), sizeof base - strlen(base), ".meta");
	unlink(base);
	pinball_reader_close(r);
}

int main(int argc, char **argv)
{
	uint64_t mib = 1024;
	const char *dir = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
	int opt;
	while ((opt = getopt(argc, argv, "m:d:")) != -1) {
		if (opt == 'm')
			mib = strtoull(optarg, NULL, 10);
		else if (opt == 'd')
			dir = optarg;
		else
			die("usage: pinball_bench [-m MIB] [-d DIR]");
	}
	if (!mib)
		die("usage: pinball_bench [-m MIB] [-d DIR]");
	run(dir, mib * 256, 0);
	run(dir, mib * 256, 1);
	return 0;
}
