/* dt41_agg.c: AGGREGATE messages of DTail 4.1, as the Go dserver writes
 * them (mapr/aggregateset.go Serialize, server/handlers/basehandler.go)
 * and the Go client reads them (clients/handlers/maprhandler.go,
 * mapr/client/aggregate.go). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/numfmt_short.h"
#include "wire/dt41.h"
#include "wire/dt41_go.h"

#define PART_LEN (sizeof DT41_PART - 1)
#define KV_LEN (sizeof DT41_KV - 1)

void dt41_agg_init(dt41_agg_t *a)
{
    memset(a, 0, sizeof *a);
    a->trailing = true;
}

void dt41_agg_free(dt41_agg_t *a)
{
    free(a->fields);
    memset(a, 0, sizeof *a);
}

void dt41_agg_clear(dt41_agg_t *a)
{
    a->host = a->group = (dt41_str_t){"", 0};
    a->samples = 0;
    a->nfields = 0;
    a->trailing = true;
}

static dt41_field_t *new_field(dt41_agg_t *a)
{
    if (a->nfields == a->cap) {
        size_t cap = a->cap ? a->cap * 2 : 8;
        dt41_field_t *nf = realloc(a->fields, cap * sizeof *nf);
        if (!nf)
            return NULL;
        a->fields = nf;
        a->cap = cap;
    }
    dt41_field_t *f = &a->fields[a->nfields++];
    memset(f, 0, sizeof *f);
    return f;
}

int dt41_agg_add_float(dt41_agg_t *a, const char *key, size_t kn, double v)
{
    dt41_field_t *f = new_field(a);
    if (!f)
        return -1;
    f->key = (dt41_str_t){key, kn};
    f->type = DT41_FIELD_FLOAT;
    f->f = v;
    return 0;
}

int dt41_agg_add_string(dt41_agg_t *a, const char *key, size_t kn, const char *s, size_t sn)
{
    dt41_field_t *f = new_field(a);
    if (!f)
        return -1;
    f->key = (dt41_str_t){key, kn};
    f->type = DT41_FIELD_STRING;
    f->s = (dt41_str_t){s, sn};
    return 0;
}

/* A value is a FLOAT when it is a number exactly as Go formats it, so that
 * formatting the number gives the same bytes. */
static bool canonical_float(dt41_str_t v, double *out)
{
    char buf[NUMFMT_SHORT_MAX], back[NUMFMT_SHORT_MAX];
    if (v.n == 0 || v.n >= sizeof buf || !strchr("+-0123456789N", v.p[0]))
        return false;
    memcpy(buf, v.p, v.n);
    buf[v.n] = '\0';
    char *end;
    double d = strtod(buf, &end);
    if ((size_t)(end - buf) != v.n)
        return false;
    int n = numfmt_shortest(back, sizeof back, d);
    if (n < 0 || (size_t)n != v.n || memcmp(back, v.p, v.n) != 0)
        return false;
    *out = d;
    return true;
}

/* The next '∥'-separated part of [*p, end); *p moves past its separator
 * (to end when none). */
static dt41_str_t next_part(const char **p, const char *end, bool *more)
{
    const char *s = *p;
    const char *q = s;
    while ((q = memchr(q, DT41_PART[0], (size_t)(end - q))) && (size_t)(end - q) >= PART_LEN &&
           memcmp(q, DT41_PART, PART_LEN) != 0)
        q++;
    if (q && (size_t)(end - q) < PART_LEN)
        q = NULL;
    *more = q != NULL;
    *p = q ? q + PART_LEN : end;
    return (dt41_str_t){s, (size_t)((q ? q : end) - s)};
}

