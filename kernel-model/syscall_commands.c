/* The syscalls whose memory a command or a structure decides. Each adds to the ranges the
 * table found from the arguments alone; r->after tells whether the written ranges are
 * wanted (the result known) or those the kernel may access before the call. */
#include <linux/futex.h>
#include <linux/sched.h>
#include <stddef.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/syscall.h>

#include "syscall_ranges.h"

enum { MSGHDR = 56, MMSGHDR = 64, IFREQ = 40, CLONE_ARGS_MIN = 64 };

/* A written buffer of `len` bytes: only once the call succeeded, or before it. */
static void out(struct ranges *r, uint64_t addr, uint64_t len)
{
	if (!r->after || ranges_call_ok(r))
		ranges_add(r, addr, len);
}

/* A buffer that only the call's input reads. */
static void in(struct ranges *r, uint64_t addr, uint64_t len)
{
	if (!r->after)
		ranges_add(r, addr, len);
}

/* A buffer the call fills with `result` bytes (at most its capacity). */
static void out_result(struct ranges *r, uint64_t addr, uint64_t capacity)
{
	if (!r->after)
		ranges_add(r, addr, capacity);
	else if (r->result > 0)
		ranges_add(r, addr,
			   (uint64_t)r->result < capacity ? (uint64_t)r->result : capacity);
}

/* Requests without the _IOC encoding (terminals, sockets, files): what they write. */
static int legacy_ioctl_size(unsigned long req)
{
	switch (req) {
	case 0x5401: /* TCGETS */
	case 0x5456: /* TIOCGLCKTRMIOS */
		return 36;
	case 0x5405: /* TCGETA */
		return 18;
	case 0x540F: /* TIOCGPGRP */
	case 0x5411: /* TIOCOUTQ */
	case 0x5415: /* TIOCMGET */
	case 0x5419: /* TIOCGSOFTCAR */
	case 0x541B: /* FIONREAD */
	case 0x5424: /* TIOCGETD */
	case 0x5429: /* TIOCGSID */
	case 0x8905: /* SIOCATMARK */
	case 0x894B: /* SIOCOUTQNSD */
	case 0x0001: /* FIBMAP */
	case 0x0002: /* FIGETBSZ */
	case 0x1268: /* BLKSSZGET */
		return 4;
	case 0x5413: /* TIOCGWINSZ */
	case 0x5460: /* FIOQSIZE */
	case 0x1260: /* BLKGETSIZE */
		return 8;
	case 0x541E: /* TIOCGSERIAL */
		return 72;
	case 0x545D: /* TIOCGICOUNT */
		return 80;
	case 0x8906: /* SIOCGSTAMP */
	case 0x8907: /* SIOCGSTAMPNS */
		return 16;
	case 0x8910: /* SIOCGIFNAME */
	case 0x8913: /* SIOCGIFFLAGS */
	case 0x8915: /* SIOCGIFADDR */
	case 0x8917: /* SIOCGIFDSTADDR */
	case 0x8919: /* SIOCGIFBRDADDR */
	case 0x891b: /* SIOCGIFNETMASK */
	case 0x891d: /* SIOCGIFMETRIC */
	case 0x8921: /* SIOCGIFMTU */
	case 0x8927: /* SIOCGIFHWADDR */
	case 0x8933: /* SIOCGIFINDEX */
	case 0x8935: /* SIOCGIFPFLAGS */
	case 0x8942: /* SIOCGIFTXQLEN */
	case 0x8970: /* SIOCGIFMAP */
		return IFREQ;
	/* Requests that write nothing (setters, flushes, flags). */
	case 0x5402: /* TCSETS */
	case 0x5403: /* TCSETSW */
	case 0x5404: /* TCSETSF */
	case 0x5406: /* TCSETA */
	case 0x5407: /* TCSETAW */
	case 0x5408: /* TCSETAF */
	case 0x5409: /* TCSBRK */
	case 0x540A: /* TCXONC */
	case 0x540B: /* TCFLSH */
	case 0x540C: /* TIOCEXCL */
	case 0x540D: /* TIOCNXCL */
	case 0x540E: /* TIOCSCTTY */
	case 0x5410: /* TIOCSPGRP */
	case 0x5412: /* TIOCSTI */
	case 0x5414: /* TIOCSWINSZ */
	case 0x5416: /* TIOCMBIS */
	case 0x5417: /* TIOCMBIC */
	case 0x5418: /* TIOCMSET */
	case 0x541A: /* TIOCSSOFTCAR */
	case 0x541D: /* TIOCCONS */
	case 0x541F: /* TIOCSSERIAL */
	case 0x5420: /* TIOCPKT */
	case 0x5421: /* FIONBIO */
	case 0x5422: /* TIOCNOTTY */
	case 0x5423: /* TIOCSETD */
	case 0x5425: /* TCSBRKP */
	case 0x5427: /* TIOCSBRK */
	case 0x5428: /* TIOCCBRK */
	case 0x5450: /* FIONCLEX */
	case 0x5451: /* FIOCLEX */
	case 0x5452: /* FIOASYNC */
	case 0x5457: /* TIOCSLCKTRMIOS */
	case 0x545C: /* TIOCMIWAIT */
	case 0x8914: /* SIOCSIFFLAGS */
	case 0x8916: /* SIOCSIFADDR */
	case 0x8922: /* SIOCSIFMTU */
		return 0;
	default:
		return -1;
	}
}

