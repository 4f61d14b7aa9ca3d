/* Calls two syscalls whose memory effects the kernel model cannot tell, three times each:
 * an ioctl request it does not know and semctl(GETALL), whose array has the size of a
 * semaphore set only the kernel knows. Both fail harmlessly (no such request, no such set). */
#include <stdio.h>
#include <sys/sem.h>
#include <sys/syscall.h>
#include <unistd.h>

int main(void)
{
	long failed = 0;
	for (int i = 0; i < 3; i++) {
		failed += syscall(SYS_ioctl, 0, 0x1234, 0) < 0;
		failed += syscall(SYS_semctl, -1, 0, GETALL, 0) < 0;
	}
	printf("%ld of 6 calls failed\n", failed);
	return 0;
}
