// Reusable memory for the strings of large replies.
//
// A pipeline of sixteen 20 KB values allocates and frees about 320 KB per round trip. When the caller is
// not the main thread, glibc's malloc serves it from a per-thread arena and hands the arena's free top
// back to the kernel once it passes the trim threshold (128 KB by default), so every round trip faults
// the same pages in again. Blocks kept here stay mapped: a reply string reuses a block of its size
// class that an earlier reply gave back.

#include "CRedisInternal.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>

/// Size classes: four per doubling (x1, x1.25, x1.5, x1.75), from 4 KB up to 3.5 MB, so a block wastes
/// at most a fifth of itself above 4 KB (up to half between 2 and 4 KB). Requests of 2 KB or less (a
/// string shorter than 2 KB plus its NUL) come from malloc's bins; larger than the largest class are rare
/// and come from malloc too.
#define POOL_SMALLEST_SHIFT 12
#define POOL_DOUBLINGS 10
#define POOL_CLASSES (POOL_DOUBLINGS * 4)

struct credis_block_pool {
    /// The owner's reference plus one per block handed out.
    atomic_size_t references;
    /// Guards `retained` and `free_blocks`.
    pthread_mutex_t lock;
    size_t retained_limit;
    size_t retained;
    /// Blocks given back, per class, linked through their first word.
    void *free_blocks[POOL_CLASSES];
};

static size_t class_size(int index) {
    size_t quarter = (size_t)1 << (POOL_SMALLEST_SHIFT + index / 4 - 2);
    return (4 + (size_t)(index % 4)) * quarter;
}

/// The smallest class of at least `size` bytes, or -1 when `size` is outside the pooled range.
static int class_for(size_t size) {
    if (size <= class_size(0) / 2 || size > class_size(POOL_CLASSES - 1)) return -1;
    int index = 0;
    while (class_size(index) < size) index++;
    return index;
}

credis_block_pool *credis_block_pool_create(size_t retained_limit) {
    credis_block_pool *pool = calloc(1, sizeof *pool);
    if (pool == NULL) return NULL;
    if (pthread_mutex_init(&pool->lock, NULL) != 0) {
        free(pool);
        return NULL;
    }
    atomic_init(&pool->references, 1);
    pool->retained_limit = retained_limit;
    return pool;
}

static void release_reference(credis_block_pool *pool) {
    if (atomic_fetch_sub_explicit(&pool->references, 1, memory_order_acq_rel) != 1) return;
    for (int index = 0; index < POOL_CLASSES; index++) {
        void *block = pool->free_blocks[index];
        while (block != NULL) {
            void *next = *(void **)block;
            free(block);
            block = next;
        }
    }
    pthread_mutex_destroy(&pool->lock);
    free(pool);
}

void credis_block_pool_release(credis_block_pool *pool) {
    if (pool != NULL) release_reference(pool);
}

size_t credis_block_pool_retained(credis_block_pool *pool) {
    pthread_mutex_lock(&pool->lock);
    size_t retained = pool->retained;
    pthread_mutex_unlock(&pool->lock);
    return retained;
}

void *credis_block_take(credis_block_pool *pool, size_t size, int *class_index) {
    int index = pool == NULL ? -1 : class_for(size);
    *class_index = index;
    if (index < 0) return malloc(size);
    pthread_mutex_lock(&pool->lock);
    void *block = pool->free_blocks[index];
    if (block != NULL) {
        pool->free_blocks[index] = *(void **)block;
        pool->retained -= class_size(index);
    }
    pthread_mutex_unlock(&pool->lock);
    if (block == NULL) block = malloc(class_size(index));
    if (block == NULL) {
        *class_index = -1;
        return NULL;
    }
    atomic_fetch_add_explicit(&pool->references, 1, memory_order_relaxed);
    return block;
}

size_t credis_block_capacity(int class_index, size_t requested) {
    if (class_index < 0) return requested;
    size_t size = class_size(class_index);
    if (size > CREDIS_READ_BUFFER) size = CREDIS_READ_BUFFER > requested ? CREDIS_READ_BUFFER : requested;
    return size;
}

void credis_block_give_back(credis_block_pool *pool, void *block, int class_index) {
    if (block == NULL) return;
    if (pool == NULL || class_index < 0) {
        free(block);
        return;
    }
    size_t size = class_size(class_index);
    pthread_mutex_lock(&pool->lock);
    int keep = pool->retained + size <= pool->retained_limit;
    if (keep) {
        *(void **)block = pool->free_blocks[class_index];
        pool->free_blocks[class_index] = block;
        pool->retained += size;
    }
    pthread_mutex_unlock(&pool->lock);
    if (!keep) free(block);
    release_reference(pool);
}
