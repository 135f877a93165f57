#include "CMalloc.h"
#include <malloc.h>
#include <stdlib.h>

int cmalloc_limit_arenas(int count) { return mallopt(M_ARENA_MAX, count); }

int cmalloc_trim(void) { return malloc_trim(0); }

// Runs when the program loads, before any thread exists: a thread that allocates before the cap is set
// may already have an arena of its own, and glibc never gives arenas back. MALLOC_ARENA_MAX in the
// environment (read by glibc itself) wins; so do GLIBC_TUNABLES for the two thresholds.
__attribute__((constructor)) static void cmalloc_cap_arenas_at_load(void) {
    if (getenv("MALLOC_ARENA_MAX") == NULL) mallopt(M_ARENA_MAX, CMALLOC_SERVER_ARENAS);
    if (getenv("GLIBC_TUNABLES") == NULL) {
        mallopt(M_MMAP_THRESHOLD, CMALLOC_SERVER_MMAP_THRESHOLD);
        mallopt(M_TRIM_THRESHOLD, CMALLOC_SERVER_TRIM_THRESHOLD);
    }
}
