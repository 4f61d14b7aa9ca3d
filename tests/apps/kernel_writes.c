/* System calls whose only effect beyond their result is what the kernel writes into the
 * caller's memory, some through optional output arguments (issue 19 items 17 and 26).
 * Every output buffer is filled with 0xa5 first, and every byte of it is printed after the
 * call with the result: a replay that lost a memory effect prints the fill instead. The few
 * fields that change from run to run (the time, a timer's remaining time) are printed as
 * what stays the same about them. */
#include <errno.h>
#include <fcntl.h>
#include <linux/capability.h>
#include <linux/sched.h>
#include <mqueue.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/timex.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

enum { FILL = 0xa5 };

static void *filled(void *buf, size_t len)
{
	return memset(buf, FILL, len);
}

/* "name: result (errno)" and the buffer's bytes in hex. */
static void show(const char *name, long r, const void *buf, size_t len)
{
	printf("%-24s %ld", name, r);
	if (r < 0)
		printf(" (%s)", strerror(errno));
	for (size_t i = 0; i < len; i++)
		printf("%s%02x", i % 32 ? "" : "\n    ", ((const unsigned char *)buf)[i]);
	printf("\n");
}

static void capabilities(void)
{
	struct __user_cap_header_struct h;
	struct __user_cap_data_struct d[2];
	filled(&h, sizeof h);
	filled(d, sizeof d);
	h.version = _LINUX_CAPABILITY_VERSION_3;
	h.pid = 0;
	show("capget", syscall(SYS_capget, &h, d), d, sizeof d);
}

static void timers(void)
{
	struct sigevent ev = {.sigev_notify = SIGEV_NONE};
	timer_t id;
	filled(&id, sizeof id);
	long r = syscall(SYS_timer_create, CLOCK_MONOTONIC, &ev, &id);
	show("timer_create", r, &id, sizeof id);
	struct itimerspec set = {.it_value = {1000, 0}}, now;
	syscall(SYS_timer_settime, id, 0, &set, NULL);
	filled(&now, sizeof now);
	r = syscall(SYS_timer_gettime, id, &now);
	/* The remaining time moves on: what stays is that about 1000 s remain. */
	printf("timer_gettime            %ld remaining %lds, interval %ld.%09ld\n", r,
	       (long)(now.it_value.tv_sec + 1) / 10 * 10, (long)now.it_interval.tv_sec,
	       (long)now.it_interval.tv_nsec);
	syscall(SYS_timer_delete, id);
}

/* The kernel's clock state, read only (modes 0); the time itself and the frequency the
 * clock discipline adjusts are shown as written or not. */
static void show_timex(const char *name, long r, const struct timex *t)
{
	printf("%-24s %ld status %d constant %ld precision %ld tolerance %ld tick %ld tai %d "
	       "time %s\n",
	       name, r, t->status, t->constant, t->precision, t->tolerance, t->tick, t->tai,
	       t->time.tv_sec > 1000000000 ? "written" : "NOT written");
}

static void clock_state(void)
{
	struct timex t;
	filled(&t, sizeof t);
	t.modes = 0;
	show_timex("adjtimex", syscall(SYS_adjtimex, &t), &t);
	filled(&t, sizeof t);
	t.modes = 0;
	show_timex("clock_adjtime", syscall(SYS_clock_adjtime, CLOCK_REALTIME, &t), &t);
}

static void scheduling(void)
{
	unsigned char attr[56]; /* struct sched_attr as of Linux 4.13 */
	filled(attr, sizeof attr);
	show("sched_getattr", syscall(SYS_sched_getattr, 0, attr, sizeof attr, 0), attr,
	     sizeof attr);
}

