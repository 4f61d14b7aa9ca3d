#include "app_copy.h"

#include <string.h>
#include <sys/syscall.h>
#include <sys/uio.h>

#include "instrument.h"
#include "rt_syscall.h"

bool app_copy_in(void *dst, uint64_t src, size_t len)
{
	return jit_read_app_memory(dst, src, len);
}

/* By thread id: the process's first thread may have exited (its pid then names a zombie
 * without memory). */
static bool write_once(uint64_t dst, const void *src, size_t len)
{
	struct iovec local = {(void *)src, len};
	struct iovec remote = {(void *)dst, len};
	return rt_syscall6(SYS_process_vm_writev, rt_gettid(), (long)&local, 1, (long)&remote, 1,
			   0) == (long)len;
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
	if (write_once(dst, src, len))
		return true;
	bool granted = false;
	for (uint64_t page = dst & ~0xfffull; page < dst + len; page += 0x1000)
		granted |= jit_grant_access(page);
	return granted && write_once(dst, src, len);
}
