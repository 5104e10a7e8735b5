/* arena.c: linked blocks, freed in one call. */
#include "base/arena.h"

#include <stdlib.h>
#include <string.h>

struct arena_block {
    arena_block_t *next;  /* older block */
    size_t cap;           /* usable bytes in data */
    _Alignas(16) unsigned char data[];
};

void arena_init(arena_t *a, size_t block_size)
{
    a->head = NULL;
    a->used = 0;
    a->block_size = block_size ? block_size : 4096;
}

void *arena_alloc(arena_t *a, size_t n)
{
    n = (n + 15) & ~(size_t)15;
    if (!a->head || a->used + n > a->head->cap) {
        size_t cap = n > a->block_size ? n : a->block_size;
        arena_block_t *b = malloc(sizeof *b + cap);
        if (!b)
            return NULL;
        b->next = a->head;
        b->cap = cap;
        a->head = b;
        a->used = 0;
    }
    void *p = a->head->data + a->used;
    a->used += n;
    memset(p, 0, n);
    return p;
}

char *arena_strndup(arena_t *a, const char *s, size_t n)
{
    char *p = arena_alloc(a, n + 1);
    if (p) {
        memcpy(p, s, n);
        p[n] = '\0';
    }
    return p;
}

void arena_free(arena_t *a)
{
    arena_block_t *b = a->head;
    while (b) {
        arena_block_t *next = b->next;
        free(b);
        b = next;
    }
    a->head = NULL;
    a->used = 0;
}
