#include "rsp_registers.h"

#include <cpuid.h>
#include <stdio.h>
#include <string.h>

/* Where a register lives. */
enum reg_source {
	SRC_GPR,      /* regs.gpr[index] */
	SRC_RIP,      /* regs.rip */
	SRC_RFLAGS,   /* regs.rflags (32 bits shown) */
	SRC_CONST,    /* a fixed value (segment selectors, orig_rax): writes are ignored */
	SRC_FS_BASE,  /* regs.fs_base */
	SRC_GS_BASE,  /* regs.gs_base */
	SRC_FXSAVE,   /* bytes of the legacy area at index (x87 control words, st, xmm, mxcsr) */
	SRC_FTAG,     /* the full tag word, from the abridged one */
	SRC_AVX_HIGH, /* upper halves of ymm: the AVX component, 16 bytes each */
};

/* The xsave components: x87, SSE, AVX (their XSTATE_BV bits). */
enum { COMP_X87 = 0, COMP_SSE = 1, COMP_AVX = 2, XSTATE_BV = 512 };

struct reg_desc {
	char name[12];
	unsigned bits;
	const char *type;
	const char *group; /* NULL: gdb's default */
	enum reg_source src;
	unsigned index; /* gpr number, legacy-area offset, or ymm number */
	uint64_t value; /* SRC_CONST */
	unsigned comp;	/* the xsave component it belongs to (SRC_FXSAVE, SRC_FTAG, SRC_AVX) */
	unsigned bytes; /* bytes stored for SRC_FXSAVE (a 32-bit fctrl holds 16) */
	const char *feature;
};

enum { MAX_REGS = 96 };
static struct reg_desc regs[MAX_REGS];
static size_t nregs;
static unsigned avx_offset;
static char xml[16384];

static void add(struct reg_desc d)
{
	if (nregs < MAX_REGS)
		regs[nregs++] = d;
}

static void add_core(void)
{
	static const char *gpr_names[16] = {"rax", "rbx", "rcx", "rdx", "rsi", "rdi", "rbp", "rsp",
					    "r8",  "r9",  "r10", "r11", "r12", "r13", "r14", "r15"};
	static const unsigned gpr_index[16] = {JIT_GPR_RAX, JIT_GPR_RBX, JIT_GPR_RCX, JIT_GPR_RDX,
					       JIT_GPR_RSI, JIT_GPR_RDI, JIT_GPR_RBP, JIT_GPR_RSP,
					       JIT_GPR_R8,  JIT_GPR_R9,	 JIT_GPR_R10, JIT_GPR_R11,
					       JIT_GPR_R12, JIT_GPR_R13, JIT_GPR_R14, JIT_GPR_R15};
	const char *core = "org.gnu.gdb.i386.core";
	for (int i = 0; i < 16; i++) {
		struct reg_desc d = {
		    .bits = 64, .src = SRC_GPR, .index = gpr_index[i], .feature = core};
		snprintf(d.name, sizeof d.name, "%s", gpr_names[i]);
		d.type = i == 6 || i == 7 ? "data_ptr" : "int64";
		add(d);
	}
	add((struct reg_desc){"rip", 64, "code_ptr", NULL, SRC_RIP, 0, 0, 0, 0, core});
	add((struct reg_desc){"eflags", 32, "i386_eflags", NULL, SRC_RFLAGS, 0, 0, 0, 0, core});
	/* The selectors of a 64-bit Linux user process. */
	static const struct {
		const char *name;
		uint64_t value;
	} segs[] = {{"cs", 0x33}, {"ss", 0x2b}, {"ds", 0}, {"es", 0}, {"fs", 0}, {"gs", 0}};
	for (int i = 0; i < 6; i++) {
		struct reg_desc d = {.bits = 32,
				     .type = "int32",
				     .src = SRC_CONST,
				     .value = segs[i].value,
				     .feature = core};
		snprintf(d.name, sizeof d.name, "%s", segs[i].name);
		add(d);
	}
	for (unsigned i = 0; i < 8; i++) {
		struct reg_desc d = {.bits = 80,
				     .type = "i387_ext",
				     .src = SRC_FXSAVE,
				     .index = 32 + 16 * i,
				     .comp = COMP_X87,
				     .bytes = 10,
				     .feature = core};
		snprintf(d.name, sizeof d.name, "st%u", i);
		add(d);
	}
	/* The x87 control registers in the 64-bit FXSAVE layout: FCW, FSW, (tag), FIP, its
	 * selector half, FDP, its selector half, FOP. */
	static const struct {
		const char *name;
		unsigned off, bytes;
	} fpu[] = {{"fctrl", 0, 2}, {"fstat", 2, 2},  {"ftag", 4, 0},	{"fiseg", 12, 2},
		   {"fioff", 8, 4}, {"foseg", 20, 2}, {"fooff", 16, 4}, {"fop", 6, 2}};
	for (int i = 0; i < 8; i++) {
		struct reg_desc d = {.bits = 32,
				     .type = "int",
				     .group = "float",
				     .src = fpu[i].bytes ? SRC_FXSAVE : SRC_FTAG,
				     .index = fpu[i].off,
				     .comp = COMP_X87,
				     .bytes = fpu[i].bytes,
				     .feature = core};
		snprintf(d.name, sizeof d.name, "%s", fpu[i].name);
		add(d);
	}
}

