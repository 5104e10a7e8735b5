/* arena.h: bump allocator whose allocations are freed together.
 *
 * One arena per query (AST, plan, copied strings) so error paths never leak:
 * the owner calls arena_free once. Memory is 16-byte aligned. */
#ifndef DTAIL_BASE_ARENA_H
#define DTAIL_BASE_ARENA_H

#include <stddef.h>

typedef struct arena_block arena_block_t;

typedef struct arena {
    arena_block_t *head;  /* newest block, linked to older ones */
    size_t used;          /* bytes used in head */
    size_t block_size;    /* default size of new blocks */
} arena_t;

void arena_init(arena_t *a, size_t block_size);
/* Returns zeroed memory, or NULL when out of memory. */
void *arena_alloc(arena_t *a, size_t n);
/* Copies n bytes and appends a NUL. */
char *arena_strndup(arena_t *a, const char *s, size_t n);
void arena_free(arena_t *a);

#endif
