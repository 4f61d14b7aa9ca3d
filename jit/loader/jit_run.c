/* Start-up on the driver's main thread: find and load the program, build its stack, set
 * up the runtime, and enter the code cache for good. glibc is fine here. */
#include "jit.h"

#include <fcntl.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "../app_map.h"
#include "../app_memory.h"
#include "../block.h"
#include "../config.h"
#include "../cpuid_table.h"
#include "../dispatcher.h"
#include "../messages.h"
#include "../perf_map.h"
#include "../persist.h"
#include "../runtime_lock.h"
#include "../seccomp.h"
#include "../signals.h"
#include "../threads.h"
#include "../translate.h"
#include "elf_map.h"
#include "initial_stack.h"
#include "program.h"
#include "stress_stop.h"
#include "watch.h"

/* The runtime's own copy of stderr, out of the app's way. */
static int private_stderr(void)
{
	int fd = fcntl(2, F_DUPFD_CLOEXEC, 3);
	if (fd < 0)
		fd = open("/dev/null", O_WRONLY | O_CLOEXEC);
	return fd < 0 ? fd : jit_runtime_fd(fd);
}

static char *join_strings(char *const *argv, size_t *len)
{
	size_t n = 0;
	for (int i = 0; argv[i]; i++)
		n += strlen(argv[i]) + 1;
	char *buf = malloc(n ? n : 1);
	size_t at = 0;
	for (int i = 0; buf && argv[i]; i++) {
		size_t l = strlen(argv[i]) + 1;
		memcpy(buf + at, argv[i], l);
		at += l;
	}
	*len = n;
	return buf;
}

/* The image's segments join the app's memory map; the executable ones go to the clients. */
static void report_image(const char *path, const struct elf_image *img)
{
	for (int i = 0; i < img->segment_count; i++) {
		const struct elf_segment *s = &img->segments[i];
		app_map_add(s->start, s->end, s->prot, MAP_PRIVATE | MAP_FIXED, s->offset, path);
		if (s->prot & PROT_EXEC)
			instrument_image_mapped(path, s->start, s->end, s->offset);
	}
}

static void set_process_name(const char *exec_path)
{
	char copy[PATH_MAX];
	snprintf(copy, sizeof copy, "%s", exec_path);
	prctl(PR_SET_NAME, basename(copy), 0, 0, 0);
}

/* The runtime's own set-up, common to both ways of starting. */
static struct jit_thread *start_runtime(const struct jit_run_options *o)
{
	const char *why = NULL;
	cpuid_table_start(o->session_dir); /* (the runtime's own questions go to it too) */
	if (!threads_init(getauxval(AT_HWCAP2), &why)) {
		jit_message("error: %s", why);
		return NULL;
	}
	translate_init();
	struct jit_thread *t = thread_create();
	if (!t || thread_install_gs(t)) {
		jit_message("error: cannot create the runtime's thread block");
		return NULL;
	}
	jit_config.check_native_exec = o->check_native_exec;
	jit_config.stats = o->stats;
	jit_config.perf_map = o->perf_map;
	perf_map_open();
	jit_config.held_marks = (uint8_t)o->held_marks;
	jit_config.selftest_escape = o->selftest_escape;
	jit_config.follow_execv = o->follow_execv;
	jit_config.reexec_argv = o->reexec_argv;
	return t;
}

/* Tells the clients the thread starts at `pc`, then enters the cache for good. */
_Noreturn static void enter(struct jit_thread *t, uint64_t pc, const struct jit_run_options *o)
{
	if (o->stress_stop_ms && stress_stop_start(o->stress_stop_ms))
		jit_message("warning: cannot start the -jit:stress_stop_ms helper");
	if (o->watch_ms && watch_start(o))
		jit_message("warning: cannot start the %s's watchdog", o->tool);
	instrument_thread_start(t, pc);
	t->app_pc = pc;
	if (t->safe_point_pending)
		instrument_safe_point(t, 0);
	fflush(NULL);
	/* As in jit_dispatch: waiting for the lock counts as stopped, or a world stop (the
	 * -jit:stress_stop_ms helper's) that holds the lock would wait for this thread. */
	__atomic_store_n(&t->in_runtime, 1, __ATOMIC_SEQ_CST);
	runtime_lock();
	t->jump_target = (uint64_t)dispatch_find_fragment(pc)->cache_pc;
	__atomic_store_n(&t->in_runtime, 0, __ATOMIC_SEQ_CST);
	runtime_unlock();
	jit_resume_cache();
}

