/* The syscall model: every syscall of the kernel's x86-64 table is classified, and the
 * buffers of representative calls are found as the kernel uses them. */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/futex.h>
#include <linux/sched.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <termios.h>

#include "syscall_model.h"
#include "unit_suites.h"

/* The kernel headers' list, generated at build time independently of the model. */
static const struct {
	long nr;
	const char *name;
} kernel_syscalls[] = {
#define SYSCALL(nr, name) {nr, #name},
#include "kernel_syscalls.inc"
#undef SYSCALL
};
enum { KERNEL_SYSCALLS = sizeof kernel_syscalls / sizeof kernel_syscalls[0] };

static const long no_args[6];

START_TEST(every_kernel_syscall_is_classified)
{
	ck_assert_int_gt(KERNEL_SYSCALLS, 300);
	for (int i = 0; i < KERNEL_SYSCALLS; i++) {
		long nr = kernel_syscalls[i].nr;
		ck_assert_msg(syscall_known(nr), "syscall %s (%ld) is not in the model",
			      kernel_syscalls[i].name, nr);
		ck_assert_msg(syscall_replay_kind(nr, no_args) != 0,
			      "syscall %s (%ld) has no replay treatment", kernel_syscalls[i].name,
			      nr);
		ck_assert_str_eq(syscall_name(nr), kernel_syscalls[i].name);
	}
}
END_TEST

START_TEST(nothing_else_is_classified)
{
	int known = 0;
	for (long nr = -1; nr < 1024; nr++)
		known += syscall_known(nr);
	ck_assert_int_eq(known, KERNEL_SYSCALLS);
	ck_assert_ptr_null(syscall_name(-1));
	ck_assert_ptr_null(syscall_name(100000));
}
END_TEST

/* Only an ioctl needs its request to be known; every other call's memory is modelled
 * for plain arguments, failed or not. */
START_TEST(every_syscall_has_modelled_writes)
{
	struct mem_range r[SYSCALL_MAX_RANGES];
	for (int i = 0; i < KERNEL_SYSCALLS; i++) {
		long nr = kernel_syscalls[i].nr;
		if (nr == SYS_ioctl)
			continue;
		ck_assert_msg(syscall_writes(nr, no_args, 0, r) >= 0, "%s: writes unmodelled",
			      kernel_syscalls[i].name);
		ck_assert_msg(syscall_writes(nr, no_args, -EINVAL, r) >= 0,
			      "%s: writes unmodelled on failure", kernel_syscalls[i].name);
		ck_assert_int_ge(syscall_accesses(nr, no_args, r), 0);
	}
}
END_TEST

START_TEST(replay_treatment)
{
	ck_assert_int_eq(syscall_replay_kind(SYS_read, no_args), SYSCALL_REPLAY_INJECT);
	ck_assert_int_eq(syscall_replay_kind(SYS_mmap, no_args), SYSCALL_REPLAY_MEMORY_MAP);
	ck_assert_int_eq(syscall_replay_kind(SYS_mremap, no_args), SYSCALL_REPLAY_MEMORY_MAP);
	ck_assert_int_eq(syscall_replay_kind(SYS_brk, no_args), SYSCALL_REPLAY_MEMORY_MAP);
	ck_assert_int_eq(syscall_replay_kind(SYS_rt_sigaction, no_args), SYSCALL_REPLAY_RUNTIME);
	ck_assert_int_eq(syscall_replay_kind(SYS_sigaltstack, no_args), SYSCALL_REPLAY_RUNTIME);
	ck_assert_int_eq(syscall_replay_kind(SYS_exit_group, no_args), SYSCALL_REPLAY_EXIT);
	ck_assert_int_eq(syscall_replay_kind(SYS_io_uring_setup, no_args), SYSCALL_REPLAY_REFUSED);
	const long set_fs[6] = {0x1002}, get_cpuid[6] = {0x1011};
	ck_assert_int_eq(syscall_replay_kind(SYS_arch_prctl, set_fs), SYSCALL_REPLAY_RUNTIME);
	ck_assert_int_eq(syscall_replay_kind(SYS_arch_prctl, get_cpuid), SYSCALL_REPLAY_INJECT);
	ck_assert_int_eq(syscall_replay_kind(100000, no_args), 0);
}
END_TEST

static void assert_range(const struct mem_range *r, const void *addr, uint64_t len)
{
	ck_assert_ptr_eq((const void *)r->addr, addr);
	ck_assert_uint_eq(r->len, len);
}

START_TEST(buffers_sized_by_the_result)
{
	char buf[100];
	struct mem_range r[SYSCALL_MAX_RANGES];
	const long read_args[6] = {0, (long)buf, sizeof buf};
	ck_assert_int_eq(syscall_writes(SYS_read, read_args, 42, r), 1);
	assert_range(&r[0], buf, 42);
	ck_assert_int_eq(syscall_writes(SYS_read, read_args, 0, r), 0);
	ck_assert_int_eq(syscall_writes(SYS_read, read_args, -EAGAIN, r), 0);
	/* before the call: the whole capacity */
	ck_assert_int_eq(syscall_accesses(SYS_read, read_args, r), 1);
	assert_range(&r[0], buf, sizeof buf);
	/* a write only reads its buffer */
	ck_assert_int_eq(syscall_writes(SYS_write, read_args, 42, r), 0);
	ck_assert_int_eq(syscall_accesses(SYS_write, read_args, r), 1);
}
END_TEST

