/* sketch.c: DDSketch with dense, growable bucket stores. */
#include "exec/agg/sketch.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define SKETCH_MIN_VALUE 1e-9   /* smaller magnitudes count as zero */
#define SKETCH_MAX_BUCKETS 65536 /* per store; 1e-9..1e308 needs about 36000 */

static double gamma_log(void)
{
    static double lg = 0;
    if (lg == 0)
        lg = log((1 + SKETCH_ALPHA) / (1 - SKETCH_ALPHA));
    return lg;
}

sketch_t *sketch_new(void)
{
    sketch_t *s = calloc(1, sizeof *s);
    if (s) {
        s->min = INFINITY;
        s->max = -INFINITY;
    }
    return s;
}

void sketch_free(sketch_t *s)
{
    if (!s)
        return;
    free(s->pos.counts);
    free(s->neg.counts);
    free(s);
}

static int store_add(sketch_store_t *st, int32_t idx, uint64_t count)
{
    if (st->n == 0) {
        st->counts = calloc(16, sizeof *st->counts);
        if (!st->counts)
            return -1;
        st->n = 16;
        st->offset = idx - 8;
    }
    if (idx < st->offset || idx >= st->offset + (int32_t)st->n) {
        int32_t lo = idx < st->offset ? idx : st->offset;
        int32_t hi = idx >= st->offset + (int32_t)st->n ? idx + 1 : st->offset + (int32_t)st->n;
        uint32_t n = (uint32_t)(hi - lo);
        n = n < st->n * 2 ? st->n * 2 : n;
        uint64_t *c = calloc(n, sizeof *c);
        if (!c)
            return -1;
        /* Grow on the side that needs it. */
        int32_t new_off = idx < st->offset ? hi - (int32_t)n : lo;
        memcpy(c + (st->offset - new_off), st->counts, st->n * sizeof *c);
        free(st->counts);
        st->counts = c;
        st->n = n;
        st->offset = new_off;
    }
    st->counts[idx - st->offset] += count;
    return 0;
}

static int32_t bucket_of(double v)
{
    return (int32_t)ceil(log(v) / gamma_log());
}

static double bucket_value(int32_t idx)
{
    /* The midpoint (in relative terms) of bucket idx. */
    double g = exp(gamma_log());
    return 2.0 * pow(g, idx) / (1.0 + g);
}

int sketch_add(sketch_t *s, double v)
{
    if (isnan(v))
        return 0;
    s->total++;
    if (v < s->min)
        s->min = v;
    if (v > s->max)
        s->max = v;
    if (isinf(v)) {
        /* log() of an infinity is no bucket index (the cast is undefined). */
        if (v > 0)
            s->inf++;
        else
            s->ninf++;
        return 0;
    }
    if (v > SKETCH_MIN_VALUE)
        return store_add(&s->pos, bucket_of(v), 1);
    if (v < -SKETCH_MIN_VALUE)
        return store_add(&s->neg, bucket_of(-v), 1);
    s->zero++;
    return 0;
}

static int store_merge(sketch_store_t *into, const sketch_store_t *from)
{
    for (uint32_t i = 0; i < from->n; i++)
        if (from->counts[i] && store_add(into, from->offset + (int32_t)i, from->counts[i]) < 0)
            return -1;
    return 0;
}

int sketch_merge(sketch_t *into, const sketch_t *from)
{
    if (store_merge(&into->pos, &from->pos) < 0 || store_merge(&into->neg, &from->neg) < 0)
        return -1;
    into->zero += from->zero;
    into->inf += from->inf;
    into->ninf += from->ninf;
    into->total += from->total;
    if (from->min < into->min)
        into->min = from->min;
    if (from->max > into->max)
        into->max = from->max;
    return 0;
}