static void many_messages(void)
{
	int sv[2];
	if (socketpair(AF_UNIX, SOCK_DGRAM, 0, sv) < 0) {
		show("socketpair", -1, NULL, 0);
		return;
	}
	char out[3][8] = {"first", "second", "third"};
	struct iovec oiov[3];
	struct mmsghdr omsg[3];
	memset(omsg, 0, sizeof omsg);
	for (int i = 0; i < 3; i++) {
		oiov[i] = (struct iovec){out[i], strlen(out[i])};
		omsg[i].msg_hdr.msg_iov = &oiov[i];
		omsg[i].msg_hdr.msg_iovlen = 1;
		omsg[i].msg_len = 0xa5a5a5a5;
	}
	long r = syscall(SYS_sendmmsg, sv[0], omsg, 3, 0);
	printf("sendmmsg                 %ld lengths %u %u %u\n", r, omsg[0].msg_len,
	       omsg[1].msg_len, omsg[2].msg_len);
	char in[3][8];
	struct iovec iiov[3];
	struct mmsghdr imsg[3];
	memset(imsg, 0, sizeof imsg);
	filled(in, sizeof in);
	for (int i = 0; i < 3; i++) {
		iiov[i] = (struct iovec){in[i], sizeof in[i]};
		imsg[i].msg_hdr.msg_iov = &iiov[i];
		imsg[i].msg_hdr.msg_iovlen = 1;
		imsg[i].msg_len = 0xa5a5a5a5;
	}
	r = syscall(SYS_recvmmsg, sv[1], imsg, 3, MSG_DONTWAIT, NULL);
	printf("recvmmsg lengths         %u %u %u\n", imsg[0].msg_len, imsg[1].msg_len,
	       imsg[2].msg_len);
	show("recvmmsg", r, in, sizeof in);
	close(sv[0]);
	close(sv[1]);
}

static void other_process_memory(void)
{
	static const char secret[24] = "read through the kernel";
	char copy[24];
	filled(copy, sizeof copy);
	struct iovec local = {copy, sizeof copy}, remote = {(void *)secret, sizeof secret};
	show("process_vm_readv", syscall(SYS_process_vm_readv, getpid(), &local, 1, &remote, 1, 0),
	     copy, sizeof copy);
}

static void message_queue(void)
{
	char name[32];
	snprintf(name, sizeof name, "/pintrace-kw-%d", (int)getpid());
	struct mq_attr attr = {.mq_maxmsg = 4, .mq_msgsize = 16};
	mqd_t q = mq_open(name, O_RDWR | O_CREAT | O_EXCL, 0600, &attr);
	if (q == (mqd_t)-1) {
		show("mq_open", -1, NULL, 0);
		return;
	}
	mq_unlink(name);
	mq_send(q, "queued", 6, 7);
	struct mq_attr now;
	filled(&now, sizeof now);
	show("mq_getsetattr", syscall(SYS_mq_getsetattr, q, NULL, &now), &now, sizeof now);
	char msg[16];
	unsigned prio;
	filled(msg, sizeof msg);
	filled(&prio, sizeof prio);
	struct timespec when = {0, 0};
	show("mq_timedreceive", syscall(SYS_mq_timedreceive, q, msg, sizeof msg, &prio, &when), msg,
	     sizeof msg);
	show("  its priority", 0, &prio, sizeof prio);
	mq_close(q);
}

static void ioctls(void)
{
	int p[2];
	if (pipe(p) < 0)
		return;
	write(p[1], "12345", 5);
	int avail;
	filled(&avail, sizeof avail);
	show("ioctl FIONREAD", syscall(SYS_ioctl, p[0], FIONREAD, &avail), &avail, sizeof avail);
	struct termios tio;
	filled(&tio, sizeof tio);
	show("ioctl TCGETS pipe", syscall(SYS_ioctl, p[0], TCGETS, &tio), &tio, sizeof tio);
	close(p[0]);
	close(p[1]);
	int master = posix_openpt(O_RDWR | O_NOCTTY);
	if (master < 0 || grantpt(master) < 0 || unlockpt(master) < 0) {
		printf("no pty here\n");
		return;
	}
	int slave = open(ptsname(master), O_RDWR | O_NOCTTY);
	filled(&tio, sizeof tio);
	show("ioctl TCGETS pty", syscall(SYS_ioctl, slave, TCGETS, &tio), &tio, sizeof tio);
	close(slave);
	close(master);
}

