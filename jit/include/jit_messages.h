/* The runtime's messages: one line each, "<tool>: ...", on a private duplicate of the
 * driver's stderr that the app can neither close nor redirect. All of it is TLS-free, for
 * use on app threads. */
#ifndef JIT_MESSAGES_H
#define JIT_MESSAGES_H

/* The descriptor messages go to (for a client that prints a line of its own). */
int jit_messages_fd(void);

/* "<tool>: <message>" on one line. */
void jit_message(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* The line as given, without the tool's name (a replay's verdict). */
void jit_message_line(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Runs before every line above is written (a progress line on the terminal erases itself
 * there). One hook; it must not block on a lock its thread may hold. */
void jit_messages_before(void (*hook)(void));

/* "<tool>: error: <message>" on one line, then exit status 1. */
_Noreturn void jit_fatal(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Ends the process with `status` after the jit_on_fatal cleanups, without a message: a
 * run given up on purpose (a debugger's kill), whose unfinished output must not stay. */
_Noreturn void jit_abandon(int status);

/* Runs once before jit_fatal exits (the logger removes its unfinished pinball, the
 * controller its port file); up to four cleanups, run in the order given. */
void jit_on_fatal(void (*cleanup)(void));

#endif
