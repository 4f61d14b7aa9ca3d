#include "exec_env.h"

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "app_copy.h"
#include "jit.h"
#include "rt_string.h"

enum { PAGE = 4096, ARG_STRING_MAX = 32 * PAGE /* the kernel's MAX_ARG_STRLEN */ };

static const char prefix[] = "PINTRACE_HIDDEN_";

/* The length of the app's string at p (without its NUL); false when a byte of it cannot be
 * read or it is longer than the kernel takes. */
static bool app_string_length(uint64_t p, size_t *len)
{
	char chunk[256];
	for (size_t n = 0; n < ARG_STRING_MAX;) {
		size_t size = PAGE - ((p + n) & (PAGE - 1));
		size = size < sizeof chunk ? size : sizeof chunk;
		if (!app_copy_in(chunk, p + n, size))
			return false;
		const char *nul = memchr(chunk, 0, size);
		if (nul) {
			*len = n + (size_t)(nul - chunk);
			return true;
		}
		n += size;
	}
	return false;
}

/* Whether an environment entry goes renamed: the dynamic linker's, or one that looks
 * renamed already (renamed once more, so that taking the prefix off gives it back). */
static bool renamed(const char *head)
{
	return rt_starts_with(head, "LD_") || rt_starts_with(head, "GLIBC_TUNABLES=") ||
	       rt_starts_with(head, prefix);
}

/* The first bytes of the app's entry at p (enough to tell renamed() apart), its length;
 * false when unreadable. */
static bool entry_head(uint64_t p, char head[32], size_t *len)
{
	if (!app_string_length(p, len))
		return false;
	size_t n = *len < 31 ? *len : 31;
	if (!app_copy_in(head, p, n))
		return false;
	head[n] = '\0';
	return true;
}

long exec_env_room(char *const *envp)
{
	size_t count = 0, bytes = 0;
	bool any = false;
	for (; envp; count++) {
		char *entry;
		if (!app_copy_in(&entry, (uint64_t)&envp[count], sizeof entry))
			return -EFAULT;
		if (!entry)
			break;
		char head[32];
		size_t len;
		if (!entry_head((uint64_t)entry, head, &len))
			return -EFAULT;
		if (renamed(head)) {
			any = true;
			bytes += sizeof prefix + len;
		}
	}
	return any ? (long)((count + 1) * sizeof(char *) + bytes) : 0;
}

char **exec_env_hide(char *const *envp, void *at, size_t room)
{
	/* (read again: bounded by the room, should another thread change it meanwhile) */
	char **out = at;
	size_t count = 0, slots = room / sizeof *out;
	while (count + 1 < slots && app_copy_in(&out[count], (uint64_t)&envp[count], sizeof *out) &&
	       out[count])
		count++;
	out[count] = NULL;
	char *strings = (char *)(out + count + 1), *end = (char *)at + room;
	for (size_t i = 0; i < count; i++) {
		char head[32];
		size_t len;
		if (!entry_head((uint64_t)out[i], head, &len) || !renamed(head) ||
		    (size_t)(end - strings) < sizeof prefix + len)
			continue;
		memcpy(strings, prefix, sizeof prefix - 1);
		if (!app_copy_in(strings + sizeof prefix - 1, (uint64_t)out[i], len + 1))
			continue;
		out[i] = strings;
		strings += sizeof prefix + len;
	}
	return out;
}

void jit_restore_app_environment(char **envp)
{
	for (size_t i = 0; envp && envp[i]; i++)
		if (rt_starts_with(envp[i], prefix))
			envp[i] += sizeof prefix - 1;
}
