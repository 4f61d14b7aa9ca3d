/* What the alarm engine asks at translation time: which XED extension and category a
 * Zydis-decoded instruction belongs to, so isa-extension / isa-category alarms can match. */
#ifndef XED_ZYDIS_H
#define XED_ZYDIS_H

#include <Zydis/Zydis.h>

/* XED's name (the same pointer xed_names.h's tables hold), or NULL where XED has no single
 * equivalent (Zydis's KNC families; PADLOCK, which XED splits four ways). Pure: any thread. */
const char *xed_extension_of_zydis(ZydisISAExt ext);
const char *xed_category_of_zydis(ZydisInstructionCategory category);

#endif