int jit_run_state(const struct jit_run_options *o, const struct jit_regs *regs,
		  const uint8_t *xsave, size_t xsave_len)
{
	messages_init(o->tool, private_stderr());
	struct jit_thread *t = start_runtime(o);
	if (!t)
		return 1;
	signals_init(t);
	jit_thread_set_regs(t, regs);
	jit_thread_set_xsave(t, xsave, xsave_len);
	app_map_announce_images();
	persist_start(o->persist_dir, jit_config.app_exe_path ? jit_config.app_exe_path : "", true);
	enter(t, regs->rip, o);
}

int jit_run(const struct jit_run_options *o, const char *program, char *const *argv,
	    char *const *envp)
{
	messages_init(o->tool, private_stderr());
	char err[PATH_MAX + 256];
	static struct program prog;
	int status = program_resolve(program, argv, o->argv0, envp, &prog, err, sizeof err);
	if (status) {
		jit_message("error: %s", err);
		return status;
	}
	static struct elf_image exe, interp;
	bool exec_prot = !o->check_native_exec;
	if (elf_map(prog.elf_path, exec_prot, &exe, err, sizeof err)) {
		jit_message("error: cannot run '%s': %s", prog.elf_path, err);
		return 126;
	}
	if (exe.interp[0] && elf_map(exe.interp, exec_prot, &interp, err, sizeof err)) {
		jit_message("error: cannot run '%s': its interpreter '%s': %s", prog.elf_path,
			    exe.interp, err);
		return 126;
	}
	bool dynamic = exe.interp[0] != '\0';
	if (!o->argv0) /* (a followed execve's environment is the app's own) */
		envp = program_environment(envp, &prog);
	struct initial_stack stack;
	if (initial_stack_build(prog.argv, envp, prog.exec_path, &exe, dynamic ? &interp : NULL,
				&stack)) {
		jit_message("error: cannot allocate the app's stack");
		return 1;
	}
	if (app_brk_init(exe.end)) {
		jit_message("error: cannot reserve the app's program break%s",
			    app_memory_limit_clause());
		return 1;
	}

	struct jit_thread *t = start_runtime(o);
	if (!t)
		return 1;
	const char *why;
	if (o->seccomp_fd && !seccomp_adopt(t, o->seccomp_fd, &why)) {
		jit_message("error: the seccomp filters of the process before its execve are lost "
			    "(%s)",
			    why);
		return 1;
	}
	char *exe_path = realpath(prog.elf_path, NULL);
	jit_config.app_exe_path = exe_path ? exe_path : prog.elf_path;
	jit_config.app_auxv = stack.auxv;
	jit_config.app_auxv_len = stack.auxv_bytes;
	jit_config.app_cmdline = join_strings(prog.argv, &jit_config.app_cmdline_len);
	jit_config.app_environ = join_strings(envp, &jit_config.app_environ_len);
	set_process_name(prog.exec_path);
	signals_init(t);
	app_map_add(stack.guard, stack.base, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, 0, NULL);
	app_map_add(stack.base, stack.base + stack.size, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, 0, "[stack]");
	report_image(jit_config.app_exe_path, &exe);
	if (dynamic)
		report_image(exe.interp, &interp);
	persist_session(o->session_dir);
	persist_start(o->persist_dir, jit_config.app_exe_path, o->argv0 == NULL);
	t->gpr[JIT_GPR_RSP] = stack.sp;
	t->rflags = 0x202;
	t->app_fs = 0;
	enter(t, dynamic ? interp.entry : exe.entry, o);
}