static void ioctl_ranges(const long a[6], struct ranges *r)
{
	unsigned long req = (unsigned long)a[1] & 0xffffffffu;
	unsigned dir = (unsigned)(req >> 30) & 3, size = (unsigned)(req >> 16) & 0x3fff;
	if (req == 0x8912) { /* SIOCGIFCONF: struct ifconf {int len; char *buf} */
		struct {
			int32_t len, pad;
			uint64_t buf;
		} conf;
		if (!ranges_read(&conf, (uint64_t)a[2], sizeof conf))
			return;
		out(r, (uint64_t)a[2], sizeof conf);
		if (conf.len > 0)
			out(r, conf.buf, (uint64_t)conf.len);
		return;
	}
	if (req >> 16) { /* _IOC encoded: _IOC_READ means the kernel writes `size` bytes */
		if (dir & 2)
			out(r, (uint64_t)a[2], size);
		else if (dir & 1)
			in(r, (uint64_t)a[2], size);
		return;
	}
	int n = legacy_ioctl_size(req);
	if (n < 0)
		r->unmodelled = true;
	else
		out(r, (uint64_t)a[2], (uint64_t)n);
}

static void fcntl_ranges(const long a[6], struct ranges *r)
{
	switch (a[1]) {
	case 5:	 /* F_GETLK */
	case 36: /* F_OFD_GETLK */
		out(r, (uint64_t)a[2], 32);
		break;
	case 6:	 /* F_SETLK */
	case 7:	 /* F_SETLKW */
	case 37: /* F_OFD_SETLK */
	case 38: /* F_OFD_SETLKW */
		in(r, (uint64_t)a[2], 32);
		break;
	case 16: /* F_GETOWN_EX */
		out(r, (uint64_t)a[2], 8);
		break;
	case 1035: /* F_GET_RW_HINT */
	case 1037: /* F_GET_FILE_RW_HINT */
		out(r, (uint64_t)a[2], 8);
		break;
	}
}

static void prctl_ranges(const long a[6], struct ranges *r)
{
	switch (a[0]) {
	case 2:	 /* PR_GET_PDEATHSIG */
	case 5:	 /* PR_GET_UNALIGN */
	case 9:	 /* PR_GET_FPEMU */
	case 11: /* PR_GET_FPEXC */
	case 19: /* PR_GET_ENDIAN */
	case 25: /* PR_GET_TSC */
	case 37: /* PR_GET_CHILD_SUBREAPER */
		out(r, (uint64_t)a[1], 4);
		break;
	case 16: /* PR_GET_NAME */
		out(r, (uint64_t)a[1], 16);
		break;
	case 40: /* PR_GET_TID_ADDRESS */
		out(r, (uint64_t)a[1], 8);
		break;
	case 35: /* PR_SET_MM, PR_SET_MM_MAP_SIZE */
		if (a[1] == 15)
			out(r, (uint64_t)a[2], 4);
		break;
	case 0x41555856: /* PR_GET_AUXV: returns the full size, writes what fits */
		out_result(r, (uint64_t)a[1], (uint64_t)a[2]);
		break;
	}
}

