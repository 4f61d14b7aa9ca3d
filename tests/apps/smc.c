/* Self-modifying and generated code: code rewritten in an RWX page after it ran, W^X flips
 * through mprotect, code unmapped and other code mapped at the same address, and one thread
 * patching code that another thread keeps calling (synchronised as a correct program is). */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>

typedef int (*fn)(void);

/* mov $value,%eax; ret */
static void emit_return(unsigned char *p, int value)
{
	p[0] = 0xb8;
	memcpy(p + 1, &value, 4);
	p[5] = 0xc3;
}

static void rwx_rewrite(void)
{
	unsigned char *page = mmap(NULL, 4096, PROT_READ | PROT_WRITE | PROT_EXEC,
				   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	int sum = 0;
	for (int v = 1; v <= 5; v++) {
		emit_return(page, v);
		__builtin___clear_cache((char *)page, (char *)page + 6);
		sum = sum * 10 + ((fn)page)();
	}
	printf("rwx rewritten five times: %d\n", sum);
	munmap(page, 4096);
}

static void wx_flips(void)
{
	unsigned char *page =
	    mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	int sum = 0;
	for (int v = 1; v <= 3; v++) {
		mprotect(page, 4096, PROT_READ | PROT_WRITE);
		emit_return(page, v * 7);
		mprotect(page, 4096, PROT_READ | PROT_EXEC);
		sum += ((fn)page)();
	}
	printf("W^X flips: %d\n", sum);
	munmap(page, 4096);
}

static void remap_same_address(void)
{
	unsigned char *page = mmap(NULL, 4096, PROT_READ | PROT_WRITE | PROT_EXEC,
				   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	emit_return(page, 11);
	int a = ((fn)page)();
	munmap(page, 4096);
	unsigned char *again = mmap(page, 4096, PROT_READ | PROT_WRITE | PROT_EXEC,
				    MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
	emit_return(again, 22);
	printf("remapped at the same address: %d then %d\n", a, ((fn)again)());
	munmap(again, 4096);
}

static unsigned char *shared_code;
static atomic_int phase;

static void *caller(void *arg)
{
	(void)arg;
	int seen_new = 0;
	while (atomic_load(&phase) < 2) {
		int v = ((fn)shared_code)();
		if (v == 2) {
			seen_new = 1;
			atomic_store(&phase, 2);
		} else if (atomic_load(&phase) == 0) {
			atomic_store(&phase, 1); /* it ran the old code: patch now */
		}
	}
	return (void *)(long)seen_new;
}

static void cross_thread_patch(void)
{
	shared_code = mmap(NULL, 4096, PROT_READ | PROT_WRITE | PROT_EXEC,
			   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	emit_return(shared_code, 1);
	pthread_t t;
	pthread_create(&t, NULL, caller, NULL);
	while (atomic_load(&phase) == 0)
		;
	emit_return(shared_code, 2);
	void *seen;
	pthread_join(t, &seen);
	printf("another thread saw the patched code: %s\n", seen ? "yes" : "no");
}

int main(void)
{
	rwx_rewrite();
	wx_flips();
	remap_same_address();
	cross_thread_patch();
	return 0;
}
