/* grow.h: arrays that grow by doubling as they are appended to.
 *
 * One place for what every appender must get right: the first capacity,
 * doubling until the need fits, refusing a byte count that overflows, and
 * leaving the array and its capacity as they were when memory runs out.
 * The test for room is inline, so a caller that appends per row pays one
 * compare while the array has room. */
#ifndef DTAIL_BASE_GROW_H
#define DTAIL_BASE_GROW_H

#include <stddef.h>

/* The capacity an array of cap elements grows to for need of them: cap
 * (min_cap when cap is smaller, 1 when both are 0) doubled until it holds
 * need, so an array that starts at a power of two stays one. 0 when that
 * many elements of elem_size bytes would not fit in a size_t. For owners
 * that allocate themselves (mappings, an arena, a hash table's rehash). */
size_t grow_capacity(size_t cap, size_t need, size_t elem_size, size_t min_cap);

/* Slow path of grow_array: *items_ptr reallocated to grow_capacity's count. */
int grow_array_slow(void *items_ptr, size_t *cap, size_t need, size_t elem_size,
                    size_t min_cap);

/* Makes the array *items_ptr (a T **, holding *cap elements of elem_size
 * bytes) hold at least need elements, with realloc: the new slots are not
 * initialised. Returns 0, or -1 when out of memory or the size overflows;
 * then *items_ptr and *cap are unchanged (the array is still valid). */
static inline int grow_array(void *items_ptr, size_t *cap, size_t need, size_t elem_size,
                             size_t min_cap)
{
    if (need <= *cap)
        return 0;
    return grow_array_slow(items_ptr, cap, need, elem_size, min_cap);
}

/* grow_array with the element size taken from the pointer's type:
 * GROW_ARRAY(v->items, v->cap, v->n + 1, 16). cap must be a size_t. */
#define GROW_ARRAY(items, cap, need, min_cap) \
    grow_array(&(items), &(cap), (need), sizeof *(items), (min_cap))

#endif