static void add_extensions(bool avx)
{
	const char *sse = "org.gnu.gdb.i386.sse";
	for (unsigned i = 0; i < 16; i++) {
		struct reg_desc d = {.bits = 128,
				     .type = "vec128",
				     .src = SRC_FXSAVE,
				     .index = 160 + 16 * i,
				     .comp = COMP_SSE,
				     .bytes = 16,
				     .feature = sse};
		snprintf(d.name, sizeof d.name, "xmm%u", i);
		add(d);
	}
	add((struct reg_desc){"mxcsr", 32, "i386_mxcsr", "vector", SRC_FXSAVE, 24, 0, COMP_SSE, 4,
			      sse});
	/* gdb's GNU/Linux support (signal frames, syscall restarts) wants orig_rax: -1 says
	 * the thread is not inside a syscall it should restart. */
	add((struct reg_desc){"orig_rax", 64, "int", NULL, SRC_CONST, 0, (uint64_t)-1, 0, 0,
			      "org.gnu.gdb.i386.linux"});
	const char *segments = "org.gnu.gdb.i386.segments";
	add((struct reg_desc){"fs_base", 64, "int", NULL, SRC_FS_BASE, 0, 0, 0, 0, segments});
	add((struct reg_desc){"gs_base", 64, "int", NULL, SRC_GS_BASE, 0, 0, 0, 0, segments});
	for (unsigned i = 0; avx && i < 16; i++) {
		struct reg_desc d = {.bits = 128,
				     .type = "uint128",
				     .src = SRC_AVX_HIGH,
				     .index = i,
				     .comp = COMP_AVX,
				     .feature = "org.gnu.gdb.i386.avx"};
		snprintf(d.name, sizeof d.name, "ymm%uh", i);
		add(d);
	}
}

/* Types the features use beyond gdb's predefined ones. */
static size_t feature_types(char *out, size_t size, const char *feature)
{
	if (!strcmp(feature, "org.gnu.gdb.i386.core"))
		return (size_t)snprintf(
		    out, size,
		    "<flags id=\"i386_eflags\" size=\"4\">"
		    "<field name=\"CF\" start=\"0\" end=\"0\"/><field name=\"PF\" start=\"2\" "
		    "end=\"2\"/><field name=\"AF\" start=\"4\" end=\"4\"/><field name=\"ZF\" "
		    "start=\"6\" end=\"6\"/><field name=\"SF\" start=\"7\" end=\"7\"/><field "
		    "name=\"TF\" start=\"8\" end=\"8\"/><field name=\"IF\" start=\"9\" "
		    "end=\"9\"/><field name=\"DF\" start=\"10\" end=\"10\"/><field name=\"OF\" "
		    "start=\"11\" end=\"11\"/><field name=\"AC\" start=\"18\" end=\"18\"/><field "
		    "name=\"ID\" start=\"21\" end=\"21\"/></flags>\n");
	if (!strcmp(feature, "org.gnu.gdb.i386.sse"))
		return (size_t)snprintf(
		    out, size,
		    "<vector id=\"v4f\" type=\"ieee_single\" count=\"4\"/>"
		    "<vector id=\"v2d\" type=\"ieee_double\" count=\"2\"/>"
		    "<vector id=\"v16i8\" type=\"int8\" count=\"16\"/>"
		    "<vector id=\"v8i16\" type=\"int16\" count=\"8\"/>"
		    "<vector id=\"v4i32\" type=\"int32\" count=\"4\"/>"
		    "<vector id=\"v2i64\" type=\"int64\" count=\"2\"/>"
		    "<union id=\"vec128\"><field name=\"v4_float\" type=\"v4f\"/><field "
		    "name=\"v2_double\" type=\"v2d\"/><field name=\"v16_int8\" "
		    "type=\"v16i8\"/><field name=\"v8_int16\" type=\"v8i16\"/><field "
		    "name=\"v4_int32\" type=\"v4i32\"/><field name=\"v2_int64\" "
		    "type=\"v2i64\"/><field name=\"uint128\" type=\"uint128\"/></union>"
		    "<flags id=\"i386_mxcsr\" size=\"4\">"
		    "<field name=\"IE\" start=\"0\" end=\"0\"/><field name=\"DE\" start=\"1\" "
		    "end=\"1\"/><field name=\"ZE\" start=\"2\" end=\"2\"/><field name=\"OE\" "
		    "start=\"3\" end=\"3\"/><field name=\"UE\" start=\"4\" end=\"4\"/><field "
		    "name=\"PE\" start=\"5\" end=\"5\"/><field name=\"DAZ\" start=\"6\" "
		    "end=\"6\"/><field name=\"IM\" start=\"7\" end=\"7\"/><field name=\"DM\" "
		    "start=\"8\" end=\"8\"/><field name=\"ZM\" start=\"9\" end=\"9\"/><field "
		    "name=\"OM\" start=\"10\" end=\"10\"/><field name=\"UM\" start=\"11\" "
		    "end=\"11\"/><field name=\"PM\" start=\"12\" end=\"12\"/><field name=\"FZ\" "
		    "start=\"15\" end=\"15\"/></flags>\n");
	return 0;
}

