#include "app_copy.h"

#include <string.h>

#include "instrument.h"
#include "probe_read.h"

/* (plain loads whose fault fails the copy: a system call's arguments are read on every
 * call, where process_vm_readv cost about a microsecond each) */
bool app_copy_in(void *dst, uint64_t src, size_t len)
{
	return probe_read(dst, src, len) == 0;
}

bool app_copy_string(char *dst, uint64_t src, size_t cap)
{
	size_t n = 0;
	while (n < cap) {
		/* page by page: the string may end just before memory that cannot be read */
		size_t chunk = 0x1000 - ((src + n) & 0xfff);
		if (chunk > cap - n)
			chunk = cap - n;
		if (!app_copy_in(dst + n, src + n, chunk))
			return false;
		if (memchr(dst + n, '\0', chunk))
			return true;
		n += chunk;
	}
	return false;
}

bool app_copy_out(uint64_t dst, const void *src, size_t len)
{
	return jit_write_app_memory(dst, src, len);
}
