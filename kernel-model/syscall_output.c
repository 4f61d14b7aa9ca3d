/* The calls that write data to a file descriptor: which argument names it, and where the
 * bytes are (so that a replay can show what reached the recording's stdout and stderr). */
#include <sys/syscall.h>

#include "instrument.h"
#include "rt_crc32c.h"
#include "syscall_ranges.h"

enum syscall_output syscall_output(long nr, int *fd_arg)
{
	switch (nr) {
	case SYS_write:
	case SYS_pwrite64:
	case SYS_writev:
	case SYS_pwritev:
	case SYS_pwritev2:
	case SYS_sendto:
	case SYS_sendmsg:
	case SYS_vmsplice:
		*fd_arg = 0;
		return SYSCALL_OUTPUT_MEMORY;
	case SYS_sendfile:
		*fd_arg = 0;
		return SYSCALL_OUTPUT_KERNEL;
	case SYS_tee:
		*fd_arg = 1;
		return SYSCALL_OUTPUT_KERNEL;
	case SYS_splice:
	case SYS_copy_file_range:
		*fd_arg = 2;
		return SYSCALL_OUTPUT_KERNEL;
	default:
		return SYSCALL_OUTPUT_NONE;
	}
}

int syscall_output_ranges(long nr, const long a[6], long result, struct mem_range *out)
{
	struct ranges r = {.out = out, .after = true, .result = result};
	if (result <= 0)
		return 0;
	switch (nr) {
	case SYS_write:
	case SYS_pwrite64:
	case SYS_sendto:
		ranges_add(&r, (uint64_t)a[1], (uint64_t)result);
		break;
	case SYS_writev:
	case SYS_pwritev:
	case SYS_pwritev2:
	case SYS_vmsplice:
		ranges_add_iov(&r, (uint64_t)a[1], a[2], result);
		break;
	case SYS_sendmsg: {
		struct {
			uint64_t name;
			uint32_t namelen, pad;
			uint64_t iov, iovlen;
		} m;
		if (ranges_read(&m, (uint64_t)a[1], sizeof m))
			ranges_add_iov(&r, m.iov, (long)m.iovlen, result);
		break;
	}
	}
	return r.n;
}

bool syscall_output_crc(long nr, const long args[6], long result, uint32_t *crc)
{
	int fd_arg;
	if (syscall_output(nr, &fd_arg) != SYSCALL_OUTPUT_MEMORY)
		return false;
	struct mem_range r[SYSCALL_MAX_RANGES];
	int n = syscall_output_ranges(nr, args, result, r);
	uint32_t c = 0;
	for (int i = 0; i < n; i++) {
		for (uint64_t done = 0; done < r[i].len;) {
			uint8_t chunk[4096];
			uint64_t len =
			    r[i].len - done < sizeof chunk ? r[i].len - done : sizeof chunk;
			if (jit_copy_app_memory(chunk, r[i].addr + done, len))
				return false;
			c = rt_crc32c(c, chunk, len);
			done += len;
		}
	}
	*crc = c;
	return n > 0;
}
