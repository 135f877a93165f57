#ifndef CMALLOC_H
#define CMALLOC_H

/// glibc's allocator controls that Swift's Glibc module does not export (<malloc.h>).

/// Caps the arenas glibc creates (mallopt M_ARENA_MAX); returns 1 on success.
int cmalloc_limit_arenas(int count);

/// Returns the free pages of every arena to the system (malloc_trim); 1 when memory was released.
int cmalloc_trim(void);

#endif
