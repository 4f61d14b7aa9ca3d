/* The runtime's side of its messages (jit_messages.h): where they go. */
#ifndef JIT_MESSAGES_INTERNAL_H
#define JIT_MESSAGES_INTERNAL_H

#include "jit_messages.h"

/* tool: "logger" or "replayer"; fd: a private duplicate of the driver's stderr. */
void messages_init(const char *tool, int fd);

#endif
