/* aggregate.c: the AGGREGATE payload's header, group records, state
 * shapes and sketches, little-endian. */
#include "wire/aggregate.h"

#include <string.h>

#define MAGIC_LEN 4
#define SPEC_LEN 9          /* u8 kind, f64 quantile */

size_t wire_agg_put_header(wire_buf_t *w, uint8_t version, const wire_agg_spec_t *specs,
                           size_t n_specs)
{
    wire_put_bytes(w, WIRE_AGG_MAGIC, MAGIC_LEN);
    wire_put_u8(w, version);
    wire_put_le32(w, (uint32_t)n_specs);
    for (size_t s = 0; s < n_specs; s++) {
        wire_put_u8(w, specs[s].kind);
        wire_put_lef64(w, specs[s].quantile);
    }
    size_t count_at = w->len;
    wire_put_le64(w, 0);
    return count_at;
}

void wire_agg_set_groups(wire_buf_t *w, size_t count_at, uint64_t n_groups)
{
    if (!w->failed && count_at + 8 <= w->len)
        wire_le64_store(w->p + count_at, n_groups);
}

int wire_agg_get_header(wire_le_reader_t *r, uint8_t *version_out, uint32_t *n_specs, err_t *e)
{
    const unsigned char *magic;
    uint8_t version;
    if (wire_le_get_bytes(r, &magic, MAGIC_LEN, "magic", e) < 0)
        return -1;
    if (memcmp(magic, WIRE_AGG_MAGIC, MAGIC_LEN) != 0)
        return wire_le_fail(r, 0, e, "bad magic (not \"" WIRE_AGG_MAGIC "\")");
    if (wire_le_get_u8(r, &version, "version", e) < 0)
        return -1;
    if (version < WIRE_AGG_VERSION_MIN || version > WIRE_AGG_VERSION)
        return wire_le_fail(r, r->pos - 1, e, "unsupported version %u (this build reads %d to %d)",
                            version, WIRE_AGG_VERSION_MIN, WIRE_AGG_VERSION);
    *version_out = version < WIRE_AGG_VERSION_V2 ? WIRE_AGG_VERSION_V2 : version;
    if (wire_le_get_u32(r, n_specs, "spec count", e) < 0)
        return -1;
    /* Each spec takes 9 bytes: a count the rest cannot hold is no header. */
    if (*n_specs > wire_le_left(r) / SPEC_LEN)
        return wire_le_fail(r, r->pos - 4, e, "%u select items, but %zu bytes follow", *n_specs,
                            wire_le_left(r));
    return 0;
}

int wire_agg_get_spec(wire_le_reader_t *r, wire_agg_spec_t *s, err_t *e)
{
    if (wire_le_get_u8(r, &s->kind, "spec kind", e) < 0)
        return -1;
    return wire_le_get_f64(r, &s->quantile, "spec quantile", e);
}

int wire_agg_get_groups(wire_le_reader_t *r, uint64_t *n_groups, err_t *e)
{
    return wire_le_get_u64(r, n_groups, "group count", e);
}

/* Bytes of the header before its group count, read from p. */
static int header_len(const unsigned char *p, size_t len, const char *what, size_t *h, err_t *e)
{
    wire_le_reader_t r = wire_le_reader(p, len, what);
    uint32_t n_specs;
    uint8_t version;
    if (wire_agg_get_header(&r, &version, &n_specs, e) < 0)
        return -1;
    const unsigned char *specs;
    uint64_t n_groups;
    if (wire_le_get_bytes(&r, &specs, (size_t)n_specs * SPEC_LEN, "spec list", e) < 0)
        return -1;
    *h = r.pos;
    return wire_agg_get_groups(&r, &n_groups, e);
}

int wire_agg_join(wire_buf_t *whole, const unsigned char *part, size_t len, err_t *e)
{
    size_t h;
    if (header_len(part, len, WIRE_AGG_WHAT " part, malformed header", &h, e) < 0)
        return -1;
    if (whole->len == 0) {
        wire_put_bytes(whole, part, len);
    } else {
        size_t wh;
        if (header_len(whole->p, whole->len, WIRE_AGG_WHAT " joined", &wh, e) < 0)
            return -1;
        if (wh != h || memcmp(whole->p, part, h) != 0)
            return err_set(e, ERR_INPUT, WIRE_AGG_WHAT " part: select items differ from the "
                                         "table's first part");
        uint64_t n = wire_le64_load(whole->p + h) + wire_le64_load(part + h);
        wire_put_bytes(whole, part + h + 8, len - h - 8);
        wire_agg_set_groups(whole, h, n);
    }
    return whole->failed ? err_set(e, ERR_NOMEM, "out of memory joining a " WIRE_AGG_WHAT) : 0;
}

void wire_agg_put_key(wire_buf_t *w, const void *key, uint32_t len)
{
    wire_put_lestr(w, key, len);
}