static void arch_prctl_ranges(const long a[6], struct ranges *r)
{
	switch (a[0]) {
	case 0x1003: /* ARCH_GET_FS */
	case 0x1004: /* ARCH_GET_GS */
	case 0x1021: /* ARCH_GET_XCOMP_SUPP */
	case 0x1022: /* ARCH_GET_XCOMP_PERM */
	case 0x1024: /* ARCH_GET_XCOMP_GUEST_PERM */
	case 0x5005: /* ARCH_SHSTK_STATUS */
		out(r, (uint64_t)a[1], 8);
		break;
	}
}

/* struct msghdr: name, namelen, iov, iovlen, control, controllen, flags. */
struct msghdr64 {
	uint64_t name;
	uint32_t namelen, pad0;
	uint64_t iov, iovlen, control, controllen;
	int32_t flags, pad1;
};

/* One message of recvmsg/recvmmsg (received: `received` bytes, -1 before the call); the
 * header as it is after the call gives the final name and control lengths. */
static void received_message(uint64_t hdr, long received, struct ranges *r)
{
	struct msghdr64 m;
	if (!ranges_read(&m, hdr, sizeof m))
		return;
	ranges_add(r, hdr, sizeof m);
	ranges_add_iov(r, m.iov, (long)m.iovlen, received);
	ranges_add(r, m.name, m.namelen);
	ranges_add(r, m.control, m.controllen);
}

/* A message sendmsg/sendmmsg reads (before the call only). */
static void sent_message(uint64_t hdr, struct ranges *r)
{
	struct msghdr64 m;
	if (r->after || !ranges_read(&m, hdr, sizeof m))
		return;
	ranges_add(r, hdr, sizeof m);
	ranges_add_iov(r, m.iov, (long)m.iovlen, -1);
	ranges_add(r, m.name, m.namelen);
	ranges_add(r, m.control, m.controllen);
}

static void mmsg_ranges(long nr, const long a[6], struct ranges *r)
{
	/* After the call, result messages were received or sent: their msg_len was written. */
	long n = r->after ? r->result : a[2];
	for (long i = 0; i < n && i < 1024; i++) {
		uint64_t hdr = (uint64_t)a[1] + (uint64_t)i * MMSGHDR;
		uint32_t len = 0;
		if (nr == SYS_recvmmsg) {
			if (r->after && !ranges_read(&len, hdr + MSGHDR, sizeof len))
				return;
			received_message(hdr, r->after ? (long)len : -1, r);
		} else {
			sent_message(hdr, r);
		}
		ranges_add(r, hdr + MSGHDR, 4);
	}
}

/* Who gets the child's tid or pidfd written: the parent's memory, and with CLONE_VM the
 * child's too (it is ours). */
static void clone_ranges(uint64_t flags, uint64_t pidfd, uint64_t parent_tid, uint64_t child_tid,
			 struct ranges *r)
{
	if (flags & CLONE_PIDFD)
		out(r, pidfd, 4);
	if (flags & CLONE_PARENT_SETTID)
		out(r, parent_tid, 4);
	if ((flags & CLONE_VM) && (flags & CLONE_CHILD_SETTID))
		out(r, child_tid, 4);
}

static void clone3_ranges(const long a[6], struct ranges *r)
{
	struct {
		uint64_t flags, pidfd, child_tid, parent_tid;
	} args;
	if ((uint64_t)a[1] < CLONE_ARGS_MIN || !ranges_read(&args, (uint64_t)a[0], sizeof args))
		return;
	in(r, (uint64_t)a[0], (uint64_t)a[1]);
	clone_ranges(args.flags, args.pidfd, args.parent_tid, args.child_tid, r);
}

static void futex_ranges(const long a[6], struct ranges *r)
{
	switch (a[1] & FUTEX_CMD_MASK) {
	case FUTEX_WAKE_OP: /* the operation stores into the second word */
		out(r, (uint64_t)a[4], 4);
		break;
	case FUTEX_LOCK_PI:
	case FUTEX_LOCK_PI2:
	case FUTEX_UNLOCK_PI:
	case FUTEX_TRYLOCK_PI:
	case FUTEX_WAIT_REQUEUE_PI:
	case FUTEX_CMP_REQUEUE_PI: /* the kernel writes the owner's tid into the word */
		out(r, (uint64_t)a[0], 4);
		break;
	}
}