double sketch_quantile(const sketch_t *s, double q)
{
    if (s->total == 0)
        return 0;
    /* The rank of the wanted value, 0-based, as DDSketch defines it. */
    double rank = q * (double)(s->total - 1);
    uint64_t seen = s->ninf;
    double v = 0;
    int found = (double)seen > rank;
    if (found)
        v = -INFINITY;
    /* Negative values next, from the most negative. */
    for (uint32_t i = s->neg.n; i-- > 0 && !found;) {
        seen += s->neg.counts[i];
        if ((double)seen > rank) {
            v = -bucket_value(s->neg.offset + (int32_t)i);
            found = 1;
        }
    }
    if (!found) {
        seen += s->zero;
        if ((double)seen > rank) {
            v = 0;
            found = 1;
        }
    }
    for (uint32_t i = 0; i < s->pos.n && !found; i++) {
        seen += s->pos.counts[i];
        if ((double)seen > rank) {
            v = bucket_value(s->pos.offset + (int32_t)i);
            found = 1;
        }
    }
    if (!found)
        v = s->max;   /* +inf, or the last bucket's rounding at the top */
    if (v < s->min)
        v = s->min;
    if (v > s->max)
        v = s->max;
    return v;
}

/* Encoding: total, zero (u64), min, max (f64), then per store: offset (i32),
 * n (u32), n counts (u64); then, only if either is not 0, the counts of +inf
 * and -inf (u64 each). Little-endian host order is assumed for the
 * doubles and integers, as every supported platform is. */
static size_t store_size(const sketch_store_t *st)
{
    return 8 + (size_t)st->n * 8;
}

static int has_infinities(const sketch_t *s)
{
    return s->inf || s->ninf;
}

size_t sketch_encoded_size(const sketch_t *s)
{
    return 32 + store_size(&s->pos) + store_size(&s->neg) + (has_infinities(s) ? 16 : 0);
}

static size_t put(unsigned char *out, const void *v, size_t n)
{
    memcpy(out, v, n);
    return n;
}

static size_t store_encode(const sketch_store_t *st, unsigned char *out)
{
    size_t k = put(out, &st->offset, 4);
    k += put(out + k, &st->n, 4);
    if (st->n)
        k += put(out + k, st->counts, (size_t)st->n * 8);
    return k;
}

size_t sketch_encode(const sketch_t *s, unsigned char *out)
{
    size_t k = put(out, &s->total, 8);
    k += put(out + k, &s->zero, 8);
    k += put(out + k, &s->min, 8);
    k += put(out + k, &s->max, 8);
    k += store_encode(&s->pos, out + k);
    k += store_encode(&s->neg, out + k);
    if (has_infinities(s)) {
        k += put(out + k, &s->inf, 8);
        k += put(out + k, &s->ninf, 8);
    }
    return k;
}

static long store_decode(sketch_store_t *st, const unsigned char *in, size_t len)
{
    if (len < 8)
        return -1;
    int32_t off;
    uint32_t n;
    memcpy(&off, in, 4);
    memcpy(&n, in + 4, 4);
    if (n > SKETCH_MAX_BUCKETS || len - 8 < (size_t)n * 8)
        return -1;
    /* A count only where a value can fall: from an untrusted partial, a
     * far index would grow the store toward gigabytes (the zero padding of
     * a grown store may lie outside, its counts not). */
    const int64_t lo = bucket_of(SKETCH_MIN_VALUE), hi = bucket_of(DBL_MAX);
    for (uint32_t i = 0; i < n; i++) {
        uint64_t c;
        memcpy(&c, in + 8 + (size_t)i * 8, 8);
        if (!c)
            continue;
        int64_t idx = (int64_t)off + i;
        if (idx < lo || idx > hi || store_add(st, (int32_t)idx, c) < 0)
            return -1;
    }
    return 8 + (long)n * 8;
}

long sketch_decode(sketch_t *s, const unsigned char *in, size_t len)
{
    if (len < 32)
        return -1;
    uint64_t total, zero;
    double mn, mx;
    memcpy(&total, in, 8);
    memcpy(&zero, in + 8, 8);
    memcpy(&mn, in + 16, 8);
    memcpy(&mx, in + 24, 8);
    long a = store_decode(&s->pos, in + 32, len - 32);
    if (a < 0)
        return -1;
    long b = store_decode(&s->neg, in + 32 + a, len - 32 - (size_t)a);
    if (b < 0)
        return -1;
    size_t used = 32 + (size_t)a + (size_t)b;
    uint64_t inf = 0, ninf = 0;
    if (len - used >= 16) {
        memcpy(&inf, in + used, 8);
        memcpy(&ninf, in + used + 8, 8);
        used += 16;
    }
    s->inf += inf;
    s->ninf += ninf;
    s->total += total;
    s->zero += zero;
    if (mn < s->min)
        s->min = mn;
    if (mx > s->max)
        s->max = mx;
    return (long)used;
}