static int add_part(dt41_agg_t *a, dt41_str_t part, err_t *e)
{
    dt41_field_t *f = new_field(a);
    if (!f)
        return err_set(e, ERR_NOMEM, "out of memory for an aggregate's fields");
    const char *kv = NULL;
    for (const char *q = part.p; (size_t)(part.p + part.n - q) >= KV_LEN; q++)
        if (memcmp(q, DT41_KV, KV_LEN) == 0) {
            kv = q;
            break;
        }
    if (!kv) {   /* Go's client skips it */
        f->type = DT41_FIELD_BARE;
        f->key = part;
        return 0;
    }
    f->key = (dt41_str_t){part.p, (size_t)(kv - part.p)};
    f->s = (dt41_str_t){kv + KV_LEN, (size_t)(part.p + part.n - kv - KV_LEN)};
    f->type = canonical_float(f->s, &f->f) ? DT41_FIELD_FLOAT : DT41_FIELD_STRING;
    return 0;
}

int dt41_agg_parse(dt41_agg_t *a, const char *msg, size_t n, err_t *e)
{
    static const char head[] = "AGGREGATE|";
    dt41_agg_clear(a);
    if (n < sizeof head - 1 || memcmp(msg, head, sizeof head - 1) != 0)
        return err_set_at(e, ERR_INPUT, 0, "not an AGGREGATE message");
    const char *p = msg + sizeof head - 1, *end = msg + n;
    const char *bar = memchr(p, '|', (size_t)(end - p));
    if (!bar)
        return err_set_at(e, ERR_INPUT, (long)n, "unable to aggregate data: expected 3 parts");
    a->host = (dt41_str_t){p, (size_t)(bar - p)};
    const char *data = bar + 1;
    /* Go's client splits the data on '∥' and wants 4 parts at least:
     * group, samples, a field and what follows its '∥'. */
    size_t nparts = 0;
    bool more = true;
    for (const char *q = data; more; nparts++)
        next_part(&q, end, &more);
    if (nparts < 4)
        return err_set_at(e, ERR_INPUT, (long)(data - msg), "aggregate message without any real data");
    p = data;
    dt41_str_t parts[2];
    parts[0] = next_part(&p, end, &more);
    parts[1] = next_part(&p, end, &more);
    a->group = parts[0];
    long long samples;
    enum go_num r = go_atoi(parts[1].p, parts[1].n, &samples);
    if (r != GO_NUM_OK) {
        char num[700];
        go_num_error(num, sizeof num, "Atoi", parts[1].p, parts[1].n, r);
        return err_set_at(e, ERR_INPUT, (long)(parts[1].p - msg), "unable to parse sample count '%.*s': %s",
                          (int)parts[1].n, parts[1].p, num);
    }
    a->samples = samples;
    a->trailing = false;
    while (more) {
        dt41_str_t part = next_part(&p, end, &more);
        if (!more && part.n == 0) {
            a->trailing = true;
            break;
        }
        if (add_part(a, part, e) < 0)
            return -1;
    }
    return 0;
}

void dt41_put_aggregate(wire_buf_t *b, const dt41_agg_t *a)
{
    char num[NUMFMT_SHORT_MAX];
    wire_put_bytes(b, "AGGREGATE|", 10);
    wire_put_bytes(b, a->host.p, a->host.n);
    wire_put_bytes(b, "|", 1);
    wire_put_bytes(b, a->group.p, a->group.n);
    wire_put_bytes(b, DT41_PART, PART_LEN);
    int n = snprintf(num, sizeof num, "%lld", a->samples);
    wire_put_bytes(b, num, (size_t)n);
    for (size_t i = 0; i < a->nfields; i++) {
        const dt41_field_t *f = &a->fields[i];
        wire_put_bytes(b, DT41_PART, PART_LEN);
        wire_put_bytes(b, f->key.p, f->key.n);
        if (f->type == DT41_FIELD_BARE)
            continue;
        wire_put_bytes(b, DT41_KV, KV_LEN);
        if (f->type == DT41_FIELD_FLOAT) {
            n = numfmt_shortest(num, sizeof num, f->f);
            wire_put_bytes(b, num, (size_t)n);
        } else {
            wire_put_bytes(b, f->s.p, f->s.n);
        }
    }
    if (a->trailing)
        wire_put_bytes(b, DT41_PART, PART_LEN);
    wire_put_u8(b, DT41_DELIM);
}
