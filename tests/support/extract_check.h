/* extract_check.h: what every extractor fuzz target checks, whatever the
 * format (tests/fuzz/fuzz_extract_*.c).
 *
 * A target's input: two bytes choose which of 16 candidate field names are
 * requested, one byte the batch size (1 to 16), a target may take more
 * header bytes of its own, and the rest is lines separated by '\n'. Each
 * line is a private copy, so a read past a line is caught by ASan.
 *
 * The invariants, each an abort() when broken: every status is OK, SKIP or
 * ERROR; every value's view lies inside its line or in the extractor's own
 * storage (environment strings, scratch); the batch's error message is set
 * exactly when one of its lines is EXTRACT_ERROR; a line gives the same
 * status and values alone as in a batch; and, where a target has an oracle,
 * statuses and values are the oracle's. Header-only so each target stays
 * one file. */
#ifndef DTAIL_TESTS_EXTRACT_CHECK_H
#define DTAIL_TESTS_EXTRACT_CHECK_H

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "exec/extract/extract.h"
#include "exec/extract/extract_int.h"
#include "tests/support/extract_oracle.h"

#define XC_MAX 16   /* candidate names, and the largest batch */

typedef struct xc_run {
    extract_env_t env;            /* the common variables */
    extractor_t *x;
    const char *fields[XC_MAX];   /* the requested names */
    size_t nf;                    /* their count */
    size_t batch;                 /* lines per extract_batch call */
    char **lines;                 /* the lines, a malloc'd copy each */
    uint32_t *lens;               /* their lengths */
    bool *new_source;             /* with sources: the line began a source */
    size_t n_lines;               /* count */
    sv_t *mem;                    /* storage of the columns */
    sv_t *cols[XC_MAX];           /* cols[f][r]: field f of the batch's line r */
    uint8_t st[XC_MAX];           /* the batch's statuses */
    const char *table;            /* the table literal the extractor took
                                     (extractor_set_table), or NULL */
} xc_run_t;

/* The options extractors are made with (a target sets them before
 * xc_open: a fixed `now` lets its oracle infer the same years). */
static extract_opts_t xc_opts;

/* Table literals a fuzz input may ask the extractor to filter by. */
static const char *const xc_tables[4] = {NULL, "|MAPREDUCE:STATS|", "|MAPREDUCE:a|", "|MAPREDUCE:"};

/* Reads the input's first hdr bytes (the three above first), creates an
 * extractor of format for the chosen names, and splits the rest into
 * lines. With sources, a line starting with byte 0x02 begins a new source:
 * new_source says so and the byte is dropped. Returns false, with nothing
 * to free, when the input is shorter than its header. */
static inline bool xc_open(xc_run_t *r, const char *format, const char *const names[XC_MAX],
                           const uint8_t *data, size_t size, size_t hdr, bool sources)
{
    memset(r, 0, sizeof *r);
    if (size < hdr)
        return false;
    unsigned mask = (unsigned)data[0] | (unsigned)data[1] << 8;
    r->batch = 1 + data[2] % XC_MAX;
    for (int k = 0; k < XC_MAX; k++)
        if (mask >> k & 1)
            r->fields[r->nf++] = names[k];
    r->env = (extract_env_t){"fuzzhost", "UTC", "0"};
    err_t e;
    r->x = extractor_new_opts(format, r->fields, r->nf, &r->env, &xc_opts, &e);
    if (!r->x)
        abort();

    const char *text = (const char *)data + hdr;
    size_t n = size - hdr;
    r->n_lines = 1;
    for (size_t k = 0; k < n; k++)
        r->n_lines += text[k] == '\n';
    r->lines = calloc(r->n_lines, sizeof *r->lines);
    r->lens = calloc(r->n_lines, sizeof *r->lens);
    if (sources)
        r->new_source = calloc(r->n_lines, sizeof *r->new_source);
    size_t i = 0, at = 0;
    for (size_t k = 0; k <= n; k++)
        if (k == n || text[k] == '\n') {
            size_t start = at;
            if (sources && start < k && text[start] == 0x02) {
                r->new_source[i] = true;
                start++;
            }
            r->lens[i] = (uint32_t)(k - start);
            r->lines[i] = malloc(r->lens[i] ? r->lens[i] : 1);
            memcpy(r->lines[i], text + start, r->lens[i]);
            i++;
            at = k + 1;
        }

    r->mem = calloc((r->nf ? r->nf : 1) * r->batch, sizeof *r->mem);
    for (size_t f = 0; f < r->nf; f++)
        r->cols[f] = r->mem + f * r->batch;
    return true;
}

static inline void xc_close(xc_run_t *r)
{
    for (size_t k = 0; k < r->n_lines; k++)
        free(r->lines[k]);
    free(r->lines);
    free(r->lens);
    free(r->new_source);
    free(r->mem);
    extractor_free(r->x);
}

