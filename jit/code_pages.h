/* Self-modifying code: app pages that hold translated code and that the app may write are
 * kept write-protected for real; the first write faults, the translations are retired and
 * the page is made writable again until code from it is translated anew. */
#ifndef JIT_CODE_PAGES_H
#define JIT_CODE_PAGES_H

#include <stdbool.h>
#include <stdint.h>

/* Code from [start, end) was just translated: protect its writable pages. */
void code_pages_translated(uint64_t start, uint64_t end);

/* Whether the app may write code in [start, end) without changing its mapping (a page
 * writable for the app, protected here or not yet). */
bool code_pages_may_change(uint64_t start, uint64_t end);

/* A write fault at addr: true when it hit a protected code page (now writable again, the
 * translations retired, so the write can be retried). */
bool code_pages_write_fault(uint64_t addr);

/* Whether the page's real protection lets the app's access (a read or a write) through
 * now: an access that faulted may have raced with a thread that made the page accessible.
 * From the dispatcher (lock held) and from the fault handler (not held). */
bool code_pages_allows(uint64_t addr, bool write);

/* A syscall failed with EFAULT, maybe writing where the runtime keeps code write-protected
 * (a read into a buffer that holds code): every protected page is writable again, its
 * translations retired. True when there was one (the syscall may then run once more).
 * Runtime lock held. */
bool code_pages_release_all(void);

/* [start, end) moves (mremap), taking its real protection along: its protected pages get
 * the app's protection back and are forgotten. */
void code_pages_release(uint64_t start, uint64_t end);

/* The app changed [start, end) itself (mprotect, munmap, mmap over it): forget it. */
void code_pages_forget(uint64_t start, uint64_t end);

/* The real protection a page should have for app protection `prot` (without write while
 * it is a protected code page). */
uint32_t code_pages_real_prot(uint64_t addr, uint32_t prot);

#endif