static void build_xml(void)
{
	size_t n = (size_t)snprintf(xml, sizeof xml,
				    "<?xml version=\"1.0\"?>\n<!DOCTYPE target SYSTEM "
				    "\"gdb-target.dtd\">\n<target version=\"1.0\">\n"
				    "<architecture>i386:x86-64</architecture>\n"
				    "<osabi>GNU/Linux</osabi>\n");
	const char *open = NULL;
	for (size_t i = 0; i < nregs && n < sizeof xml; i++) {
		const struct reg_desc *d = &regs[i];
		if (!open || strcmp(open, d->feature)) {
			if (open)
				n += (size_t)snprintf(xml + n, sizeof xml - n, "</feature>\n");
			open = d->feature;
			n += (size_t)snprintf(xml + n, sizeof xml - n, "<feature name=\"%s\">\n",
					      open);
			if (n < sizeof xml)
				n += feature_types(xml + n, sizeof xml - n, open);
		}
		if (n < sizeof xml)
			n += (size_t)snprintf(xml + n, sizeof xml - n,
					      "<reg name=\"%s\" bitsize=\"%u\" type=\"%s\" "
					      "regnum=\"%zu\"%s%s%s/>\n",
					      d->name, d->bits, d->type, i,
					      d->group ? " group=\"" : "", d->group ? d->group : "",
					      d->group ? "\"" : "");
	}
	if (n < sizeof xml)
		snprintf(xml + n, sizeof xml - n, "</feature>\n</target>\n");
}

void rsp_registers_init(void)
{
	unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
	bool avx = false;
	if (__get_cpuid(1, &eax, &ebx, &ecx, &edx) && (ecx & bit_OSXSAVE)) {
		uint32_t lo, hi;
		__asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
		if ((lo & 6) == 6 && __get_cpuid_count(0xd, COMP_AVX, &eax, &ebx, &ecx, &edx)) {
			avx = true;
			avx_offset = ebx;
		}
	}
	nregs = 0;
	add_core();
	add_extensions(avx);
	build_xml();
}

const char *rsp_target_xml(void)
{
	return xml;
}

size_t rsp_register_count(void)
{
	return nregs;
}

static bool component_live(const struct reg_image *im, unsigned comp)
{
	uint64_t bv;
	memcpy(&bv, im->xsave + XSTATE_BV, sizeof bv);
	return im->xsave_len > XSTATE_BV + 8 && (bv & (1ull << comp));
}

/* A component in its initial state has no bytes in the image: write them before changing
 * one register of it, and mark it live so that the thread's restore loads it. */
static void make_live(struct reg_image *im, unsigned comp)
{
	if (component_live(im, comp) || im->xsave_len <= XSTATE_BV + 8)
		return;
	if (comp == COMP_X87) {
		memset(im->xsave, 0, 24);
		memset(im->xsave + 32, 0, 128);
		uint16_t fcw = 0x37f;
		memcpy(im->xsave, &fcw, sizeof fcw);
	} else if (comp == COMP_SSE) {
		memset(im->xsave + 160, 0, 256);
	} else if (comp == COMP_AVX) {
		memset(im->xsave + avx_offset, 0, 256);
	}
	uint64_t bv;
	memcpy(&bv, im->xsave + XSTATE_BV, sizeof bv);
	bv |= 1ull << comp;
	memcpy(im->xsave + XSTATE_BV, &bv, sizeof bv);
}

/* The full tag word of the x87 registers (2 bits each by physical register: 0 valid, 1
 * zero, 2 special, 3 empty) from the abridged one FXSAVE keeps (1 bit: not empty). */
