#ifndef CMALLOC_H
#define CMALLOC_H

/// glibc's allocator controls that Swift's Glibc module does not export (<malloc.h>).

/// Arenas glibc may create in the server's process, set when the program loads (see CMalloc.c): two keep
/// allocation from contending across the few worker threads while bounding the memory that sits free in
/// arenas (glibc's default is eight per core).
#define CMALLOC_SERVER_ARENAS 2

/// Caps the arenas glibc creates (mallopt M_ARENA_MAX); returns 1 on success.
int cmalloc_limit_arenas(int count);

/// Returns the free pages of every arena to the system (malloc_trim); 1 when memory was released.
int cmalloc_trim(void);

#endif
