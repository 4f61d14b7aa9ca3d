/* Three thousand threads, one after the other: exited threads must give their runtime memory back. */
#include <pthread.h>
#include <stdio.h>
static void *f(void *a) { return a; }
int main(void) { long s = 0; for (long i = 0; i < 3000; i++) { pthread_t t; void *r; pthread_create(&t, NULL, f, (void *)i); pthread_join(t, &r); s += (long)r; } printf("%ld\n", s); return 0; }
