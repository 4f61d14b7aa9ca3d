/* The language's keywords, in one place so lookups and suggestions agree. */
#include "control_internal.h"

const char *const ctl_event_words[] = {"start", "stop", "threadid", "precond", NULL};

const char *const ctl_type_words[] = {
    [CONTROL_ALARM_ICOUNT] = "icount",
    [CONTROL_ALARM_ADDRESS] = "address",
    [CONTROL_ALARM_SSC] = "ssc",
    [CONTROL_ALARM_ITEXT] = "itext",
    [CONTROL_ALARM_INT3] = "int3",
    [CONTROL_ALARM_ISA_EXTENSION] = "isa-extension",
    [CONTROL_ALARM_ISA_CATEGORY] = "isa-category",
    [CONTROL_ALARM_CPUID] = "cpuid",
    [CONTROL_ALARM_MAGIC] = "magic",
    [CONTROL_ALARM_PCONTROL] = "pcontrol",
    [CONTROL_ALARM_ENTER_FUNC] = "enter_func",
    [CONTROL_ALARM_EXIT_FUNC] = "exit_func",
    [CONTROL_ALARM_INTERACTIVE] = "interactive",
    [CONTROL_ALARM_TIMEOUT] = "timeout",
    [CONTROL_ALARM_UNIFORM] = "uniform",
    [CONTROL_ALARM_UNIFORM + 1] = NULL,
};

/* How many ':' values follow each type's name. */
const struct ctl_arity ctl_type_arity[] = {
    [CONTROL_ALARM_ICOUNT] = {1, 1},	   [CONTROL_ALARM_ADDRESS] = {1, 1},
    [CONTROL_ALARM_SSC] = {1, 1},	   [CONTROL_ALARM_ITEXT] = {1, 1},
    [CONTROL_ALARM_INT3] = {0, 0},	   [CONTROL_ALARM_ISA_EXTENSION] = {1, 1},
    [CONTROL_ALARM_ISA_CATEGORY] = {1, 1}, [CONTROL_ALARM_CPUID] = {1, 2},
    [CONTROL_ALARM_MAGIC] = {1, 2},	   [CONTROL_ALARM_PCONTROL] = {1, 1},
    [CONTROL_ALARM_ENTER_FUNC] = {1, 1},   [CONTROL_ALARM_EXIT_FUNC] = {1, 1},
    [CONTROL_ALARM_INTERACTIVE] = {0, 0},  [CONTROL_ALARM_TIMEOUT] = {1, 1},
    [CONTROL_ALARM_UNIFORM] = {3, 3},
};

const char *const ctl_modifier_words[] = {"count", "tid", "bcast", "global", NULL};

const char *const ctl_element_words[] = {"start",  "stop", "threadid", "precond", "uniform",
					 "repeat", "name", "waitfor",  "bcast",	  NULL};

int ctl_lookup(const struct ctl_token *t, const char *const *words)
{
	for (int i = 0; words[i]; i++)
		if (ctl_tok_is(t, words[i]))
			return i;
	return -1;
}

const char *control_event_name(enum control_event event)
{
	return event <= CONTROL_EVENT_PRECOND ? ctl_event_words[event] : "none";
}

const char *control_alarm_type_name(enum control_alarm_type type)
{
	return type <= CONTROL_ALARM_UNIFORM ? ctl_type_words[type] : "?";
}
