/* XED's vocabulary, and Zydis's enums mapped onto it as the engine will at translation time. */
#include "control_test_util.h"
#include "xed_names.h"
#include "xed_zydis.h"

#include <string.h>

START_TEST(lookup_ignores_case_and_returns_xed_spelling)
{
	ck_assert_str_eq(xed_extension_find("sse4a", 5), "SSE4a");
	ck_assert_str_eq(xed_extension_find("BASE", 4), "BASE");
	ck_assert_ptr_null(xed_extension_find("BAS", 3));
	ck_assert_ptr_null(xed_extension_find("BASEX", 5));
	ck_assert_str_eq(xed_category_find("uncond_br", 9), "UNCOND_BR");
	ck_assert_ptr_null(xed_category_find("", 0));
}
END_TEST

static bool listed(const char *const *names, const char *name)
{
	for (; *names; names++)
		if (*names == name)
			return true;
	return false;
}

static bool one_of(const char *s, const char *const *set)
{
	for (; *set; set++)
		if (strcmp(s, *set) == 0)
			return true;
	return false;
}

/* Zydis's enums through int, so one check serves extensions and categories. */
static const char *zydis_extension(int e)
{
	return ZydisISAExtGetString((ZydisISAExt)e);
}
static const char *xed_extension(int e)
{
	return xed_extension_of_zydis((ZydisISAExt)e);
}
static const char *zydis_category(int c)
{
	return ZydisCategoryGetString((ZydisInstructionCategory)c);
}
static const char *xed_category(int c)
{
	return xed_category_of_zydis((ZydisInstructionCategory)c);
}

/* Every value 1..max has a XED name from `table`, except those named in `unmapped`. */
static void check_every_value_maps(int max, const char *(*zydis_name)(int),
				   const char *(*xed_name)(int), const char *const *table,
				   const char *const *unmapped)
{
	for (int v = 1; v <= max; v++) {
		const char *zname = zydis_name(v), *xname = xed_name(v);
		if (one_of(zname, unmapped))
			ck_assert_ptr_null(xname);
		else
			ck_assert_msg(xname && listed(table, xname), "Zydis %s has no XED name",
				      zname);
	}
}

/* XED has no KNC families and splits PADLOCK four ways; Zydis's UFMA category has no XED
 * twin either. */
START_TEST(every_zydis_extension_maps)
{
	static const char *const unmapped[] = {"KNC", "KNCE", "KNCV", "PADLOCK", NULL};
	check_every_value_maps(ZYDIS_ISA_EXT_MAX_VALUE, zydis_extension, xed_extension,
			       xed_extension_names, unmapped);
}
END_TEST

START_TEST(every_zydis_category_maps)
{
	static const char *const unmapped[] = {"KNC", "KNCMASK", "KNCSCALAR", "UFMA", NULL};
	check_every_value_maps(ZYDIS_CATEGORY_MAX_VALUE, zydis_category, xed_category,
			       xed_category_names, unmapped);
}
END_TEST

START_TEST(renamed_ones)
{
	ck_assert_str_eq(xed_extension_of_zydis(ZYDIS_ISA_EXT_AMD3DNOW), "3DNOW");
	ck_assert_str_eq(xed_extension_of_zydis(ZYDIS_ISA_EXT_PT), "PTWRITE");
	ck_assert_str_eq(xed_extension_of_zydis(ZYDIS_ISA_EXT_SSE4A), "SSE4a");
	ck_assert_str_eq(xed_category_of_zydis(ZYDIS_CATEGORY_PADLOCK), "VIA_PADLOCK");
	ck_assert_ptr_null(xed_extension_of_zydis(ZYDIS_ISA_EXT_INVALID));
}
END_TEST

static const struct {
	const char *what;
	unsigned char bytes[15];
	size_t len;
	const char *extension, *category;
} decoded[] = {
    {"add rax, rbx", {0x48, 0x01, 0xd8}, 3, "BASE", "BINARY"},
    {"jz +0", {0x74, 0x00}, 2, "BASE", "COND_BR"},
    {"call +0", {0xe8, 0, 0, 0, 0}, 5, "BASE", "CALL"},
    {"ret", {0xc3}, 1, "BASE", "RET"},
    {"syscall", {0x0f, 0x05}, 2, "LONGMODE", "SYSCALL"},
    {"nop word [rax+rax]", {0x66, 0x0f, 0x1f, 0x44, 0x00, 0x00}, 6, "BASE", "WIDENOP"},
    {"fld st0", {0xd9, 0xc0}, 2, "X87", "X87_ALU"},
    {"pshufb xmm0, xmm1", {0x66, 0x0f, 0x38, 0x00, 0xc1}, 5, "SSSE3", "SSE"},
    {"vpaddd ymm0, ymm0, ymm1", {0xc5, 0xfd, 0xfe, 0xc1}, 4, "AVX2", "AVX2"},
    {"vpaddd zmm0, zmm0, zmm1", {0x62, 0xf1, 0x7d, 0x48, 0xfe, 0xc1}, 6, "AVX512EVEX", "AVX512"},
    {"pfmul mm0, mm1", {0x0f, 0x0f, 0xc1, 0xb4}, 4, "3DNOW", "3DNOW"},
};

START_TEST(decoded_instruction_names)
{
	ZydisDecoder decoder;
	ZydisDecodedInstruction insn;
	ck_assert(ZYAN_SUCCESS(
	    ZydisDecoderInit(&decoder, ZYDIS_MACHINE_MODE_LONG_64, ZYDIS_STACK_WIDTH_64)));
	ck_assert_msg(ZYAN_SUCCESS(ZydisDecoderDecodeInstruction(&decoder, NULL, decoded[_i].bytes,
								 decoded[_i].len, &insn)),
		      "%s does not decode", decoded[_i].what);
	const char *ext = xed_extension_of_zydis(insn.meta.isa_ext);
	const char *cat = xed_category_of_zydis(insn.meta.category);
	ck_assert_msg(ext && strcmp(ext, decoded[_i].extension) == 0, "%s: extension %s",
		      decoded[_i].what, ext ? ext : "(none)");
	ck_assert_msg(cat && strcmp(cat, decoded[_i].category) == 0, "%s: category %s",
		      decoded[_i].what, cat ? cat : "(none)");
}
END_TEST

Suite *xed_names_suite(void)
{
	Suite *s = suite_create("xed_names");
	TCase *tc = tcase_create("xed");
	tcase_add_test(tc, lookup_ignores_case_and_returns_xed_spelling);
	tcase_add_test(tc, every_zydis_extension_maps);
	tcase_add_test(tc, every_zydis_category_maps);
	tcase_add_test(tc, renamed_ones);
	tcase_add_loop_test(tc, decoded_instruction_names, 0,
			    (int)(sizeof(decoded) / sizeof(decoded[0])));
	suite_add_tcase(s, tc);
	return s;
}
