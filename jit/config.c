#include "config.h"

struct jit_config jit_config;
