/* Start-up on the driver's main thread: find and load the program, build its stack, set
 * up the runtime, and enter the code cache for good. glibc is fine here. */
#include "jit.h"

#include <fcntl.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "../app_memory.h"
#include "../block.h"
#include "../config.h"
#include "../dispatcher.h"
#include "../fatal.h"
#include "../signals.h"
#include "../threads.h"
#include "../translate.h"
#include "elf_map.h"
#include "initial_stack.h"
#include "program.h"

enum { MESSAGE_FD_FLOOR = 500 };

/* The runtime's own copy of stderr, high enough to stay out of the app's way. */
static int private_stderr(void)
{
	int fd = fcntl(2, F_DUPFD_CLOEXEC, MESSAGE_FD_FLOOR);
	if (fd < 0)
		fd = open("/dev/null", O_WRONLY | O_CLOEXEC);
	return fd;
}

static char *join_cmdline(char *const *argv, size_t *len)
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

static void report_image(const char *path, const struct elf_image *img)
{
	for (int i = 0; i < img->exec_count; i++)
		instrument_image_mapped(path, img->exec_segments[i].start, img->exec_segments[i].end,
					img->exec_segments[i].offset);
}

static void set_process_name(const char *exec_path)
{
	char copy[PATH_MAX];
	snprintf(copy, sizeof copy, "%s", exec_path);
	prctl(PR_SET_NAME, basename(copy), 0, 0, 0);
}

int jit_run(const struct jit_run_options *o, const char *program, char *const *argv,
	    char *const *envp)
{
	messages_init(o->tool, private_stderr());
	char err[PATH_MAX + 256];
	static struct program prog;
	int status = program_resolve(program, argv, o->argv0, envp, &prog, err, sizeof err);
	if (status) {
		message("error: %s", err);
		return status;
	}
	const char *why = NULL;
	if (!threads_init(getauxval(AT_HWCAP2), &why)) {
		message("error: %s", why);
		return 1;
	}

	static struct elf_image exe, interp;
	bool exec_prot = !o->check_native_exec;
	if (elf_map(prog.elf_path, exec_prot, &exe, err, sizeof err) ||
	    (exe.interp[0] && elf_map(exe.interp, exec_prot, &interp, err, sizeof err))) {
		message("error: %s", err);
		return 126;
	}
	bool dynamic = exe.interp[0] != '\0';
	struct initial_stack stack;
	if (initial_stack_build(prog.argv, envp, prog.exec_path, &exe, dynamic ? &interp : NULL,
				&stack)) {
		message("error: cannot allocate the app's stack");
		return 1;
	}
	if (app_brk_init(exe.end)) {
		message("error: cannot reserve the app's program break");
		return 1;
	}

	char *exe_path = realpath(prog.elf_path, NULL);
	jit_config = (struct jit_config){
		.check_native_exec = o->check_native_exec,
		.stats = o->stats,
		.selftest_escape = o->selftest_escape,
		.follow_execv = o->follow_execv,
		.reexec_argv = o->reexec_argv,
		.app_exe_path = exe_path ? exe_path : prog.elf_path,
		.app_auxv = stack.auxv,
		.app_auxv_len = stack.auxv_bytes,
	};
	jit_config.app_cmdline = join_cmdline(prog.argv, &jit_config.app_cmdline_len);
	set_process_name(prog.exec_path);

	translate_init();
	struct jit_thread *t = thread_create();
	if (!t || thread_install_gs(t)) {
		message("error: cannot create the runtime's thread block");
		return 1;
	}
	signals_init();
	report_image(jit_config.app_exe_path, &exe);
	if (dynamic)
		report_image(exe.interp, &interp);
	uint64_t entry = dynamic ? interp.entry : exe.entry;
	instrument_thread_start(t, entry);
	t->gpr[GPR_RSP] = stack.sp;
	t->rflags = 0x202;
	t->app_fs = 0;
	fflush(NULL);
	t->jump_target = (uint64_t)dispatch_find_fragment(entry)->cache_pc;
	jit_resume_cache();
}
