/* range.h: cutting a plain file into byte ranges that workers read in
 * parallel, with whole lines: a line belongs to the range its first byte
 * lies in. Shared by the parallel cat/grep scan and the mapreduce scan. */
#ifndef DTAIL_EXEC_RANGE_H
#define DTAIL_EXEC_RANGE_H

#include <pthread.h>
#include <stddef.h>

#include "base/err.h"
#include "exec/scan/input.h"
#include "exec/scan/reader.h"

/* How a file of `size` bytes is cut into work units: units of `unit`
 * bytes, except that the last n_workers * unit bytes go in units of `tail`,
 * so the workers finish together instead of one idling while another ends
 * a large unit. */
typedef struct range_plan {
    long long size;      /* file bytes */
    long long unit;      /* bytes per unit */
    long long tail;      /* bytes per unit near the end */
    long long n_big;     /* the first n_big units are `unit` long */
    long long n;         /* units in all */
} range_plan_t;

void range_plan_init(range_plan_t *rp, long long size, long long unit, long long tail,
                     int n_workers);
/* Bytes [*a, *b) of unit k < rp->n (b clipped to the size). */
void range_plan_bounds(const range_plan_t *rp, long long k, long long *a, long long *b);

/* Runs fn(arg) on n workers at once: n - 1 new threads and the caller
 * (args is an array of n elements of arg_size bytes, one per worker).
 * fn claims work until none is left, so when a thread cannot start, the
 * caller's second run after the joins does what it left (and when the
 * thread handles cannot be allocated, the caller does it all). */
void range_workers_run(void *(*fn)(void *), void *args, size_t arg_size, int n);

/* Offset of the first line that starts in [a, b): one past the first '\n'
 * in [a - 1, b - 1). Sets *start = b when no line starts there (the range
 * lies inside a line owned by an earlier range). */
int range_first_line(input_t *whole, long long a, long long b, long long *start, err_t *e);

/* The part of region reg (just handed out by r) holding lines that start
 * before stop. Returns the end of that part (reg->p when none) and sets
 * *last when the range ends inside this region; the bytes after the end
 * are taken off r->bytes_read, so a range counts exactly its own lines. */
const char *range_cut(reader_t *r, const region_t *reg, long long stop, int *last);

#endif
