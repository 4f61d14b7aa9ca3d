/* Setting the engine up before the app starts (driver main thread, glibc allowed). */
#include <stdio.h>
#include <stdlib.h>

#include "engine/engine_internal.h"

static void thread_start(struct jit_thread *t, uint64_t pc, void *arg)
{
	(void)arg;
	engine_thread_born(t, pc);
}

/* Without alarms the engine inserts nothing a vfork child could run: it may run in the
 * parent's memory. With alarms it runs in a copy (it is no thread the engine knows). */
static bool vfork_shares_memory(void *arg)
{
	(void)arg;
	return engine.spec->nchains == 0;
}

/* (instrument_block only with alarms: without, the code is the app's alone, and the JIT
 * may keep it across processes) */
static struct jit_client client = {
    .name = "controller",
    .vfork_shares_memory = vfork_shares_memory,
    .thread_start = thread_start,
    .image_mapped = engine_image_mapped,
    .at_exit = engine_process_ends,
    .app_dies = engine_app_dies,
};

static bool needs_budget(const struct control_alarm *a)
{
	return a->type == CONTROL_ALARM_ICOUNT || a->type == CONTROL_ALARM_UNIFORM ||
	       a->type == CONTROL_ALARM_TIMEOUT || a->type == CONTROL_ALARM_INTERACTIVE;
}

int control_engine_start(const struct control_spec *spec, control_handler handler, void *arg,
			 const char *log_path, char *err, size_t errlen)
{
	engine.spec = spec;
	engine.handler = handler;
	engine.handler_arg = arg;
	engine.log_path = log_path;
	engine.budget_slot = -1;
	engine.first_ref = calloc(spec->nchains + 1, sizeof *engine.first_ref);
	uint32_t total = 0;
	for (size_t c = 0; c < spec->nchains; c++) {
		engine.first_ref[c] = total;
		total += (uint32_t)spec->chains[c].nalarms;
	}
	engine.refs = calloc(total + 1, sizeof *engine.refs);
	if (!engine.first_ref || !engine.refs) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	engine.nrefs = total;
	bool budget = false;
	for (uint32_t c = 0; c < spec->nchains; c++) {
		for (uint32_t a = 0; a < spec->chains[c].nalarms; a++) {
			struct alarm_ref *r = engine_ref(c, a);
			r->chain = c;
			r->alarm = a;
			const struct control_alarm *alarm = &spec->chains[c].alarms[a];
			if (alarm->type == CONTROL_ALARM_ADDRESS &&
			    alarm->u.address.kind == CONTROL_ADDRESS_PC)
				r->resolved_pc = alarm->u.address.pc;
			budget |= needs_budget(alarm);
		}
	}
	jit_enable_icount();
	if (budget && (engine.budget_slot = jit_thread_slot_reserve()) < 0) {
		snprintf(err, errlen, "no per-thread counter left for the controller");
		return -1;
	}
	if (engine_external_start(err, errlen))
		return -1;
	if (spec->nchains)
		client.instrument_block = engine_instrument_block;
	jit_register_client(&client);
	return 0;
}