/* The lines the batch starting at line b takes: batch, or what is left. */
static inline size_t xc_batch_len(const xc_run_t *r, size_t b)
{
    return r->n_lines - b < r->batch ? r->n_lines - b : r->batch;
}

/* Extracts lines [b, b + m) as one batch into cols and st. */
static inline void xc_extract(xc_run_t *r, size_t b, size_t m)
{
    extract_batch(r->x, (const char *const *)r->lines + b, r->lens + b, m, r->cols, r->st);
}

/* Extracts line i alone into one[f]; returns its status. The batch's views
 * are not valid after this. */
static inline uint8_t xc_extract_one(xc_run_t *r, size_t i, sv_t one[XC_MAX])
{
    sv_t *oc[XC_MAX];
    for (size_t f = 0; f < r->nf; f++)
        oc[f] = &one[f];
    uint8_t s1;
    extract_batch(r->x, (const char *const *)r->lines + i, r->lens + i, 1, oc, &s1);
    return s1;
}

/* A status is one of the three. */
static inline void xc_check_status(const xc_run_t *r, uint8_t st)
{
    if (st > (r->table ? EXTRACT_NO_TABLE : EXTRACT_ERROR))
        abort();
}

/* A value of the line [line, line+len) lies inside it or in the
 * extractor's storage. */
static inline void xc_check_view(const xc_run_t *r, sv_t v, const char *line, size_t len)
{
    bool inside = v.p >= line && v.p + v.len <= line + len;
    if (!inside && !extract_owns(r->x, v.p, v.len))
        abort();
}

/* The batch's error message is set exactly when one of its m lines is
 * EXTRACT_ERROR. */
static inline void xc_check_last_error(const xc_run_t *r, size_t m)
{
    bool any_err = false;
    for (size_t k = 0; k < m; k++)
        any_err |= r->st[k] == EXTRACT_ERROR;
    if (any_err != (extractor_last_error(r->x)[0] != '\0'))
        abort();
}

/* A naive model of a format, as those of extract_oracle.h: out[f] for
 * fields[f] of one line; returns its status. */
typedef uint8_t (*xc_oracle_fn)(const char *p, size_t n, const char *const *fields, size_t nf,
                                const extract_env_t *env, xo_val_t *out);

/* Row k of the batch, the line [line, line+len): a valid status, and the
 * status and values the oracle gives, views inside the line or the
 * extractor. */
static inline void xc_check_row(const xc_run_t *r, size_t k, const char *line, uint32_t len,
                                xc_oracle_fn oracle)
{
    xo_val_t want[XC_MAX];
    xc_check_status(r, r->st[k]);
    uint8_t ws = oracle(line, len, r->fields, r->nf, &r->env, want);
    xo_apply_table(line, len, r->table, r->nf, want, &ws);
    if (ws != r->st[k])
        abort();
    for (size_t f = 0; f < r->nf; f++) {
        sv_t v = r->cols[f][k];
        if (want[f].len == SIZE_MAX) {
            if (v.len != SV_MISSING)
                abort();
            continue;
        }
        if (v.len != want[f].len || (v.len && memcmp(v.p, want[f].p, v.len) != 0))
            abort();
        xc_check_view(r, v, line, len);
    }
}

/* Checks the batch [b, b + m) just extracted: valid statuses, each status
 * and value the oracle's (asked about every line once, in order), views
 * inside the line or the extractor, and the batch's error message. */
static inline void xc_check_oracle(const xc_run_t *r, size_t b, size_t m, xc_oracle_fn oracle)
{
    for (size_t k = 0; k < m; k++)
        xc_check_row(r, k, r->lines[b + k], r->lens[b + k], oracle);
    xc_check_last_error(r, m);
}

/* Lines first.. of a run with sources (xc_open's `sources`), in batches
 * that end where the next source begins: at each new source the
 * extractor's extractor_begin_source and new_source (the oracle's reset),
 * then every batch checked against oracle. */
static inline void xc_check_sources(xc_run_t *r, size_t first, xc_oracle_fn oracle,
                                    void (*new_source)(void))
{
    for (size_t b = first; b < r->n_lines;) {
        if (r->new_source[b]) {
            extractor_begin_source(r->x, "next");
            new_source();
        }
        size_t m = 1;
        while (m < r->batch && b + m < r->n_lines && !r->new_source[b + m])
            m++;
        xc_extract(r, b, m);
        xc_check_oracle(r, b, m, oracle);
        b += m;
    }
}

/* Each line of the batch [b, b + m) just extracted gives the same status
 * and values alone. same_views: the very same views (values in the line
 * or the environment); otherwise the same bytes, copied first since a
 * later call reuses the scratch. The batch's views are not valid after. */
