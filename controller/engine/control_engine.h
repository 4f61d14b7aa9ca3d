/* The alarm engine: turns a finished control_spec into events delivered to a tool.
 *
 * It is a JIT client. Alarms are matched when code is translated, so an alarm costs
 * nothing where it cannot fire: exact-instruction alarms (address, ssc, itext, int3, isa,
 * cpuid, magic, enter/exit_func, pcontrol) become callouts before the matching
 * instructions, only while some thread has them armed; icount-based alarms (icount,
 * uniform) and external ones (timeout, interactive) use a per-thread budget checked at
 * block start. Everything here runs on app threads and is TLS-free, except
 * control_engine_start, which the driver calls before the app starts. */
#ifndef CONTROL_ENGINE_H
#define CONTROL_ENGINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "control_spec.h"

struct jit_thread;

struct control_event_info {
	enum control_event event;	   /* START, STOP or THREADID */
	uint32_t tid;			   /* the triggering thread */
	bool bcast;			   /* the event applies to all threads */
	uint64_t pc;			   /* where it fired */
	uint64_t icount;		   /* the triggering thread's instruction count there */
	const struct control_alarm *alarm; /* NULL for the default start */
	struct jit_thread *thread;
	const char *origin; /* NULL: an alarm of -control; else who sent it ("gdb") */
};

/* A tool's reaction to an event. Runs on the triggering app thread, TLS-free. */
typedef void (*control_handler)(const struct control_event_info *ev, void *arg);

/* Registers the engine with the JIT (call once, before jit_run). The spec must stay alive
 * and unchanged. log_path: absolute path of -controller_log, or NULL. Returns 0, or -1
 * with a one-line reason in err. */
int control_engine_start(const struct control_spec *spec, control_handler handler, void *arg,
			 const char *log_path, char *err, size_t errlen);

/* An event from outside the alarms (the debugger's `record on` and `record off`), on app
 * thread t at pc, icount: logged (-controller_log) and handed to the tool like an alarm's.
 * alarm gives its event and its text; origin names the sender. */
void control_engine_external_event(struct jit_thread *t, const struct control_alarm *alarm,
				   const char *origin, uint64_t pc, uint64_t icount);

/* For tools that ignore an event (e.g. during a region transition): logs it as `ignored`. */
void control_engine_log_ignored(const struct control_event_info *ev);

#endif
