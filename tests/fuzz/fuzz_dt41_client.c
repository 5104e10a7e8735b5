/* fuzz_dt41_client.c: libFuzzer target over our client's side of DTail
 * 4.1 (client/remote/dt41.c, dt41_fold.c): the input is what a Go dserver
 * answers, fed in pieces of a size the first byte picks, to a request the
 * first byte also picks (cat, grep or tail in each render, dmap, dtail
 * --query). Any answer must end the request with its end or an error with
 * a message: never a crash, a leak or a loop; and what goes on to the
 * merger must be what the merger reads: every table the fold hands on
 * merges into a table of the same query, every field report decodes
 * (else abort). Seeds: the Go dserver's recorded answers
 * (tests/fixtures/dt41/client/NAME.s2c), one selector byte in front. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/log.h"
#include "client/remote/dt41.h"
#include "exec/agg/eval.h"
#include "exec/fieldreport.h"
#include "parser/parser.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define QUERY "from STATS select count($line),last($time),avg($goroutines),min(x),max(x)," \
              "len($time),sum(y),percentage(y) group by $hostname,$time"

typedef struct mem {
    const uint8_t *p;
    size_t n, off, chunk;
} mem_t;

static ssize_t mem_read(void *ctx, void *buf, size_t n, err_t *e)
{
    (void)e;
    mem_t *m = ctx;
    size_t k = m->n - m->off;
    if (k > m->chunk)
        k = m->chunk;
    if (k > n)
        k = n;
    memcpy(buf, m->p + m->off, k);
    m->off += k;
    return (ssize_t)k;
}

static int mem_write(void *ctx, const void *buf, size_t n, err_t *e)
{
    (void)ctx, (void)buf, (void)n, (void)e;
    return 0;
}

typedef struct sink {
    const plan_t *plan;
    agg_spec_t specs[16];
} sink_t;

static int on_lines(void *ctx, const char *p, size_t len, err_t *e)
{
    (void)ctx, (void)e;
    if (len && p[len - 1] != '\n')
        abort();   /* lines go on whole */
    return 0;
}

static int merges(sink_t *s, const unsigned char *p, size_t len)
{
    agg_table_t t;
    err_t e;
    if (agg_table_init(&t, s->specs, s->plan->n_select, &e) < 0)
        return 0;
    if (agg_table_merge_serialized(&t, p, len, &e) < 0)
        abort();
    agg_table_free(&t);
    return 0;
}

static int on_part(void *ctx, const unsigned char *p, size_t len, uint8_t flags, err_t *e)
{
    (void)flags, (void)e;
    return merges(ctx, p, len);
}

static int on_aggregate(void *ctx, const unsigned char *p, size_t len, int final, err_t *e)
{
    (void)final, (void)e;
    return merges(ctx, p, len);
}

static int on_fields(void *ctx, const unsigned char *p, size_t len, err_t *e)
{
    sink_t *s = ctx;
    field_report_t r;
    if (field_report_init(&r, s->plan, e) < 0)
        return 0;
    if (field_report_merge_encoded(&r, p, len, e) < 0)
        abort();
    field_report_free(&r);
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    unsigned sel = data[0];
    static const uint8_t kinds[] = {WIRE_KIND_CAT, WIRE_KIND_GREP, WIRE_KIND_TAIL, WIRE_KIND_MAP,
                                    WIRE_KIND_TAIL};
    uint8_t kind = kinds[(sel >> 2) % 5];
    int query = (sel >> 2) % 5 >= 3;
    mem_t m = {.p = data + 1, .n = size - 1, .chunk = 1 + (sel >> 5) * 41};
    log_level = LOG_NONE;
    FILE *quiet = freopen("/dev/null", "w", stderr);
    (void)quiet;

    sink_t s;
    query_t *q = NULL;
    err_t e;
    err_clear(&e);
    if (query_parse(QUERY, strlen(QUERY), NULL, &q, &e) < 0)
        abort();
    s.plan = query_plan(q);
    eval_specs(s.plan, s.specs);

    remote_conn_t c;
    memset(&c, 0, sizeof c);
    c.s = (stream_t){.ctx = &m, .read = mem_read, .write = mem_write};
    if (wire_reader_init(&c.r, &c.s, 0, &e) < 0)
        abort();
    c.dt41 = 1;
    wire_request_t rq = {.kind = kind, .render = (uint8_t)(sel & 3) % 3, .files = "/a.log,/b.log",
                         .regex = "ERROR", .query = query ? QUERY : ""};
    remote_handler_t h = {.ctx = &s, .on_lines = on_lines};
    if (query) {
        h.on_lines = NULL;
        if (kind == WIRE_KIND_MAP) {
            h.on_aggregate_part = on_part;
            h.on_fields = on_fields;
        } else {
            h.on_aggregate = on_aggregate;
        }
    }
    client_run_t rs;
    memset(&rs, 0, sizeof rs);
    if (remote_dt41_request(&c, &rq, NULL, &h, &rs, &e) < 0 && !e.msg[0])
        abort();   /* an error always says what */
    wire_reader_free(&c.r);
    query_free(q);
    return 0;
}
