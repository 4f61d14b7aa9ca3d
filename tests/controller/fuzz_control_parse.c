/* libFuzzer target: any bytes, read as knob lines, must parse or fail cleanly (no crash, no
 * leak, no sanitizer report), and whatever parses must print to text that parses back to
 * the same text. A line "-<knob> <value>" sets a knob; any other line is a -control value. */
#include "control_spec.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static void set_line(struct control_spec *spec, char *line)
{
	struct control_error err;
	char *space = line[0] == '-' ? strchr(line, ' ') : NULL;
	if (space) {
		*space = '\0';
		control_spec_set_knob(spec, line, space + 1, &err);
	} else {
		control_spec_add_chain(spec, line, &err);
	}
}

static void check_round_trip(const struct control_chain *chain)
{
	char first[8192], again[8192];
	if (control_chain_format(chain, first, sizeof(first)) >= sizeof(first))
		return;
	struct control_spec *reread = control_spec_new();
	struct control_error err;
	if (!reread)
		return;
	if (control_spec_add_chain(reread, first, &err) != 0)
		abort();
	control_chain_format(&reread->chains[0], again, sizeof(again));
	if (strcmp(first, again) != 0)
		abort();
	char tiny[5];
	for (size_t i = 0; i < chain->nalarms; i++)
		control_alarm_format(&chain->alarms[i], tiny, sizeof(tiny));
	control_spec_free(reread);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = malloc(size + 1);
	struct control_spec *spec = control_spec_new();
	if (!text || !spec) {
		free(text);
		control_spec_free(spec);
		return 0;
	}
	memcpy(text, data, size);
	text[size] = '\0';
	for (char *line = text, *next; line; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		set_line(spec, line);
	}
	struct control_error err;
	if (control_spec_finish(spec, &err) == 0)
		for (size_t i = 0; i < spec->nchains; i++)
			check_round_trip(&spec->chains[i]);
	control_spec_free(spec);
	free(text);
	return 0;
}