static inline void xc_check_alone(xc_run_t *r, size_t b, size_t m, bool same_views)
{
    size_t nf = r->nf;
    sv_t *keep = calloc((nf ? nf : 1) * m, sizeof *keep);
    char **copies = calloc((nf ? nf : 1) * m, sizeof *copies);
    for (size_t k = 0; k < m; k++)
        for (size_t f = 0; f < nf; f++) {
            sv_t v = r->cols[f][k];
            keep[k * nf + f] = v;
            if (!same_views && v.len != SV_MISSING) {
                copies[k * nf + f] = malloc(v.len + 1);
                memcpy(copies[k * nf + f], v.p, v.len);
            }
        }
    for (size_t k = 0; k < m; k++) {
        sv_t one[XC_MAX];
        if (xc_extract_one(r, b + k, one) != r->st[k])
            abort();
        for (size_t f = 0; f < nf; f++) {
            sv_t want = keep[k * nf + f];
            if (one[f].len != want.len)
                abort();
            if (want.len == SV_MISSING)
                continue;
            if (same_views ? one[f].p != want.p
                           : want.len && memcmp(one[f].p, copies[k * nf + f], want.len) != 0)
                abort();
        }
    }
    for (size_t k = 0; k < nf * m; k++)
        free(copies[k]);
    free(copies);
    free(keep);
}

/* A whole target for a format without state across lines: every batch is
 * checked against oracle and line by line alone (the same views). */
/* Where the format splits lines itself (extract_lines): the input's lines
 * as one region, each ending in '\n' (a buffer of that exact size, so a read
 * past it is caught by ASan), split and extracted in batches with the
 * instruction set isa, give each line the oracle's status and values, with
 * views inside the line or the extractor, and each batch's error message
 * is set exactly when one of its lines is EXTRACT_ERROR. */
static inline void xc_check_lines(xc_run_t *r, xc_oracle_fn oracle, int isa)
{
    if (!extractor_splits_lines(r->x))
        return;
    extract_isa_limit(isa);
    size_t total = 0;
    for (size_t i = 0; i < r->n_lines; i++)
        total += r->lens[i] + 1u;
    char *region = malloc(total);
    size_t *at = calloc(r->n_lines, sizeof *at);
    size_t o = 0;
    for (size_t i = 0; i < r->n_lines; i++) {
        at[i] = o;
        memcpy(region + o, r->lines[i], r->lens[i]);
        o += r->lens[i];
        region[o++] = '\n';
    }
    const char *p = region, *end = region + total;
    const char *lines[XC_MAX];
    uint32_t lens[XC_MAX];
    size_t i0 = 0;
    while (p < end) {
        size_t m = 0;
        p = extract_lines(r->x, p, end, lines, lens, &m, r->batch, r->cols, r->st);
        if (m == 0 || m > r->batch || i0 + m > r->n_lines)
            abort();
        for (size_t k = 0; k < m; k++) {
            if (lines[k] != region + at[i0 + k] || lens[k] != r->lens[i0 + k])
                abort();
            xc_check_row(r, k, lines[k], lens[k], oracle);
        }
        xc_check_last_error(r, m);
        i0 += m;
    }
    if (i0 != r->n_lines)
        abort();
    free(at);
    free(region);
    extract_isa_limit(EXTRACT_ISA_AVX512);
}

static inline int xc_fuzz_run(const uint8_t *data, size_t size, const char *format,
                              const char *const names[XC_MAX], xc_oracle_fn oracle,
                              bool same_views)
{
    xc_run_t r;
    if (!xc_open(&r, format, names, data, size, 3, false))
        return 0;
    /* Bits 4-5 of the batch byte: filter by a table literal, where the
     * format can (the default format proves it from field 9). */
    const char *lit = xc_tables[(data[2] >> 4) & 3];
    err_t e;
    if (lit && extractor_set_table(r.x, lit, &e) == 1)
        r.table = lit;
    for (size_t b = 0; b < r.n_lines; b += r.batch) {
        size_t m = xc_batch_len(&r, b);
        xc_extract(&r, b, m);
        xc_check_oracle(&r, b, m, oracle);
        xc_check_alone(&r, b, m, same_views);
    }
    /* Bits 6-7 of the batch byte: the instruction set of the one-pass
     * splitter (where the CPU has it). */
    xc_check_lines(&r, oracle, data[2] >> 6 > EXTRACT_ISA_AVX512 ? EXTRACT_ISA_AVX512 : data[2] >> 6);
    xc_close(&r);
    return 0;
}

static inline int xc_fuzz(const uint8_t *data, size_t size, const char *format,
                          const char *const names[XC_MAX], xc_oracle_fn oracle)
{
    return xc_fuzz_run(data, size, format, names, oracle, true);
}

/* xc_fuzz for a format whose values may be copies (unescaped values,
 * $time): a line alone gives the same bytes, not the same views. */
static inline int xc_fuzz_copies(const uint8_t *data, size_t size, const char *format,
                                 const char *const names[XC_MAX], xc_oracle_fn oracle)
{
    return xc_fuzz_run(data, size, format, names, oracle, false);
}

#endif
