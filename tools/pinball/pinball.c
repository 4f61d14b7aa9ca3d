/* pinball: look into a pinball. `pinball info P`, `pinball dump P [--part NAME]`,
 * `pinball verify P`, `pinball clean P`, `pinball vplist PROFILE`. Errors are one line, "pinball:
 * error: ...", and a non-zero exit. */
#include <stdio.h>
#include <string.h>

#include "pinball.h"
#include "pinball_cli.h"

static const char usage[] =
    "usage: pinball info P | pinball dump P [--part NAME] | pinball verify P | pinball clean P\n"
    "  P is a pinball's name: the files P.meta, P.pages, ... (docs/pinball-format.md)\n"
    "  info    what is in it: region, threads, instructions, events, pages, sizes\n"
    "  dump    every record, one a line, each line starting with its part's name\n"
    "          (--part meta|threads|memmap|pages|events.TID|schedule|end)\n"
    "  verify  read and check everything: exit 0 and OK, or exit 1 and what is wrong\n"
    "  clean   remove what killed loggers left under the name P (temporary files, parts\n"
    "          without P.meta, parts an older pinball P had); a finished P stays\n"
    "usage: pinball vplist [options] PROFILE   (pinball vplist -h)\n"
    "  vplist  the hotlists of a value profile (replayer -vprofile, logger -vprofile)\n";

static int error(const char *msg)
{
	fprintf(stderr, "pinball: error: %s\n", msg);
	return 2;
}

int main(int argc, char **argv)
{
	if (argc == 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
		fputs(usage, stdout);
		return 0;
	}
	if (argc >= 2 && !strcmp(argv[1], "vplist"))
		return cmd_vplist(argc - 2, argv + 2);
	if (argc < 3)
		return error("missing command or pinball name (try --help)");
	const char *cmd = argv[1], *base = argv[2], *part = NULL;
	if (!strcmp(cmd, "dump") && argc == 5 && !strcmp(argv[3], "--part"))
		part = argv[4];
	else if (argc != 3)
		return error("too many arguments (try --help)");
	char err[PINBALL_ERR_MAX];
	if (!strcmp(cmd, "clean"))
		return cmd_clean(base);
	if (!strcmp(cmd, "verify")) {
		if (pinball_verify(base, err) < 0) {
			fprintf(stderr, "pinball: error: %s\n", err);
			return 1;
		}
		printf("OK %s\n", base);
		return 0;
	}
	if (strcmp(cmd, "info") != 0 && strcmp(cmd, "dump") != 0) {
		snprintf(err, sizeof err, "unknown command '%s' (try --help)", cmd);
		return error(err);
	}
	struct pinball_reader *r = pinball_reader_open(base, err);
	if (!r) {
		fprintf(stderr, "pinball: error: %s\n", err);
		return 1;
	}
	int status = !strcmp(cmd, "info") ? cmd_info(r, base) : cmd_dump(r, part);
	pinball_reader_close(r);
	return status;
}
