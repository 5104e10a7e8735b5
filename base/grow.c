/* grow.c: see grow.h. */
#include "base/grow.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

size_t grow_capacity(size_t cap, size_t need, size_t elem_size, size_t min_cap)
{
    size_t max = SIZE_MAX / (elem_size ? elem_size : 1);
    if (need > max)
        return 0;
    size_t c = cap < min_cap ? min_cap : cap;
    if (c == 0)
        c = 1;
    while (c < need) {
        /* Doubling past max would overflow the byte count: refused rather
         * than cut to max, so the capacity stays cap times a power of two. */
        if (c > max / 2)
            return 0;
        c *= 2;
    }
    return c;
}

int grow_array_slow(void *items_ptr, size_t *cap, size_t need, size_t elem_size,
                    size_t min_cap)
{
    size_t c = grow_capacity(*cap, need, elem_size, min_cap);
    if (c == 0)
        return -1;
    /* items_ptr is a T **: read and written as bytes, since a T ** may
     * not be accessed as a void **. */
    void *items;
    memcpy(&items, items_ptr, sizeof items);
    void *grown = realloc(items, c * elem_size);
    if (!grown)
        return -1;
    memcpy(items_ptr, &grown, sizeof grown);
    *cap = c;
    return 0;
}
