#include "CMalloc.h"
#include <malloc.h>

int cmalloc_limit_arenas(int count) { return mallopt(M_ARENA_MAX, count); }

int cmalloc_trim(void) { return malloc_trim(0); }
