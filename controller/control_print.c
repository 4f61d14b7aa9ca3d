/* Canonical text of alarms and chains. Hand-rolled rather than snprintf so that app threads
 * (the event log) may call it without touching glibc's thread-local state. */
#include "control_internal.h"

struct out {
	char *buf;
	size_t size, len; /* len counts everything, written or not */
};

static void put_char(struct out *o, char c)
{
	if (o->len + 1 < o->size)
		o->buf[o->len] = c;
	o->len++;
}

static void put_str(struct out *o, const char *s)
{
	while (*s)
		put_char(o, *s++);
}

static void put_uint(struct out *o, uint64_t v, unsigned base)
{
	char digits[20];
	int n = 0;
	do {
		digits[n++] = "0123456789abcdef"[v % base];
		v /= base;
	} while (v);
	while (n)
		put_char(o, digits[--n]);
}

static void put_field_uint(struct out *o, uint64_t v)
{
	put_char(o, ':');
	put_uint(o, v, 10);
}

static void put_field_hex(struct out *o, uint64_t v)
{
	put_str(o, ":0x");
	put_uint(o, v, 16);
}

static void put_field_str(struct out *o, const char *s)
{
	put_char(o, ':');
	put_str(o, s);
}

static void put_address(struct out *o, const struct control_alarm *a)
{
	switch (a->u.address.kind) {
	case CONTROL_ADDRESS_PC:
		put_field_hex(o, a->u.address.pc);
		break;
	case CONTROL_ADDRESS_SYMBOL:
		put_field_str(o, a->u.address.symbol);
		break;
	case CONTROL_ADDRESS_IMAGE_OFFSET:
		put_field_str(o, a->u.address.image);
		put_str(o, "+0x");
		put_uint(o, a->u.address.offset, 16);
		break;
	}
}

static void put_values(struct out *o, const struct control_alarm *a)
{
	switch (a->type) {
	case CONTROL_ALARM_ICOUNT:
		put_field_uint(o, a->u.icount);
		break;
	case CONTROL_ALARM_ADDRESS:
		put_address(o, a);
		break;
	case CONTROL_ALARM_SSC:
		put_char(o, ':');
		put_uint(o, a->u.ssc, 16);
		break;
	case CONTROL_ALARM_ITEXT:
		put_char(o, ':');
		for (size_t i = 0; i < a->u.itext.len; i++) {
			put_char(o, "0123456789abcdef"[a->u.itext.bytes[i] >> 4]);
			put_char(o, "0123456789abcdef"[a->u.itext.bytes[i] & 15]);
		}
		break;
	case CONTROL_ALARM_ISA_EXTENSION:
	case CONTROL_ALARM_ISA_CATEGORY:
		put_field_str(o, a->u.isa);
		break;
	case CONTROL_ALARM_CPUID:
		put_field_hex(o, a->u.cpuid.leaf);
		if (a->u.cpuid.has_subleaf)
			put_field_hex(o, a->u.cpuid.subleaf);
		break;
	case CONTROL_ALARM_MAGIC:
		put_field_hex(o, a->u.magic.a);
		if (a->u.magic.has_b)
			put_field_hex(o, a->u.magic.b);
		break;
	case CONTROL_ALARM_PCONTROL:
		put_field_str(o, a->u.pcontrol);
		break;
	case CONTROL_ALARM_ENTER_FUNC:
	case CONTROL_ALARM_EXIT_FUNC:
		put_field_str(o, a->u.func);
		break;
	case CONTROL_ALARM_TIMEOUT:
		put_field_uint(o, a->u.timeout_seconds);
		break;
	case CONTROL_ALARM_UNIFORM:
		put_field_uint(o, a->u.uniform.period);
		put_field_uint(o, a->u.uniform.length);
		put_field_uint(o, a->u.uniform.count);
		break;
	case CONTROL_ALARM_INT3:
	case CONTROL_ALARM_INTERACTIVE:
		break;
	}
}

static void put_alarm(struct out *o, const struct control_alarm *a)
{
	if (a->type != CONTROL_ALARM_UNIFORM) {
		put_str(o, control_event_name(a->event));
		put_char(o, ':');
	}
	put_str(o, control_alarm_type_name(a->type));
	put_values(o, a);
	if (a->count != 1) {
		put_str(o, ":count");
		put_uint(o, a->count, 10);
	}
	if (a->has_tid) {
		put_str(o, ":tid");
		put_uint(o, a->tid, 10);
	}
	if (a->bcast)
		put_str(o, ":bcast");
	if (a->global)
		put_str(o, ":global");
}

static size_t finish(struct out *o)
{
	if (o->size)
		o->buf[o->len < o->size ? o->len : o->size - 1] = '\0';
	return o->len;
}

size_t control_alarm_format(const struct control_alarm *alarm, char *buf, size_t size)
{
	struct out o = {buf, size, 0};
	put_alarm(&o, alarm);
	return finish(&o);
}

size_t control_chain_format(const struct control_chain *chain, char *buf, size_t size)
{
	struct out o = {buf, size, 0};
	for (size_t i = 0; i < chain->nalarms; i++) {
		if (i)
			put_char(&o, ',');
		put_alarm(&o, &chain->alarms[i]);
	}
	if (chain->repeat == CONTROL_REPEAT_FOREVER) {
		put_str(&o, ",repeat");
	} else if (chain->repeat != 1) {
		put_str(&o, ",repeat:");
		put_uint(&o, chain->repeat, 10);
	}
	if (chain->name) {
		put_str(&o, ",name");
		put_field_str(&o, chain->name);
	}
	if (chain->waitfor) {
		put_str(&o, ",waitfor");
		put_field_str(&o, chain->waitfor);
	}
	return finish(&o);
}