START_TEST(iovecs_filled_in_order)
{
	char a[10], b[20], c[30];
	struct iovec iov[3] = {{a, sizeof a}, {b, sizeof b}, {c, sizeof c}};
	struct mem_range r[SYSCALL_MAX_RANGES];
	const long args[6] = {0, (long)iov, 3};
	ck_assert_int_eq(syscall_writes(SYS_readv, args, 25, r), 2);
	assert_range(&r[0], a, 10);
	assert_range(&r[1], b, 15);
	ck_assert_int_eq(syscall_accesses(SYS_writev, args, r), 3);
	assert_range(&r[2], c, 30);
}
END_TEST

START_TEST(received_message_and_its_lengths)
{
	char data[64], name[16], control[32];
	struct iovec iov = {data, sizeof data};
	struct msghdr m = {.msg_name = name,
			   .msg_namelen = 6,
			   .msg_iov = &iov,
			   .msg_iovlen = 1,
			   .msg_control = control,
			   .msg_controllen = 20};
	struct mem_range r[SYSCALL_MAX_RANGES];
	const long args[6] = {3, (long)&m, 0};
	ck_assert_int_eq(syscall_writes(SYS_recvmsg, args, 10, r), 4);
	assert_range(&r[0], &m, sizeof m);
	assert_range(&r[1], data, 10);
	assert_range(&r[2], name, 6);
	assert_range(&r[3], control, 20);
	ck_assert_int_eq(syscall_writes(SYS_recvmsg, args, -EAGAIN, r), 0);
	ck_assert_int_eq(syscall_writes(SYS_sendmsg, args, 10, r), 0);
	ck_assert_int_eq(syscall_accesses(SYS_sendmsg, args, r), 4);
	assert_range(&r[1], data, sizeof data);
}
END_TEST

START_TEST(socket_address_lengths)
{
	char addr[128];
	socklen_t len = 16;
	struct mem_range r[SYSCALL_MAX_RANGES];
	const long args[6] = {3, (long)addr, (long)&len};
	ck_assert_int_eq(syscall_writes(SYS_accept4, args, 5, r), 2);
	assert_range(&r[0], addr, 16);
	assert_range(&r[1], &len, 4);
}
END_TEST

START_TEST(ioctl_requests)
{
	char buf[256];
	struct mem_range r[SYSCALL_MAX_RANGES];
	const long tcgets[6] = {0, TCGETS, (long)buf};
	ck_assert_int_eq(syscall_writes(SYS_ioctl, tcgets, 0, r), 1);
	assert_range(&r[0], buf, 36);
	const long winsz[6] = {0, TIOCGWINSZ, (long)buf};
	ck_assert_int_eq(syscall_writes(SYS_ioctl, winsz, 0, r), 1);
	assert_range(&r[0], buf, sizeof(struct winsize));
	/* encoded: _IOR writes its size, _IOW only reads */
	const long ior[6] = {0, (long)_IOR('x', 1, char[40]), (long)buf};
	ck_assert_int_eq(syscall_writes(SYS_ioctl, ior, 0, r), 1);
	assert_range(&r[0], buf, 40);
	const long iow[6] = {0, (long)_IOW('x', 1, char[40]), (long)buf};
	ck_assert_int_eq(syscall_writes(SYS_ioctl, iow, 0, r), 0);
	ck_assert_int_eq(syscall_accesses(SYS_ioctl, iow, r), 1);
	const long setter[6] = {0, TCSETS, (long)buf};
	ck_assert_int_eq(syscall_writes(SYS_ioctl, setter, 0, r), 0);
	const long unknown[6] = {0, 0x7777, (long)buf};
	ck_assert_int_eq(syscall_writes(SYS_ioctl, unknown, 0, r), -1);
}
END_TEST

