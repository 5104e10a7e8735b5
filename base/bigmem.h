/* bigmem.h: large growable arrays (hash slots, group records, key stores).
 *
 * Arrays of a mebibyte or more get an anonymous mapping of their own with
 * transparent huge pages requested, and grow with mremap: a table of a
 * million groups then takes a few hundred page faults instead of tens of
 * thousands, and growing it moves page table entries instead of copying
 * bytes. Smaller arrays use malloc. The caller keeps the size (every owner
 * already tracks its capacity), so no header is stored. */
#ifndef DTAIL_BASE_BIGMEM_H
#define DTAIL_BASE_BIGMEM_H

#include <stddef.h>

/* Resizes p (of old_bytes; NULL and 0 for a new array) to new_bytes >=
 * old_bytes, keeping the contents. With zero, the new tail is zeroed.
 * Returns NULL (p still valid) when out of memory. */
void *bigmem_resize(void *p, size_t old_bytes, size_t new_bytes, int zero);
/* Frees an array of `bytes` from bigmem_resize. */
void bigmem_free(void *p, size_t bytes);

#endif
