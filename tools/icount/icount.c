#include "icount.h"

#include <fcntl.h>

#include "fatal.h"
#include "instrument.h"
#include "rt_format.h"
#include "rt_syscall.h"

static int slot = -1;
static const char *output;

static void instrument(struct jit_block *b, void *arg)
{
	(void)arg;
	uint32_t plain = 0;
	for (size_t i = 0; i < jit_block_length(b); i++) {
		if (jit_insn_is_rep_string(jit_block_insn(b, i)))
			jit_insert_rep_counter(b, i, slot);
		else
			plain++;
	}
	if (plain)
		jit_insert_block_counter(b, slot, plain);
}

static void report(int status, void *arg)
{
	(void)status;
	(void)arg;
	int fd = messages_fd();
	if (output) {
		long r = rt_openat(AT_FDCWD, output, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
		if (r < 0) {
			message("error: cannot write %s (errno %ld)", output, -r);
			return;
		}
		fd = (int)r;
	}
	uint64_t total = 0;
	for (size_t i = 0; i < jit_thread_count(); i++) {
		const struct jit_thread *t = jit_thread_at(i);
		uint64_t n = jit_thread_slot_value(t, slot);
		total += n;
		rt_dprintf(fd, "icount tid=%u %lu\n", jit_thread_id(t), n);
	}
	rt_dprintf(fd, "icount total %lu\n", total);
	if (output)
		rt_close(fd);
}

static const struct jit_client client = {
	.name = "icount",
	.instrument_block = instrument,
	.at_exit = report,
};

int icount_tool_register(const char *output_path)
{
	slot = jit_thread_slot_reserve();
	if (slot < 0)
		return -1;
	output = output_path;
	jit_register_client(&client);
	return 0;
}
