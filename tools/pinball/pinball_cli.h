/* The subcommands of the `pinball` tool. Each returns the process exit status. */
#ifndef PINBALL_CLI_H
#define PINBALL_CLI_H

#include "pinball.h"

int cmd_info(struct pinball_reader *r, const char *basename);
/* part NULL: every part. */
int cmd_dump(struct pinball_reader *r, const char *part);
int cmd_clean(const char *basename);
/* `pinball vplist ARGS`: argv holds the arguments after "vplist". */
int cmd_vplist(int argc, char **argv);

#endif