/* System V IPC: the *_STAT commands fill the *id_ds structure, the *_INFO ones an info
 * structure; a semaphore set's values (GETALL) have a size only the kernel knows. */
struct ipc_commands {
	int stat[3], info[2];
	uint64_t ds, info_size;
};

static const struct ipc_commands shm_commands = {{2, 13, 15}, {3, 14}, 112, 112};
static const struct ipc_commands msg_commands = {{2, 11, 13}, {3, 12}, 120, 32};
static const struct ipc_commands sem_commands = {{2, 18, 20}, {3, 19}, 104, 40};

static void ipc_ctl_ranges(long nr, const long a[6], struct ranges *r)
{
	const struct ipc_commands *c = nr == SYS_shmctl	  ? &shm_commands
				       : nr == SYS_msgctl ? &msg_commands
							  : &sem_commands;
	int cmd = (int)(nr == SYS_semctl ? a[2] : a[1]) & 0xff; /* without IPC_64 */
	uint64_t buf = (uint64_t)(nr == SYS_semctl ? a[3] : a[2]);
	if (cmd == c->stat[0] || cmd == c->stat[1] || cmd == c->stat[2])
		out(r, buf, c->ds);
	else if (cmd == c->info[0] || cmd == c->info[1])
		out(r, buf, c->info_size);
	else if (cmd == 1) /* IPC_SET */
		in(r, buf, c->ds);
	else if (nr == SYS_semctl && cmd == 13) /* GETALL */
		r->unmodelled = true;
}

static void quotactl_ranges(unsigned long cmd, uint64_t addr, struct ranges *r)
{
	switch (cmd >> 8) {
	case 0x800004: /* Q_GETFMT */
		out(r, addr, 4);
		break;
	case 0x800005: /* Q_GETINFO */
		out(r, addr, 24);
		break;
	case 0x800007: /* Q_GETQUOTA */
		out(r, addr, 72);
		break;
	case 0x800009: /* Q_GETNEXTQUOTA */
		out(r, addr, 80);
		break;
	case 0x5803: /* Q_XGETQUOTA */
	case 0x5809: /* Q_XGETNEXTQUOTA */
		out(r, addr, 112);
		break;
	case 0x5805: /* Q_XGETQSTAT */
		out(r, addr, 80);
		break;
	case 0x5808: /* Q_XGETQSTATV */
		out(r, addr, 160);
		break;
	}
}

static void bpf_ranges(const long a[6], struct ranges *r)
{
	switch (a[0]) {
	case 1:	 /* BPF_MAP_LOOKUP_ELEM: a value of the map's size */
	case 4:	 /* BPF_MAP_GET_NEXT_KEY: a key of the map's size */
	case 15: /* BPF_OBJ_GET_INFO_BY_FD: an info structure of its own size */
		r->unmodelled = true;
		break;
	case 5: { /* BPF_PROG_LOAD: the verifier's log */
		struct {
			uint32_t type, insn_cnt;
			uint64_t insns, license;
			uint32_t log_level, log_size;
			uint64_t log_buf;
		} attr;
		if (ranges_read(&attr, (uint64_t)a[1], sizeof attr) && attr.log_level)
			out(r, attr.log_buf, attr.log_size);
		out(r, (uint64_t)a[1], (uint64_t)a[2]);
		break;
	}
	default: /* the attribute union may be updated */
		out(r, (uint64_t)a[1], (uint64_t)a[2]);
		break;
	}
}

