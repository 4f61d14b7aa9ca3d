/* Dropping every translation: code, fragment metadata and each thread's lookup table. */
#ifndef JIT_FLUSH_H
#define JIT_FLUSH_H

void jit_flush_cache(void);

#endif