static uint32_t full_tag(const struct reg_image *im)
{
	uint16_t fsw;
	memcpy(&fsw, im->xsave + 2, sizeof fsw);
	unsigned top = (fsw >> 11) & 7;
	uint32_t tag = 0;
	for (unsigned p = 0; p < 8; p++) {
		unsigned t = 3;
		if (im->xsave[4] & (1u << p)) {
			const uint8_t *st = im->xsave + 32 + 16 * ((p - top) & 7);
			uint64_t mant;
			uint16_t exp;
			memcpy(&mant, st, sizeof mant);
			memcpy(&exp, st + 8, sizeof exp);
			exp &= 0x7fff;
			if (exp == 0x7fff)
				t = 2;
			else if (exp == 0)
				t = mant ? 2 : 1;
			else
				t = (mant >> 63) ? 0 : 2;
		}
		tag |= t << (2 * p);
	}
	return tag;
}

/* The register's bytes, little endian, as gdb expects them. */
static unsigned reg_bytes(const struct reg_image *im, const struct reg_desc *d, uint8_t *out)
{
	unsigned size = d->bits / 8;
	uint64_t v = 0;
	memset(out, 0, 16);
	switch (d->src) {
	case SRC_GPR:
		v = im->regs.gpr[d->index];
		break;
	case SRC_RIP:
		v = im->regs.rip;
		break;
	case SRC_RFLAGS:
		v = im->regs.rflags;
		break;
	case SRC_CONST:
		v = d->value;
		break;
	case SRC_FS_BASE:
		v = im->regs.fs_base;
		break;
	case SRC_GS_BASE:
		v = im->regs.gs_base;
		break;
	case SRC_FTAG:
		v = component_live(im, COMP_X87) ? full_tag(im) : 0xffff;
		break;
	case SRC_FXSAVE:
		if (component_live(im, d->comp) || d->index == 24 /* mxcsr: always saved */)
			memcpy(out, im->xsave + d->index, d->bytes);
		else if (d->index == 0)
			out[0] = 0x7f, out[1] = 0x03; /* the initial control word */
		return size;
	case SRC_AVX_HIGH:
		if (component_live(im, COMP_AVX))
			memcpy(out, im->xsave + avx_offset + 16 * d->index, 16);
		return size;
	}
	memcpy(out, &v, size < 8 ? size : 8);
	return size;
}

bool rsp_register_hex(const struct reg_image *im, size_t n, char *out, size_t size)
{
	if (n >= nregs)
		return false;
	uint8_t bytes[16];
	unsigned len = reg_bytes(im, &regs[n], bytes);
	size_t at = strlen(out);
	for (unsigned i = 0; i < len && at + 2 < size; i++, at += 2)
		snprintf(out + at, size - at, "%02x", bytes[i]);
	return true;
}

static int hexval(char c)
{
	return c >= '0' && c <= '9'   ? c - '0'
	       : c >= 'a' && c <= 'f' ? c - 'a' + 10
	       : c >= 'A' && c <= 'F' ? c - 'A' + 10
				      : -1;
}

bool rsp_register_parse(struct reg_image *im, size_t n, const char *hex, size_t *used)
{
	if (n >= nregs)
		return false;
	const struct reg_desc *d = &regs[n];
	unsigned size = d->bits / 8;
	uint8_t b[16] = {0};
	for (unsigned i = 0; i < size; i++) {
		int hi = hexval(hex[2 * i]), lo = hi < 0 ? -1 : hexval(hex[2 * i + 1]);
		if (lo < 0)
			return false;
		b[i] = (uint8_t)(hi * 16 + lo);
	}
	*used = 2 * size;
	uint64_t v;
	memcpy(&v, b, sizeof v);
	switch (d->src) {
	case SRC_GPR:
		im->regs.gpr[d->index] = v;
		break;
	case SRC_RIP:
		im->regs.rip = v;
		break;
	case SRC_RFLAGS:
		im->regs.rflags = (im->regs.rflags & ~0xffffffffull) | (v & 0xffffffffull);
		break;
	case SRC_CONST:
		break;
	case SRC_FS_BASE:
		im->regs.fs_base = v;
		break;
	case SRC_GS_BASE:
		break; /* the runtime owns %gs */
	case SRC_FTAG:
		make_live(im, COMP_X87);
		im->xsave[4] = 0;
		for (unsigned p = 0; p < 8; p++)
			if (((v >> (2 * p)) & 3) != 3)
				im->xsave[4] |= (uint8_t)(1u << p);
		break;
	case SRC_FXSAVE:
		make_live(im, d->comp);
		memcpy(im->xsave + d->index, b, d->bytes);
		break;
	case SRC_AVX_HIGH:
		make_live(im, COMP_AVX);
		memcpy(im->xsave + avx_offset + 16 * d->index, b, 16);
		break;
	}
	return true;
}