void syscall_command_ranges(long nr, const long a[6], struct ranges *r)
{
	switch (nr) {
	case SYS_ioctl:
		ioctl_ranges(a, r);
		break;
	case SYS_fcntl:
		fcntl_ranges(a, r);
		break;
	case SYS_prctl:
		prctl_ranges(a, r);
		break;
	case SYS_arch_prctl:
		arch_prctl_ranges(a, r);
		break;
	case SYS_mmap: /* a file's contents arrive in memory: the kernel's writes */
		if (r->after && ranges_call_ok(r) && !(a[3] & MAP_ANONYMOUS))
			ranges_add(r, (uint64_t)r->result, (uint64_t)a[1]);
		break;
	case SYS_mincore:
		out(r, (uint64_t)a[2], ((uint64_t)a[1] + 4095) / 4096);
		break;
	case SYS_recvmsg:
		if (!r->after || r->result >= 0)
			received_message((uint64_t)a[1], r->after ? r->result : -1, r);
		break;
	case SYS_sendmsg:
		sent_message((uint64_t)a[1], r);
		break;
	case SYS_recvmmsg:
	case SYS_sendmmsg:
		mmsg_ranges(nr, a, r);
		break;
	case SYS_clone:
		clone_ranges((uint64_t)a[0], (uint64_t)a[2], (uint64_t)a[2], (uint64_t)a[3], r);
		break;
	case SYS_clone3:
		clone3_ranges(a, r);
		break;
	case SYS_futex:
		futex_ranges(a, r);
		break;
	case SYS_shmctl:
	case SYS_msgctl:
	case SYS_semctl:
		ipc_ctl_ranges(nr, a, r);
		break;
	case SYS_msgsnd: /* long mtype, then the text */
		in(r, (uint64_t)a[1], 8 + (uint64_t)a[2]);
		break;
	case SYS_msgrcv:
		out_result(r, (uint64_t)a[1], 8 + (uint64_t)a[2]);
		if (r->after && r->result >= 0)
			ranges_add(r, (uint64_t)a[1], 8);
		break;
	case SYS_ptrace:
		switch (a[0]) {
		case 1:	     /* PTRACE_PEEKTEXT */
		case 2:	     /* PTRACE_PEEKDATA */
		case 3:	     /* PTRACE_PEEKUSER */
		case 0x4201: /* PTRACE_GETEVENTMSG */
			out(r, (uint64_t)a[3], 8);
			break;
		case 12: /* PTRACE_GETREGS */
			out(r, (uint64_t)a[3], 216);
			break;
		case 14: /* PTRACE_GETFPREGS */
			out(r, (uint64_t)a[3], 512);
			break;
		case 0x4202: /* PTRACE_GETSIGINFO */
			out(r, (uint64_t)a[3], 128);
			break;
		case 0x4204: /* PTRACE_GETREGSET: an iovec, its length updated */
			out(r, (uint64_t)a[3], 16);
			ranges_add_iov(r, (uint64_t)a[3], 1, -1);
			break;
		case 0x420a: /* PTRACE_GETSIGMASK */
		case 0x420e: /* PTRACE_GET_SYSCALL_INFO */
			out(r, (uint64_t)a[3], (uint64_t)a[2]);
			break;
		}
		break;
	case SYS_syslog:
		if (a[0] >= 2 && a[0] <= 4) /* the READ actions */
			out_result(r, (uint64_t)a[1], (uint64_t)a[2]);
		break;
	case SYS_sysfs:
		if (a[0] == 2) /* the file system's name */
			out(r, (uint64_t)a[2], 256);
		break;
	case SYS_modify_ldt:
		if (a[0] == 0 || a[0] == 2)
			out_result(r, (uint64_t)a[1], (uint64_t)a[2]);
		else
			in(r, (uint64_t)a[1], (uint64_t)a[2]);
		break;
	case SYS_quotactl:
		quotactl_ranges((unsigned long)a[0], (uint64_t)a[3], r);
		break;
	case SYS_quotactl_fd:
		quotactl_ranges((unsigned long)a[1], (uint64_t)a[3], r);
		break;
	case SYS_get_mempolicy: /* maxnode bits, in whole longs */
		out(r, (uint64_t)a[1], ((uint64_t)a[2] + 63) / 64 * 8);
		break;
	case SYS_keyctl:
		if (a[0] == 6 || a[0] == 11 || a[0] == 17 || a[0] == 23)
			out_result(r, (uint64_t)a[2], (uint64_t)a[3]);
		break;
	case SYS_name_to_handle_at: { /* struct file_handle: its bytes field, then the handle */
		uint32_t bytes;
		if (ranges_read(&bytes, (uint64_t)a[2], sizeof bytes))
			out(r, (uint64_t)a[2], 8 + (uint64_t)(bytes < 128 ? bytes : 128));
		break;
	}
	case SYS_bpf:
		bpf_ranges(a, r);
		break;
	}
}
