#include "runtime_lock.h"

#include "rt_mutex.h"

static rt_mutex lock;

void runtime_lock(void) { rt_mutex_lock(&lock); }
void runtime_unlock(void) { rt_mutex_unlock(&lock); }
bool runtime_trylock(void) { return rt_mutex_trylock(&lock); }