static void control_calls(void)
{
	uint64_t features;
	filled(&features, sizeof features);
	show("ARCH_GET_XCOMP_SUPP", syscall(SYS_arch_prctl, 0x1021, &features), &features,
	     sizeof features);
	int p[2];
	if (pipe(p) < 0)
		return;
	struct f_owner_ex owner;
	filled(&owner, sizeof owner);
	show("F_GETOWN_EX", syscall(SYS_fcntl, p[0], F_GETOWN_EX, &owner), &owner, sizeof owner);
	close(p[0]);
	close(p[1]);
	FILE *f = tmpfile();
	uint64_t hint;
	filled(&hint, sizeof hint);
	show("F_GET_RW_HINT", syscall(SYS_fcntl, fileno(f), F_GET_RW_HINT, &hint), &hint,
	     sizeof hint);
	fclose(f);
	char comm[16];
	filled(comm, sizeof comm);
	show("PR_GET_NAME", syscall(SYS_prctl, PR_GET_NAME, comm, 0, 0, 0), comm, sizeof comm);
	show("PR_GET_DUMPABLE", syscall(SYS_prctl, PR_GET_DUMPABLE, 0, 0, 0, 0), NULL, 0);
	int deathsig;
	filled(&deathsig, sizeof deathsig);
	show("PR_GET_PDEATHSIG", syscall(SYS_prctl, PR_GET_PDEATHSIG, &deathsig, 0, 0, 0),
	     &deathsig, sizeof deathsig);
}

/* A temporary file holding `text`. */
static int file_with(const char *text)
{
	FILE *f = tmpfile();
	int fd = dup(fileno(f));
	fclose(f);
	write(fd, text, strlen(text));
	return fd;
}

static void copies_with_offsets(void)
{
	int from = file_with("0123456789abcdef"), to = file_with("");
	loff_t in_off = 4, out_off = 2;
	show("sendfile", syscall(SYS_sendfile, to, from, &in_off, 5), &in_off, sizeof in_off);
	in_off = 10;
	show("copy_file_range", syscall(SYS_copy_file_range, from, &in_off, to, &out_off, 3, 0),
	     &in_off, sizeof in_off);
	show("  its out offset", 0, &out_off, sizeof out_off);
	int p[2];
	if (pipe(p) == 0) {
		in_off = 1;
		show("splice", syscall(SYS_splice, from, &in_off, p[1], NULL, 6, 0), &in_off,
		     sizeof in_off);
		close(p[0]);
		close(p[1]);
	}
	char whole[24];
	filled(whole, sizeof whole);
	show("pread", pread(to, whole, sizeof whole, 0), whole, sizeof whole);
	close(from);
	close(to);
}

static void clone_pidfd(void)
{
	int pidfd;
	filled(&pidfd, sizeof pidfd);
	long pid = syscall(SYS_clone, CLONE_PIDFD | SIGCHLD, 0, &pidfd, 0, 0);
	if (pid == 0)
		syscall(SYS_exit, 7);
	printf("clone CLONE_PIDFD        %s\n", pid > 0 ? "a child" : strerror(errno));
	show("  its pidfd", 0, &pidfd, sizeof pidfd);
	siginfo_t info = {0};
	long r = syscall(SYS_waitid, P_PIDFD, pidfd, &info, WEXITED, NULL);
	printf("waitid P_PIDFD           %ld code %d status %d\n", r, info.si_code, info.si_status);
	close(pidfd);
}

int main(void)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	capabilities();
	timers();
	clock_state();
	scheduling();
	many_messages();
	other_process_memory();
	message_queue();
	ioctls();
	control_calls();
	copies_with_offsets();
	clone_pidfd();
	return 0;
}
