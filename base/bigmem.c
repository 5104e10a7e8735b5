/* bigmem.c: see bigmem.h. */
#include "base/bigmem.h"

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#define BIGMEM_MIN ((size_t)1 << 20)

static int is_big(size_t bytes)
{
    return bytes >= BIGMEM_MIN;
}

static void *map_new(size_t bytes)
{
    void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED)
        return NULL;
#ifdef MADV_HUGEPAGE
    madvise(p, bytes, MADV_HUGEPAGE);   /* a hint; without THP it is a no-op */
#endif
    return p;
}

void *bigmem_resize(void *p, size_t old_bytes, size_t new_bytes, int zero)
{
    if (!is_big(new_bytes)) {
        void *q = realloc(p, new_bytes ? new_bytes : 1);
        if (q && zero && new_bytes > old_bytes)
            memset((char *)q + old_bytes, 0, new_bytes - old_bytes);
        return q;
    }
    if (!p || !is_big(old_bytes)) {
        void *q = map_new(new_bytes);   /* fresh anonymous pages are zero */
        if (q && p) {
            memcpy(q, p, old_bytes);
            free(p);
        }
        return q;
    }
    void *q = mremap(p, old_bytes, new_bytes, MREMAP_MAYMOVE);
    if (q == MAP_FAILED)
        return NULL;
#ifdef MADV_HUGEPAGE
    madvise(q, new_bytes, MADV_HUGEPAGE);
#endif
    return q;   /* the grown tail is fresh, zero pages */
}

void bigmem_free(void *p, size_t bytes)
{
    if (!p)
        return;
    if (is_big(bytes))
        munmap(p, bytes);
    else
        free(p);
}
