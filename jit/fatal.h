/* Messages of the runtime itself, on a descriptor the app cannot close or redirect. */
#ifndef JIT_FATAL_H
#define JIT_FATAL_H

/* tool: "logger" or "replayer"; fd: a private duplicate of the driver's stderr. */
void messages_init(const char *tool, int fd);
int messages_fd(void);
/* Moves the message descriptor to another number (the app wants this one). <0 on failure. */
int messages_move(void);

/* Runs before fatal() exits (the logger removes its unfinished pinball). */
void messages_on_fatal(void (*cleanup)(void));

/* "<tool>: error: <message>" on one line, then exit status 1. TLS-free. */
_Noreturn void fatal(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* "<tool>: <message>" on one line. */
void message(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
