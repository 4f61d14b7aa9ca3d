/* Zydis's ISA tables come from XED's, so most names agree letter for letter (up to case);
 * only the ones a C identifier cannot spell, or that Zydis renamed, need a table. */
#include "xed_zydis.h"

#include "xed_names.h"

#include <string.h>

struct renamed {
	const char *zydis, *xed;
};

static const struct renamed renamed_extensions[] = {
    {"AMD3DNOW", "3DNOW"},
    {"AMD3DNOW_PREFETCH", "3DNOW_PREFETCH"},
    {"PT", "PTWRITE"},
    {NULL, NULL},
};

static const struct renamed renamed_categories[] = {
    {"AMD3DNOW", "3DNOW"},
    {"PT", "PTWRITE"},
    {"PADLOCK", "VIA_PADLOCK"},
    {NULL, NULL},
};

static const char *to_xed(const char *zydis_name, const struct renamed *renames,
			  const char *(*find)(const char *, size_t))
{
	if (!zydis_name)
		return NULL;
	for (; renames->zydis; renames++)
		if (strcmp(zydis_name, renames->zydis) == 0) {
			zydis_name = renames->xed;
			break;
		}
	return find(zydis_name, strlen(zydis_name));
}

const char *xed_extension_of_zydis(ZydisISAExt ext)
{
	return to_xed(ZydisISAExtGetString(ext), renamed_extensions, xed_extension_find);
}

const char *xed_category_of_zydis(ZydisInstructionCategory category)
{
	return to_xed(ZydisCategoryGetString(category), renamed_categories, xed_category_find);
}
