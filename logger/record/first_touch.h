/* First-touch recording: at region start the app's readable pages are withheld (their real
 * protection set to none); the first access to each one, by the app, the translator, the
 * runtime or (prepared before a syscall) the kernel, records its content and gives the page
 * back. A region's pinball thus holds the region-start content of exactly the pages the
 * region uses. All of it runs on app threads (TLS-free). */
#ifndef LOGGER_FIRST_TOUCH_H
#define LOGGER_FIRST_TOUCH_H

#include <stdbool.h>
#include <stdint.h>

/* Withholds every readable app page (called at region start, after the memory map went
 * into the pinball). */
void first_touch_begin(void);

/* A file mapping the region made (thread tid's mmap at its count icount) is withheld too,
 * instead of recorded whole: the pages the region touches are recorded, as of their first
 * touch, for the replay to put in place when it makes that mmap. */
void first_touch_watch_mapping(uint64_t start, uint64_t end, uint32_t prot, uint32_t tid,
			       uint64_t icount);

/* Gives every page still withheld back, unrecorded (region end). */
void first_touch_end(void);

/* Records and gives back the page holding addr if it is withheld: true when this call did
 * (another thread may have given it back meanwhile: the JIT sees that from the page's
 * protection). Safe from any thread, and from a fault handler. */
bool first_touch_page(uint64_t addr);

/* Prepares [addr, addr+len) for access by the kernel (records what is withheld there). */
void first_touch_range(uint64_t addr, uint64_t len);

/* Records and gives back every page still withheld (a syscall needed memory the logger
 * could not foresee). True when there was one. */
bool first_touch_all(void);

/* The range stops being the app's as it was (munmap, mmap over it): forget it, unrecorded. */
void first_touch_forget(uint64_t addr, uint64_t len);

#endif
