/* The driver's side of -jit:persist (persist.h): kept code is used where it was made, so
 * the program's address space must be laid out the same way every time. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/personality.h>
#include <sys/stat.h>
#include <unistd.h>

#include "jit.h"

int jit_persist_prepare(const char *dir, char *const *argv, char *err, size_t err_len)
{
	struct stat st;
	if (mkdir(dir, 0777) && errno != EEXIST) {
		snprintf(err, err_len, "cannot create the -jit:persist directory '%s': %s", dir,
			 strerror(errno));
		return -1;
	}
	if (stat(dir, &st) || !S_ISDIR(st.st_mode) || access(dir, W_OK | X_OK)) {
		snprintf(err, err_len, "-jit:persist '%s' is not a writable directory", dir);
		return -1;
	}
	if (!argv)
		return 0;
	int now = personality(0xffffffff);
	if (now < 0 || (now & ADDR_NO_RANDOMIZE))
		return 0; /* (unknown: the kept code just goes unused where addresses differ) */
	if (personality((unsigned long)now | ADDR_NO_RANDOMIZE) < 0)
		return 0;
	execv("/proc/self/exe", argv);
	personality((unsigned long)now);
	return 0;
}
