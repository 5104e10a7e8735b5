/* mapguard.h: turns a SIGBUS from a memory-mapped file that shrank under us
 * (a log truncated by copytruncate while dcat reads it) into an error value
 * instead of a crash.
 *
 * A scan arms a guard with sigsetjmp before touching mapped bytes; the
 * SIGBUS handler jumps back to it when the faulting address lies inside the
 * guard's mapping. Any other SIGBUS keeps its default action. The current
 * guard is per thread. */
#ifndef DTAIL_EXEC_MAPGUARD_H
#define DTAIL_EXEC_MAPGUARD_H

#include <setjmp.h>

typedef struct map_guard {
    sigjmp_buf jb;          /* where a fault in [lo, hi) resumes */
    const char *volatile lo;/* mapping start, NULL when nothing is mapped */
    const char *volatile hi;/* mapping end */
} map_guard_t;

/* Installs the SIGBUS handler once per process. */
void map_guard_install(void);
/* Makes g the calling thread's guard (NULL to disarm). */
void map_guard_set(map_guard_t *g);

#endif
