/* fuzz_wire.c: libFuzzer target over the frame decoder and every message
 * decoder. The input is split into chunks (sizes taken from its first
 * byte) to exercise partial frames; any input must decode into frames or
 * fail with an error message, never crash, leak or loop. AGGREGATE
 * messages also go through the client's own handling
 * (remote_aggregate_frame: parts flagged `more` joined, bounded) into a
 * handler that merges each table into tables of two select lists. A
 * HELLO's early request (wire/hello_early.h) is decoded as a REQUEST. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "client/remote/session.h"
#include "exec/agg/table.h"
#include "exec/sink/result.h"
#include "wire/frame.h"
#include "wire/hello_early.h"
#include "wire/msg.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Every aggregate kind, as the seed's tables have them; and a count. */
static const agg_spec_t all_specs[] = {
    {PLAN_AGG_COUNT, 0, 0, false, 0}, {PLAN_AGG_SUM, 0, 0, false, 0}, {PLAN_AGG_MIN, 0, 0, false, 0}, {PLAN_AGG_MAX, 0, 0, false, 0},
    {PLAN_AGG_AVG, 0, 0, false, 0}, {PLAN_AGG_LAST, 0, 0, false, 0}, {PLAN_AGG_LEN, 0, 0, false, 0},
    {PLAN_AGG_PERCENTAGE, 0, 0, false, 0}, {PLAN_AGG_PERCENTILE, 0, 0, false, 0}, {PLAN_AGG_QUANTILE, 0.9, 0, false, 0},
};
static const agg_spec_t count_spec[] = {{PLAN_AGG_COUNT, 0, 0, false, 0}};
/* The kinds of version 3 (exact values or a sketch, a distinct set or a
 * HyperLogLog, top counters), as seeds 012 and 013 have them. */
static const agg_spec_t v3_specs[] = {{PLAN_AGG_QUANTILE, 0.9, 0, false, 0},
                                      {PLAN_AGG_COUNT_DISTINCT, 0, 0, false, 0},
                                      {PLAN_AGG_TOP, 3, 0, false, 3}};

static void merge_into(const agg_spec_t *specs, size_t n, const unsigned char *p, size_t len)
{
    agg_table_t t;
    err_t e;
    err_clear(&e);
    if (agg_table_init(&t, specs, n, &e) < 0)
        return;
    if (agg_table_merge_serialized(&t, p, len, &e) < 0) {
        if (!e.msg[0])
            abort();
    } else {
        /* what was merged renders (quantiles sort their values, top
         * orders its counters) */
        for (size_t g = 0; g < t.n_groups && g < 64; g++)
            for (size_t s = 0; s < n; s++) {
                const unsigned char *st = agg_table_state(&t, g, s);
                char cell[4096];
                const result_col_totals_t none = {0};
                if (result_cell_need(&t.specs[s], st) <= sizeof cell)
                    result_format_cell(cell, sizeof cell, &t.specs[s], st, &none);
                (void)agg_state_number(&t.specs[s], st);
                (void)agg_state_approx(&t.specs[s], st);
            }
    }
    agg_table_free(&t);
}

/* The handler: the table merged as a client's handlers merge it. */
static int on_aggregate(void *ctx, const unsigned char *p, size_t len, int final, err_t *e)
{
    (void)ctx;
    (void)final;
    (void)e;
    merge_into(all_specs, sizeof all_specs / sizeof all_specs[0], p, len);
    merge_into(count_spec, 1, p, len);
    merge_into(v3_specs, sizeof v3_specs / sizeof v3_specs[0], p, len);
    return 0;
}

/* A client's handling of one message; parts holds the pending parts of a
 * table (bounded at 4 MiB here, not the client's 4 GiB). */
static void client_side(const wire_msg_t *m, agg_bytes_t *parts)
{
    if (m->type != WIRE_AGGREGATE) {
        parts->len = 0;
        return;
    }
    remote_handler_t h = {.on_aggregate = on_aggregate};
    err_t e;
    err_clear(&e);
    if (remote_aggregate_frame(1u << 22, &h, parts, m, &e) < 0) {
        if (!e.msg[0])
            abort();
        parts->len = 0;
    }
}

static void decode_payload(const wire_frame_t *f, agg_bytes_t *parts)
{
    err_t e;
    err_clear(&e);   /* a failure must write its own message */
    if (f->type == WIRE_HELLO) {
        wire_hello_t h;
        if (wire_decode_hello(f, &h, &e) < 0) {
            if (!e.msg[0])
                abort();
            return;
        }
        /* The request it may carry, decoded as the server decodes it. */
        wire_early_t early;
        int rc = wire_hello_early_request(f, 1 << 20, &early, &e);
        if (rc < 0 && !e.msg[0])
            abort();
        if (rc == 1) {
            decode_payload(&early.frame, parts);
            free(early.buf);
        }
    } else if (f->type == WIRE_REQUEST) {
        wire_request_t rq;
        if (wire_decode_request(f, &rq, &e) == 0)
            wire_request_free(&rq);
        else if (!e.msg[0])
            abort();
    } else {
        wire_msg_t m;
        if (wire_decode_msg(f, &m, &e) < 0 && !e.msg[0])
            abort();
        if (m.data.len && (m.data.p < (const char *)f->p || m.data.p + m.data.len > (const char *)f->p + f->len))
            abort();
        if (!e.msg[0])
            client_side(&m, parts);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0)
        return 0;
    size_t chunk = 1 + data[0] % 64;
    data++;
    size--;
    wire_decoder_t d;
    err_t e;
    err_clear(&e);
    if (wire_decoder_init(&d, 1 << 20, &e) < 0)
        return 0;
    agg_bytes_t parts = {0};
    for (size_t off = 0; off < size;) {
        size_t n = size - off < chunk ? size - off : chunk;
        if (wire_decoder_feed(&d, data + off, n, &e) < 0)
            break;
        off += n;
        wire_frame_t f;
        int rc;
        while ((rc = wire_decoder_next(&d, &f, &e)) == 1)
            decode_payload(&f, &parts);
        if (rc < 0) {
            if (!e.msg[0])
                abort();
            break;
        }
    }
    wire_decoder_free(&d);
    free(parts.p);
    return 0;
}
