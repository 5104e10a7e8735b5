/* sketch.c: DDSketch with dense, growable bucket stores. */
#include "exec/agg/sketch.h"

#include <float.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "wire/aggregate.h"

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

/* bucket_of for a value added: logged values repeat (integers of a
 * field: counts, milliseconds, sizes), so the last index computed for
 * each of 512 slots (by the value's bits) is kept per thread, and a value
 * seen again costs no log(). The index is bucket_of's either way. The
 * slots start at 0.0, which no value here is (> 1e-9). */
typedef struct memo_slot {
    double v;
    int32_t idx;
} memo_slot_t;

#define MEMO_SLOTS 512
/* The thread's slots, made on its first value: in TLS itself they would be
 * zeroed into every thread of the process at its start, also the many
 * that never add a value (a dmap client's thread per server). */
static _Thread_local memo_slot_t *memo;
static pthread_key_t memo_key;
static pthread_once_t memo_once = PTHREAD_ONCE_INIT;

static void memo_key_make(void)
{
    (void)pthread_key_create(&memo_key, free);   /* freed as the thread ends */
}

static memo_slot_t *thread_memo(void)
{
    if (!memo) {
        pthread_once(&memo_once, memo_key_make);
        memo = calloc(MEMO_SLOTS, sizeof *memo);
        if (memo)
            (void)pthread_setspecific(memo_key, memo);
    }
    return memo;
}

static int32_t bucket_of_memo(double v)
{
    memo_slot_t *m = thread_memo();
    if (!m)
        return bucket_of(v);
    uint64_t bits;
    memcpy(&bits, &v, sizeof bits);
    size_t slot = (size_t)((bits * 0x9e3779b97f4a7c15ull) >> 55);
    if (m[slot].v == v)
        return m[slot].idx;
    int32_t idx = bucket_of(v);
    m[slot].v = v;
    m[slot].idx = idx;
    return idx;
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
        return store_add(&s->pos, bucket_of_memo(v), 1);
    if (v < -SKETCH_MIN_VALUE)
        return store_add(&s->neg, bucket_of_memo(-v), 1);
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

/* Encoding: wire/aggregate.h lays the sketch out (wire_sketch_t); the
 * counts of infinities follow the stores only when there are any. */

/* A store from its first to its last bucket that counts anything. A store
 * grows by doubling, so one that spans values from 1 to 1e300 holds up to
 * twice the 36000 buckets that can count anything: sent whole it was
 * over the SKETCH_MAX_BUCKETS a reader takes, and refused. */
static wire_sketch_store_t store_view(const sketch_store_t *st)
{
    uint32_t lo = 0, hi = st->n;
    while (lo < hi && !st->counts[lo])
        lo++;
    while (hi > lo && !st->counts[hi - 1])
        hi--;
    return (wire_sketch_store_t){st->offset + (int32_t)lo, hi - lo,
                                 st->counts ? st->counts + lo : NULL, NULL};
}

static wire_sketch_t wire_view(const sketch_t *s)
{
    return (wire_sketch_t){
        .total = s->total, .zero = s->zero, .inf = s->inf, .ninf = s->ninf,
        .min = s->min, .max = s->max,
        .pos = store_view(&s->pos), .neg = store_view(&s->neg),
    };
}

size_t sketch_encoded_size(const sketch_t *s)
{
    wire_sketch_t w = wire_view(s);
    return wire_sketch_size(&w);
}

size_t sketch_encode(const sketch_t *s, unsigned char *out)
{
    wire_sketch_t w = wire_view(s);
    return wire_sketch_store(&w, out);
}

/* Adds the counts of a decoded store. A count only where a value can
 * fall: from an untrusted partial, a far index would grow the store
 * toward gigabytes (the zero padding of a grown store may lie outside,
 * its counts not). */
static int store_merge_wire(sketch_store_t *st, const wire_sketch_store_t *w, err_t *e)
{
    if (w->n > SKETCH_MAX_BUCKETS)
        return err_set(e, ERR_INPUT, "quantile sketch store of %u buckets (at most %d)", w->n,
                       SKETCH_MAX_BUCKETS);
    const int64_t lo = bucket_of(SKETCH_MIN_VALUE), hi = bucket_of(DBL_MAX);
    for (uint32_t i = 0; i < w->n; i++) {
        uint64_t c = wire_sketch_count(w, i);
        if (!c)
            continue;
        int64_t idx = (int64_t)w->offset + i;
        if (idx < lo || idx > hi)
            return err_set(e, ERR_INPUT, "quantile sketch bucket %lld where no value falls",
                           (long long)idx);
        if (store_add(st, (int32_t)idx, c) < 0)
            return err_set(e, ERR_NOMEM, "out of memory merging a quantile sketch");
    }
    return 0;
}

int sketch_merge_wire(sketch_t *s, const wire_sketch_t *w, err_t *e)
{
    if (store_merge_wire(&s->pos, &w->pos, e) < 0 || store_merge_wire(&s->neg, &w->neg, e) < 0)
        return -1;
    s->inf += w->inf;
    s->ninf += w->ninf;
    s->total += w->total;
    s->zero += w->zero;
    if (w->min < s->min)
        s->min = w->min;
    if (w->max > s->max)
        s->max = w->max;
    return 0;
}

long sketch_decode(sketch_t *s, const unsigned char *in, size_t len)
{
    err_t e;
    wire_le_reader_t r = wire_le_reader(in, len, "quantile sketch");
    wire_sketch_t w;
    if (wire_sketch_get(&r, &w, &e) < 0 || sketch_merge_wire(s, &w, &e) < 0)
        return -1;
    return (long)len;
}
