/* The -control language: knobs in, plain data out.
 *
 * The driver feeds every controller knob to a spec on its main thread at start-up (glibc is
 * fine there), then calls control_spec_finish. After that the spec is read-only plain data:
 * arrays of structs and strings the spec owns, so the alarm engine can read it from app
 * threads without calling anything. docs/controller.md is the language reference. */
#ifndef CONTROL_SPEC_H
#define CONTROL_SPEC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum control_event {
	CONTROL_EVENT_START,
	CONTROL_EVENT_STOP,
	CONTROL_EVENT_THREADID,
	CONTROL_EVENT_PRECOND, /* arms the next alarm, delivers nothing to the tool */
	CONTROL_EVENT_NONE,    /* uniform: the alarm fires start and stop events itself */
};

enum control_alarm_type {
	CONTROL_ALARM_ICOUNT,
	CONTROL_ALARM_ADDRESS,
	CONTROL_ALARM_SSC,
	CONTROL_ALARM_ITEXT,
	CONTROL_ALARM_INT3,
	CONTROL_ALARM_ISA_EXTENSION,
	CONTROL_ALARM_ISA_CATEGORY,
	CONTROL_ALARM_CPUID,
	CONTROL_ALARM_MAGIC,
	CONTROL_ALARM_PCONTROL,
	CONTROL_ALARM_ENTER_FUNC,
	CONTROL_ALARM_EXIT_FUNC,
	CONTROL_ALARM_INTERACTIVE,
	CONTROL_ALARM_TIMEOUT,
	CONTROL_ALARM_UNIFORM,
};

enum control_address_kind {
	CONTROL_ADDRESS_PC,	      /* a number: 0x<hex> or decimal digits */
	CONTROL_ADDRESS_SYMBOL,	      /* <name> */
	CONTROL_ADDRESS_IMAGE_OFFSET, /* <image>+<offset>: the '+' tells it from a symbol */
};

#define CONTROL_ITEXT_MAX 15 /* the longest x86 instruction */

/* The ranges of the language's numbers, beyond which a value can only be a mistake (and,
 * added to a thread's count or the clock, would wrap around and fire at once). */
/* icount, uniform's period, length and count, count<N>, repeat:N, -skip, -length and the
 * -uniform-* knobs: 10^18 is over three years of one thread at 10^10 instructions a second. */
#define CONTROL_COUNT_MAX 1000000000000000000ull
/* timeout, in seconds: ten years of 365 days (its nanoseconds fit 64 bits many times). */
#define CONTROL_TIMEOUT_MAX 315360000ull
/* tid<N>: the engine follows threads 0 to CONTROL_TID_MAX (Pin's numbering). */
#define CONTROL_TID_MAX 1023u
/* address pcs and image offsets: the highest user address with 5-level page tables. */
#define CONTROL_ADDRESS_MAX 0x00ffffffffffffffull

struct control_alarm {
	enum control_event event;
	enum control_alarm_type type;
	union {
		uint64_t icount;
		struct {
			enum control_address_kind kind;
			uint64_t pc;	 /* CONTROL_ADDRESS_PC */
			char *symbol;	 /* CONTROL_ADDRESS_SYMBOL */
			char *image;	 /* CONTROL_ADDRESS_IMAGE_OFFSET: full path or base name */
			uint64_t offset; /* CONTROL_ADDRESS_IMAGE_OFFSET */
		} address;
		uint32_t ssc; /* the imm32 of `mov $imm,%ebx` before `64 67 90` */
		struct {
			uint8_t bytes[CONTROL_ITEXT_MAX];
			uint8_t len;
		} itext;
		/* isa-extension / isa-category: XED's spelling (xed_names.h), static storage */
		const char *isa;
		/* At a cpuid: eax == leaf, and ecx == subleaf when has_subleaf. */
		struct {
			uint32_t leaf, subleaf;
			bool has_subleaf;
		} cpuid;
		/* At `xchg %ebx,%ebx` (87 db): rax == a, and rbx == b when has_b. */
		struct {
			uint64_t a, b;
			bool has_b;
		} magic;
		char *pcontrol; /* second argument of MPI_Pcontrol */
		char *func;	/* enter_func / exit_func: bare function name */
		uint64_t timeout_seconds;
		struct {
			uint64_t period; /* from one sample's start to the next one's */
			uint64_t length; /* instructions in a sample, <= period */
			uint64_t count;	 /* samples */
		} uniform;
	} u;
	uint64_t count; /* fire on the count-th match; 1 without :count */
	bool has_tid;	/* only thread `tid` (Pin numbering: 0, 1, ... in creation order) */
	uint32_t tid;
	bool bcast;    /* event marked broadcast; the next alarm is armed on all threads */
	bool global;   /* count matches of all threads together */
	size_t column; /* where the alarm starts in its knob's value, from 1 */
	char *text;    /* canonical text (control_alarm_format), for the event log */
};

