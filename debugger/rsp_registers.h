/* The registers gdb sees: one table gives the target description (qXfer:features:read)
 * and the layout of the g/G/p/P packets, read from and written to a thread's struct
 * jit_regs and xsave image. x87, SSE and, when the machine enables it, AVX. */
#ifndef RSP_REGISTERS_H
#define RSP_REGISTERS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "instrument.h"

enum { REG_XSAVE_MAX = 0x3000 };

/* A thread's registers as the stopped app thread hands them over. */
struct reg_image {
	struct jit_regs regs;
	uint8_t xsave[REG_XSAVE_MAX];
	size_t xsave_len;
};

/* Probes the machine (XCR0, the AVX component's offset) and builds the description. */
void rsp_registers_init(void);
const char *rsp_target_xml(void);
size_t rsp_register_count(void);

/* Register n in gdb's numbering as hex (little endian), appended to out; false when n is
 * not a register. */
bool rsp_register_hex(const struct reg_image *im, size_t n, char *out, size_t size);
/* Sets register n from hex; *used: hex digits consumed. False for a bad n or short hex. */
bool rsp_register_parse(struct reg_image *im, size_t n, const char *hex, size_t *used);

#endif
