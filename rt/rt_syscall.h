/* Raw Linux system calls for app-thread code.
 *
 * glibc's wrappers set errno, which lives in glibc's TLS and therefore in whatever %fs
 * points at; app-thread code must never touch it. Every function here returns the
 * kernel's result unchanged: a value >= 0 on success, -errno on failure. */
#ifndef RT_SYSCALL_H
#define RT_SYSCALL_H

#include <stddef.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <sys/types.h>

static inline long rt_syscall6(long nr, long a1, long a2, long a3, long a4, long a5, long a6)
{
	long ret;
	register long r10 __asm__("r10") = a4;
	register long r8 __asm__("r8") = a5;
	register long r9 __asm__("r9") = a6;
	__asm__ volatile("syscall"
			 : "=a"(ret)
			 : "a"(nr), "D"(a1), "S"(a2), "d"(a3), "r"(r10), "r"(r8), "r"(r9)
			 : "rcx", "r11", "memory");
	return ret;
}

static inline long rt_syscall0(long nr)
{
	return rt_syscall6(nr, 0, 0, 0, 0, 0, 0);
}
static inline long rt_syscall1(long nr, long a1)
{
	return rt_syscall6(nr, a1, 0, 0, 0, 0, 0);
}
static inline long rt_syscall2(long nr, long a1, long a2)
{
	return rt_syscall6(nr, a1, a2, 0, 0, 0, 0);
}
static inline long rt_syscall3(long nr, long a1, long a2, long a3)
{
	return rt_syscall6(nr, a1, a2, a3, 0, 0, 0);
}
static inline long rt_syscall4(long nr, long a1, long a2, long a3, long a4)
{
	return rt_syscall6(nr, a1, a2, a3, a4, 0, 0);
}

/* True when a raw result encodes an error (the kernel's -4095..-1 range). */
static inline int rt_is_error(long ret)
{
	return (unsigned long)ret >= -4095UL;
}

static inline long rt_read(int fd, void *buf, size_t len)
{
	return rt_syscall3(SYS_read, fd, (long)buf, (long)len);
}
static inline long rt_write(int fd, const void *buf, size_t len)
{
	return rt_syscall3(SYS_write, fd, (long)buf, (long)len);
}
static inline long rt_openat(int dirfd, const char *path, int flags, int mode)
{
	return rt_syscall4(SYS_openat, dirfd, (long)path, flags, mode);
}
static inline long rt_close(int fd)
{
	return rt_syscall1(SYS_close, fd);
}
static inline long rt_getpid(void)
{
	return rt_syscall0(SYS_getpid);
}
static inline long rt_gettid(void)
{
	return rt_syscall0(SYS_gettid);
}
static inline long rt_tgkill(long tgid, long tid, int sig)
{
	return rt_syscall3(SYS_tgkill, tgid, tid, sig);
}
static inline long rt_exit_group(int status)
{
	return rt_syscall1(SYS_exit_group, status);
}

/* Returns the mapping's address, or -errno (test with rt_is_error). With no address (and
 * no MAP_FIXED*), the runtime's memory goes to a zone of its own, away from the app's
 * (rt_mmap.c). */
long rt_mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off);
static inline long rt_munmap(void *addr, size_t len)
{
	return rt_syscall2(SYS_munmap, (long)addr, (long)len);
}
static inline long rt_mprotect(void *addr, size_t len, int prot)
{
	return rt_syscall3(SYS_mprotect, (long)addr, (long)len, prot);
}

/* Faults in the pages of [addr, addr + len) for writing, in one system call where touching
 * them one by one takes a fault each (microseconds each in a VM). Best effort: nothing
 * happens on a kernel without MADV_POPULATE_WRITE (5.14). */
static inline void rt_populate_write(void *addr, size_t len)
{
	enum { PAGE_MASK_ = 4095, POPULATE_WRITE = 23 /* MADV_POPULATE_WRITE */ };
	uint64_t start = (uint64_t)addr & ~(uint64_t)PAGE_MASK_;
	rt_syscall3(SYS_madvise, (long)start, (long)((uint64_t)addr + len - start), POPULATE_WRITE);
}

/* For memory [base, base + cap) filled from its start: `populated` bytes of it are faulted
 * in and `needed` are about to be written. Faults in the missing part and a 64 KiB window
 * beyond it (rt_populate_write); the new extent. */
static inline size_t rt_populate_ahead(uint8_t *base, size_t populated, size_t needed, size_t cap)
{
	enum { WINDOW = 64 << 10 };
	if (needed <= populated)
		return populated;
	size_t to = needed + WINDOW < cap ? needed + WINDOW : cap;
	rt_populate_write(base + populated, to - populated);
	return to;
}

/* Futex on a private (process-local) word. */
long rt_futex_wait(int *word, int expected);
/* The same, giving up after ms milliseconds (-ETIMEDOUT). */
long rt_futex_wait_ms(int *word, int expected, unsigned ms);
long rt_futex_wake(int *word, int count);
/* Futex on a word that other processes map too (MAP_SHARED memory): the same, shared. */
long rt_futex_wait_shared(int *word, int expected, unsigned ms /* 0: no limit */);
long rt_futex_wake_shared(int *word, int count);

/* Writes all of buf, retrying short writes and EINTR. Returns len or -errno. */
long rt_write_all(int fd, const void *buf, size_t len);

#endif