#define CONTROL_REPEAT_FOREVER 0

struct control_chain {
	struct control_alarm *alarms;
	size_t nalarms;
	uint64_t repeat; /* times the chain runs; CONTROL_REPEAT_FOREVER for bare `repeat` */
	char *name;	 /* NULL when unnamed */
	size_t name_column;
	char *waitfor;	      /* NULL, or the name of a chain that must finish first */
	size_t waitfor_chain; /* index of that chain in spec->chains, after finish */
	size_t waitfor_column;
	const char *knob; /* "-control", or the legacy knob it came from */
	char *source;	  /* the knob's value as given (synthesised for legacy knobs) */
};

/* What the legacy knobs said; the parser's own until finish turns it into chains. */
struct control_legacy {
	bool has_skip, has_length;
	uint64_t skip, length;
	bool has_uskip, has_uperiod, has_ulength, has_ucount;
	uint64_t uskip, uperiod, ulength, ucount;
	bool has_default_start;
};

struct control_spec {
	struct control_chain *chains;
	size_t nchains, chains_cap;
	/* After finish: -log:controller_default_start is 1 (its default) and no chain has a start
	 * event (uniform counts as one), so every thread starts in the region at its birth. */
	bool default_start_knob;
	bool default_start;
	char *interactive_file; /* -interactive-file, NULL when absent */
	char *log_file;		/* -controller_log, NULL when absent */
	struct control_legacy legacy;
	bool finished;
};

/* One message, ready to print after the driver's own prefix, e.g.
 * "-control: unknown alarm type 'adress' at column 7 (did you mean 'address'?)". */
#define CONTROL_ERROR_MAX 320
struct control_error {
	char message[CONTROL_ERROR_MAX];
	size_t column; /* 1-based in the knob's value; 0 when the problem has no position */
};

struct control_spec *control_spec_new(void);
void control_spec_free(struct control_spec *spec);

/* Parses one -control value into one chain. 0, or -1 with *err set and the spec unchanged. */
int control_spec_add_chain(struct control_spec *spec, const char *text, struct control_error *err);

/* The other controller knobs, by name with the leading dash ("-skip", "-length",
 * "-uniform-skip", "-uniform-period", "-uniform-length", "-uniform-count",
 * "-interactive-file", "-log:controller_default_start", "-controller_log"); "-control" is
 * passed on to control_spec_add_chain. 0, or -1 with *err set. */
int control_spec_set_knob(struct control_spec *spec, const char *knob, const char *value,
			  struct control_error *err);

/* Turns the legacy knobs into chains, resolves waitfor names, checks what needs the whole
 * command line, and decides the default start. 0, or -1 with *err set. Call once. */
int control_spec_finish(struct control_spec *spec, struct control_error *err);

/* A controller knob, for a driver's help: its name ("-skip"), what its value is ("N"), what
 * it does, and what holds when it is not given ("none", "1"). */
struct control_knob_doc {
	const char *name, *value, *help, *unset;
};

/* The i-th controller knob, from 0; NULL past the last. */
const struct control_knob_doc *control_knob_doc(size_t i);

/* Whether argv word `arg` is a controller knob (it then takes one value word). */
bool control_is_knob(const char *arg);

/* For a driver's option loop: if argv[*i] is a controller knob, consumes it and its value,
 * advances *i past them and returns 1 (or -1 with *err set, e.g. the value is missing);
 * returns 0 and leaves *i alone when argv[*i] is not a controller knob. */
int control_spec_take_knob(struct control_spec *spec, int argc, char *const *argv, int *i,
			   struct control_error *err);

/* Canonical text: what control_spec_add_chain reads back into the same alarm / chain.
 * snprintf's contract (returns the full length, always terminates when size > 0) and
 * TLS-free, so app threads may call it. */
size_t control_alarm_format(const struct control_alarm *alarm, char *buf, size_t size);
size_t control_chain_format(const struct control_chain *chain, char *buf, size_t size);

const char *control_event_name(enum control_event event);
const char *control_alarm_type_name(enum control_alarm_type type);

#endif
