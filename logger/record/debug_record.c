/* gdb's `monitor record on` / `record off` (scripts/gdb_record's `pin record on|off`): the
 * controller's start or stop event, fired through the engine (logged like an alarm's) into
 * the same global transition, taken at once at the instruction where gdb stopped the
 * thread, so that the region starts (or ends) exactly there. */
#include "recorder.h"
#include "recorder_internal.h"
#include "rt_format.h"

static char on_text[] = "gdb:record on";
static char off_text[] = "gdb:record off";
static const struct control_alarm record_on = {
    .event = CONTROL_EVENT_START, .type = CONTROL_ALARM_INTERACTIVE, .count = 1, .text = on_text};
static const struct control_alarm record_off = {
    .event = CONTROL_EVENT_STOP, .type = CONTROL_ALARM_INTERACTIVE, .count = 1, .text = off_text};

void recorder_debug_record(const struct jit_callout *c, bool on, char *reply, size_t size)
{
	enum region_state before = rec.state;
	uint32_t region = rec.region;
	if (rec.disabled) {
		rt_format(reply, size, "error: this process does not record (a forked child)");
		return;
	}
	control_engine_external_event(c->thread, on ? &record_on : &record_off, "gdb", c->pc,
				      jit_callout_icount(c));
	jit_callout_safe_point(c);
	if (on && before == OUT && rec.state == IN)
		rt_format(reply, size, "Started recording region number %u", region);
	else if (!on && before == IN && rec.state == OUT)
		rt_format(reply, size, "Stopped recording region number %u", region);
	else if (on)
		rt_format(reply, size, "error: region number %u is being recorded already", region);
	else
		rt_format(reply, size, "error: no region is being recorded");
}

bool recorder_debug_recording(void)
{
	return recording();
}

void recorder_debug_status(char *out, size_t size)
{
	if (rec.disabled)
		rt_format(out, size, "logger: a forked child, not recording");
	else if (recording())
		rt_format(out, size, "logger: recording region number %u into %s", rec.region,
			  rec.path);
	else
		rt_format(out, size, "logger: not recording; the next region is number %u (%s.%u)",
			  rec.region, rec.basename, rec.region);
}
