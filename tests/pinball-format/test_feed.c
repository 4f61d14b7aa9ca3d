/* The feed: helper-thread read-ahead consumed by other threads through the app-thread API. */
#include <check.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fixture.h"
#include "pinball_feed.h"
#include "pinball_tests.h"
#include "synth.h"

struct consumer {
	struct pinball_feed *feed;
	uint32_t t;
	int matched, result;
};

static void *consume(void *arg)
{
	struct consumer *c = arg;
	int stream = pinball_feed_stream(c->feed, synth_tid(c->t));
	struct pinball_event *got, want;
	while ((c->result = pinball_feed_next_event(c->feed, stream, &got)) == 1) {
		synth_event(c->t, (uint32_t)c->matched, &want);
		if (got->icount == want.icount && got->kind == want.kind &&
		    (got->kind != PINBALL_EV_SYSCALL ||
		     (got->syscall.nwrites == want.syscall.nwrites &&
		      (!want.syscall.nwrites ||
		       !memcmp(got->syscall.writes[0].data, want.syscall.writes[0].data,
			       want.syscall.writes[0].len)))))
			c->matched++;
	}
	return NULL;
}

START_TEST(feed_delivers_every_event_and_slice)
{
	char err[PINBALL_ERR_MAX];
	struct pinball_feed *f = pinball_feed_start(test_base, 4, err);
	ck_assert_msg(f != NULL, "%s", err);
	ck_assert_int_eq(pinball_feed_stream(f, 12345), -1);
	struct consumer cs[SYNTH_THREADS];
	pthread_t th[SYNTH_THREADS];
	for (uint32_t t = 0; t < SYNTH_THREADS; t++) {
		cs[t] = (struct consumer){f, t, 0, 0};
		ck_assert_int_eq(pthread_create(&th[t], NULL, consume, &cs[t]), 0);
	}
	struct pinball_slice s;
	int slices = 0;
	while (pinball_feed_next_slice(f, &s) == 1) {
		ck_assert_uint_eq(s.tid, synth_tid((uint32_t)slices % SYNTH_THREADS));
		slices++;
	}
	ck_assert_int_eq(slices, SYNTH_SLICES);
	for (uint32_t t = 0; t < SYNTH_THREADS; t++) {
		pthread_join(th[t], NULL);
		ck_assert_int_eq(cs[t].result, 0);
		ck_assert_int_eq(cs[t].matched, SYNTH_EVENTS);
	}
	ck_assert_str_eq(pinball_feed_error(f), "");
	pinball_feed_stop(f);
}
END_TEST

START_TEST(feed_reports_a_corrupt_stream)
{
	char err[PINBALL_ERR_MAX], *part;
	ck_assert_int_ge(asprintf(&part, "%s.events.%u", test_base, synth_tid(1)), 0);
	int fd = open(part, O_RDWR);
	ck_assert_int_ge(fd, 0);
	uint8_t b;
	ck_assert_int_eq(pread(fd, &b, 1, 100), 1);
	b ^= 0x40;
	ck_assert_int_eq(pwrite(fd, &b, 1, 100), 1);
	close(fd);
	struct pinball_feed *f = pinball_feed_start(test_base, 0, err);
	ck_assert_msg(f != NULL, "%s", err);
	struct consumer c = {f, 1, 0, 0};
	consume(&c);
	ck_assert_int_eq(c.result, -1);
	ck_assert_msg(strstr(pinball_feed_error(f), part) &&
			  strstr(pinball_feed_error(f), "checksum mismatch"),
		      "%s", pinball_feed_error(f));
	pinball_feed_stop(f);
	free(part);
}
END_TEST

START_TEST(feed_stops_with_items_unconsumed)
{
	char err[PINBALL_ERR_MAX];
	struct pinball_feed *f = pinball_feed_start(test_base, 2, err);
	ck_assert_msg(f != NULL, "%s", err);
	struct pinball_event *e;
	ck_assert_int_eq(pinball_feed_next_event(f, 0, &e), 1);
	ck_assert_uint_eq(e->icount, 0);
	ck_assert_int_eq(pinball_feed_next_event(f, 0, &e), 1);
	ck_assert_uint_eq(e->icount, 100);
	usleep(10000); /* let the producer fill the rings and sleep */
	pinball_feed_stop(f);
}
END_TEST

Suite *pinball_feed_suite(void)
{
	Suite *s = suite_create("pinball_feed");
	TCase *tc = tcase_create("feed");
	tcase_add_checked_fixture(tc, fixture_setup_synth, fixture_teardown);
	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, feed_delivers_every_event_and_slice);
	tcase_add_test(tc, feed_reports_a_corrupt_stream);
	tcase_add_test(tc, feed_stops_with_items_unconsumed);
	suite_add_tcase(s, tc);
	return s;
}