int wire_agg_get_key(wire_le_reader_t *r, const char **key, uint32_t *len, err_t *e)
{
    const unsigned char *p;
    if (wire_le_get_str(r, &p, len, "group key", e) < 0)
        return -1;
    *key = (const char *)p;
    return 0;
}

void wire_agg_put_sum(wire_buf_t *w, double sum, uint64_t n)
{
    wire_put_lef64(w, sum);
    wire_put_le64(w, n);
}

int wire_agg_get_sum(wire_le_reader_t *r, double *sum, uint64_t *n, err_t *e)
{
    if (wire_le_get_f64(r, sum, "sum state", e) < 0)
        return -1;
    return wire_le_get_u64(r, n, "sum state's count", e);
}

void wire_agg_put_last(wire_buf_t *w, uint64_t seq, const void *p, uint32_t len)
{
    wire_put_le64(w, seq);
    wire_put_le32(w, len);
    wire_put_bytes(w, p, seq ? len : 0);
}

int wire_agg_get_last(wire_le_reader_t *r, uint64_t *seq, const char **p, uint32_t *len, err_t *e)
{
    const unsigned char *v = (const unsigned char *)"";
    if (wire_le_get_u64(r, seq, "last state's seq", e) < 0 ||
        wire_le_get_u32(r, len, "last state's length", e) < 0)
        return -1;
    if (*seq && wire_le_get_bytes(r, &v, *len, "last state's value", e) < 0)
        return -1;
    if (!*seq)
        *len = 0;
    *p = (const char *)v;
    return 0;
}

/* ---- sketches --------------------------------------------------------- */

#define SKETCH_HEAD 32      /* total, zero, min, max */
#define STORE_HEAD 8        /* offset, n */

static int has_infinities(const wire_sketch_t *s)
{
    return s->inf || s->ninf;
}

size_t wire_sketch_size(const wire_sketch_t *s)
{
    return SKETCH_HEAD + 2 * STORE_HEAD + ((size_t)s->pos.n + s->neg.n) * 8 +
           (has_infinities(s) ? 16 : 0);
}

static size_t store_store(const wire_sketch_store_t *st, unsigned char *out)
{
    wire_le32_store(out, (uint32_t)st->offset);
    wire_le32_store(out + 4, st->n);
    for (uint32_t i = 0; i < st->n; i++)
        wire_le64_store(out + STORE_HEAD + (size_t)i * 8, st->counts[i]);
    return STORE_HEAD + (size_t)st->n * 8;
}

size_t wire_sketch_store(const wire_sketch_t *s, unsigned char *out)
{
    wire_le64_store(out, s->total);
    wire_le64_store(out + 8, s->zero);
    wire_lef64_store(out + 16, s->min);
    wire_lef64_store(out + 24, s->max);
    size_t k = SKETCH_HEAD;
    k += store_store(&s->pos, out + k);
    k += store_store(&s->neg, out + k);
    if (has_infinities(s)) {
        wire_le64_store(out + k, s->inf);
        wire_le64_store(out + k + 8, s->ninf);
        k += 16;
    }
    return k;
}

static int store_get(wire_le_reader_t *r, wire_sketch_store_t *st, const char *which, err_t *e)
{
    uint32_t off;
    if (wire_le_get_u32(r, &off, which, e) < 0 || wire_le_get_u32(r, &st->n, which, e) < 0)
        return -1;
    st->offset = (int32_t)off;
    st->counts = NULL;
    if (st->n > wire_le_left(r) / 8)
        return wire_le_fail(r, r->pos - 4, e, "%s of %u buckets, but %zu bytes follow", which,
                            st->n, wire_le_left(r));
    return wire_le_get_bytes(r, &st->le, (size_t)st->n * 8, which, e);
}

int wire_sketch_get(wire_le_reader_t *r, wire_sketch_t *s, err_t *e)
{
    if (wire_le_get_u64(r, &s->total, "sketch total", e) < 0 ||
        wire_le_get_u64(r, &s->zero, "sketch zero count", e) < 0 ||
        wire_le_get_f64(r, &s->min, "sketch min", e) < 0 ||
        wire_le_get_f64(r, &s->max, "sketch max", e) < 0 ||
        store_get(r, &s->pos, "sketch positive store", e) < 0 ||
        store_get(r, &s->neg, "sketch negative store", e) < 0)
        return -1;
    s->inf = s->ninf = 0;
    if (wire_le_left(r) &&
        (wire_le_get_u64(r, &s->inf, "sketch +inf count", e) < 0 ||
         wire_le_get_u64(r, &s->ninf, "sketch -inf count", e) < 0))
        return -1;
    if (wire_le_left(r))
        return wire_le_fail(r, r->pos, e, "%zu bytes after the sketch", wire_le_left(r));
    return 0;
}