START_TEST(commands_decide)
{
	char buf[256];
	int word;
	struct mem_range r[SYSCALL_MAX_RANGES];
	const long getlk[6] = {3, 5 /* F_GETLK */, (long)buf};
	ck_assert_int_eq(syscall_writes(SYS_fcntl, getlk, 0, r), 1);
	assert_range(&r[0], buf, 32);
	const long getfl[6] = {3, 3 /* F_GETFL */, (long)buf};
	ck_assert_int_eq(syscall_writes(SYS_fcntl, getfl, 2, r), 0);
	const long name[6] = {16 /* PR_GET_NAME */, (long)buf};
	ck_assert_int_eq(syscall_writes(SYS_prctl, name, 0, r), 1);
	assert_range(&r[0], buf, 16);
	const long wake_op[6] = {(long)&word, FUTEX_WAKE_OP | FUTEX_PRIVATE_FLAG, 1, 0, (long)buf};
	ck_assert_int_eq(syscall_writes(SYS_futex, wake_op, 1, r), 1);
	assert_range(&r[0], buf, 4);
	const long wait[6] = {(long)&word, FUTEX_WAIT, 1};
	ck_assert_int_eq(syscall_writes(SYS_futex, wait, 0, r), 0);
	const long thread[6] = {CLONE_VM | CLONE_THREAD | CLONE_PARENT_SETTID | CLONE_CHILD_SETTID,
				0, (long)buf, (long)&word};
	ck_assert_int_eq(syscall_writes(SYS_clone, thread, 1234, r), 2);
	assert_range(&r[0], buf, 4);
	assert_range(&r[1], &word, 4);
	const long fork_like[6] = {CLONE_CHILD_SETTID, 0, 0, (long)&word};
	ck_assert_int_eq(syscall_writes(SYS_clone, fork_like, 1234, r), 0);
}
END_TEST

START_TEST(a_mapped_file_arrives_as_written_memory)
{
	struct mem_range r[SYSCALL_MAX_RANGES];
	const long file[6] = {0, 8192, PROT_READ, MAP_PRIVATE, 3, 0};
	ck_assert_int_eq(syscall_writes(SYS_mmap, file, 0x10000, r), 1);
	ck_assert_uint_eq(r[0].addr, 0x10000);
	ck_assert_uint_eq(r[0].len, 8192);
	const long anon[6] = {0, 8192, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0};
	ck_assert_int_eq(syscall_writes(SYS_mmap, anon, 0x10000, r), 0);
	ck_assert_int_eq(syscall_writes(SYS_mmap, file, -ENOMEM, r), 0);
}
END_TEST

START_TEST(bad_pointers_give_no_range)
{
	struct mem_range r[SYSCALL_MAX_RANGES];
	const long args[6] = {3, 16 /* unmapped */, 0};
	ck_assert_int_eq(syscall_writes(SYS_recvmsg, args, 10, r), 0);
	const long iov[6] = {3, 16, 4};
	ck_assert_int_eq(syscall_writes(SYS_readv, iov, 10, r), 0);
}
END_TEST

/* Which calls may wait for another thread: a recorder keeps running one thread through
 * those that cannot. */
START_TEST(waits_for_other_threads)
{
	int fd_arg = -1;
	const long wake[6] = {0, FUTEX_WAKE_PRIVATE, 1}, wait[6] = {0, FUTEX_WAIT_PRIVATE, 1};
	const long setlkw[6] = {3, F_SETLKW}, getfl[6] = {3, F_GETFL}, none[6] = {0};
	ck_assert_int_eq(syscall_wait_kind(SYS_futex, wake, &fd_arg), SYSCALL_WAITS_NEVER);
	ck_assert_int_eq(syscall_wait_kind(SYS_futex, wait, &fd_arg), SYSCALL_MAY_WAIT);
	ck_assert_int_eq(syscall_wait_kind(SYS_fcntl, setlkw, &fd_arg), SYSCALL_MAY_WAIT);
	ck_assert_int_eq(syscall_wait_kind(SYS_fcntl, getfl, &fd_arg), SYSCALL_WAITS_NEVER);
	ck_assert_int_eq(syscall_wait_kind(SYS_mmap, none, &fd_arg), SYSCALL_WAITS_NEVER);
	ck_assert_int_eq(syscall_wait_kind(SYS_wait4, none, &fd_arg), SYSCALL_MAY_WAIT);
	ck_assert_int_eq(syscall_wait_kind(SYS_nanosleep, none, &fd_arg), SYSCALL_MAY_WAIT);
	ck_assert_int_eq(syscall_wait_kind(SYS_openat, none, &fd_arg), SYSCALL_MAY_WAIT);
	ck_assert_int_eq(syscall_wait_kind(SYS_pwrite64, none, &fd_arg), SYSCALL_WAITS_ON_FD);
	ck_assert_int_eq(fd_arg, 0);
}
END_TEST

Suite *syscall_model_suite(void)
{
	Suite *s = suite_create("syscall_model");
	TCase *tc = tcase_create("core");
	tcase_add_test(tc, every_kernel_syscall_is_classified);
	tcase_add_test(tc, nothing_else_is_classified);
	tcase_add_test(tc, every_syscall_has_modelled_writes);
	tcase_add_test(tc, replay_treatment);
	tcase_add_test(tc, buffers_sized_by_the_result);
	tcase_add_test(tc, iovecs_filled_in_order);
	tcase_add_test(tc, received_message_and_its_lengths);
	tcase_add_test(tc, socket_address_lengths);
	tcase_add_test(tc, ioctl_requests);
	tcase_add_test(tc, commands_decide);
	tcase_add_test(tc, a_mapped_file_arrives_as_written_memory);
	tcase_add_test(tc, bad_pointers_give_no_range);
	tcase_add_test(tc, waits_for_other_threads);
	suite_add_tcase(s, tc);
	return s;
}
