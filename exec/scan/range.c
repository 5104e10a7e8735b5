/* range.c: line-aligned ranges of a plain file. */
#include "exec/scan/range.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int range_first_line(input_t *whole, long long a, long long b, long long *start, err_t *e)
{
    if (a == 0) {
        *start = 0;
        return 0;
    }
    char buf[64 * 1024];
    long long pos = a - 1;
    while (pos < b - 1) {
        size_t want = sizeof buf;
        if ((long long)want > b - 1 - pos)
            want = (size_t)(b - 1 - pos);
        ssize_t n = pread(input_fd(whole), buf, want, pos);
        if (n < 0)
            return err_set(e, ERR_INPUT, "read failed at offset %lld", pos);
        /* The range lies within the size planned at the start: an end
         * of file before it is a file cut short while read. */
        if (n == 0)
            return input_err_shrank(e, input_name(whole));
        char *nl = memchr(buf, '\n', (size_t)n);
        if (nl) {
            *start = pos + (nl - buf) + 1;
            return 0;
        }
        pos += n;
    }
    *start = b;
    return 0;
}

/* The end of the lines of reg that start before stop (range_cut). */
static const char *cut_end(const region_t *reg, long long stop, int *last)
{
    *last = 0;
    if (!reg->cont && reg->off >= stop) {
        *last = 1;
        return reg->p;
    }
    if (reg->synthetic || reg->off + (long long)reg->len <= stop)
        return reg->p + reg->len;
    /* Keep lines up to the one holding byte stop - 1 (or, for the rest of a
     * split line that began before stop, up to its end); the next range
     * starts after that '\n'. */
    const char *at = reg->off < stop ? reg->p + (stop - 1 - reg->off) : reg->p;
    *last = 1;
    return (const char *)memchr(at, '\n', (size_t)(reg->p + reg->len - at)) + 1;
}

const char *range_cut(reader_t *r, const region_t *reg, long long stop, int *last)
{
    const char *end = cut_end(reg, stop, last);
    /* The next range reads those bytes: counted here too, every byte at a
     * range's edge would be counted twice. A synthetic region is kept or
     * dropped whole, and its added '\n' was not counted. */
    if (end == reg->p)
        r->bytes_read -= reg->len - (reg->synthetic ? 1 : 0);
    else
        r->bytes_read -= (size_t)(reg->p + reg->len - end);
    return end;
}

void range_plan_init(range_plan_t *rp, long long size, long long unit, long long tail,
                     int n_workers)
{
    rp->size = size;
    rp->unit = unit;
    rp->tail = tail;
    long long tail_bytes = (long long)(n_workers > 1 ? n_workers : 1) * unit;
    rp->n_big = size > tail_bytes ? (size - tail_bytes) / unit : 0;
    rp->n = rp->n_big + (size - rp->n_big * unit + tail - 1) / tail;
}

void range_plan_bounds(const range_plan_t *rp, long long k, long long *a, long long *b)
{
    if (k < rp->n_big) {
        *a = k * rp->unit;
        *b = *a + rp->unit;
    } else {
        *a = rp->n_big * rp->unit + (k - rp->n_big) * rp->tail;
        *b = *a + rp->tail;
    }
    if (*b > rp->size)
        *b = rp->size;
}

void range_workers_run(void *(*fn)(void *), void *args, size_t arg_size, int n)
{
    char *base = args;
    pthread_t *threads = n > 1 ? calloc((size_t)n, sizeof *threads) : NULL;
    int *started = n > 1 ? calloc((size_t)n, sizeof *started) : NULL;
    if (!threads || !started)
        n = 1;
    for (int i = 1; i < n; i++)
        started[i] = pthread_create(&threads[i], NULL, fn, base + (size_t)i * arg_size) == 0;
    fn(base);
    for (int i = 1; i < n; i++)
        if (started[i])
            pthread_join(threads[i], NULL);
    fn(base);   /* what a worker that never started left */
    free(threads);
    free(started);
}
