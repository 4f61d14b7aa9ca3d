/* The environment a followed execve hands the next image's runtime. The runtime is a
 * dynamically linked program: its own ld.so would act on the app's dynamic-linker
 * variables (LD_PRELOAD would load the app's library into the runtime and run its
 * constructors twice; ldd's LD_TRACE_LOADED_OBJECTS would list the runtime's libraries
 * instead of the program's). So each of them (LD_*, GLIBC_TUNABLES) goes renamed, with a
 * prefix the next image's driver takes off again (jit_restore_app_environment, jit.h)
 * before the app sees its environment, in the same order. */
#ifndef JIT_EXEC_ENV_H
#define JIT_EXEC_ENV_H

#include <stddef.h>

/* How much room exec_env_hide needs for the app's envp: 0 when nothing needs renaming
 * (the app's envp goes as it is); -EFAULT when the app's envp cannot be read. */
long exec_env_room(char *const *app_envp);
/* The renamed environment, built in `room` bytes (exec_env_room's) at `at`. */
char **exec_env_hide(char *const *app_envp, void *at, size_t room);

#endif
