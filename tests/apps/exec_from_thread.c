/* A thread other than the first execs while the first waits in pause(): the kernel ends the
 * other threads and the exec'd program takes over the process. */
#include <pthread.h>
#include <unistd.h>

static void *exec_echo(void *arg)
{
	execl("/bin/echo", "echo", "exec from a second thread", (char *)NULL);
	return arg;
}

int main(void)
{
	pthread_t t;
	pthread_create(&t, NULL, exec_echo, NULL);
	for (;;)
		pause();
}
