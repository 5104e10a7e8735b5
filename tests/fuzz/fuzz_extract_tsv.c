/* fuzz_extract_tsv.c: libFuzzer target over the `tsv` format.
 *
 * Input layout (tests/support/extract_check.h): two bytes choose which of
 * 16 candidate field names are requested, one byte the batch size, one
 * flags byte (bit 0: the first line is given with extractor_set_header),
 * the rest is lines separated by '\n'. A line starting with byte 0x02
 * begins a new source (the byte is dropped). Aborts when a status is
 * invalid, a view points outside its line and the extractor's own storage,
 * the batch's error message disagrees with its statuses, or any result
 * differs from a byte-by-byte oracle (split on tabs, \t \n \r \\ read,
 * only a final CR dropped) that tracks the header per source. */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "tests/support/extract_check.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *const names[XC_MAX] = {
    "a", "b", "c", "", "$line", "*", "$time", "a\tb", "x\\y", "$hostname", "$empty", " a", "h",
    "n\nl", "b ", "\\",
};

/* A row split on tabs, each value unescaped (into buf). */
typedef struct trow {
    char *buf;                  /* the values, back to back */
    size_t *off;                /* value k at buf + off[k] */
    size_t *len;                /* its length */
    size_t n;                   /* values */
} trow_t;

static trow_t head, row;
static bool need_header;

static void split(const char *p, size_t n, trow_t *r)
{
    free(r->buf);
    free(r->off);
    free(r->len);
    r->buf = malloc(n + 1);
    r->off = calloc(n + 1, sizeof *r->off);
    r->len = calloc(n + 1, sizeof *r->len);
    r->n = 0;
    size_t o = 0;
    r->off[0] = 0;
    for (size_t i = 0;; i++) {
        if (i == n || p[i] == '\t') {
            r->len[r->n] = o - r->off[r->n];
            r->n++;
            if (i == n)
                return;
            r->off[r->n] = o;
            continue;
        }
        char c = p[i];
        if (c == '\\' && i + 1 < n && strchr("tnr\\", p[i + 1]) && p[i + 1]) {
            char e = p[++i];
            c = e == 't' ? '\t' : e == 'n' ? '\n' : e == 'r' ? '\r' : '\\';
        }
        r->buf[o++] = c;
    }
}

static uint8_t oracle_line(const char *p, size_t n, const char *const *fields, size_t nf,
                           const extract_env_t *env, xo_val_t *out)
{
    if (n && p[n - 1] == '\r')
        n--;
    for (size_t f = 0; f < nf; f++)
        out[f].len = SIZE_MAX;
    if (need_header) {
        need_header = false;
        split(p, n, &head);
        return EXTRACT_SKIP;
    }
    split(p, n, &row);
    if (row.n > head.n)
        return EXTRACT_ERROR;
    xo_common(p, n, fields, nf, env, out);
    for (size_t f = 0; f < nf; f++)
        for (size_t c = 0; c < row.n; c++)
            if (head.len[c] == strlen(fields[f]) &&
                memcmp(head.buf + head.off[c], fields[f], head.len[c]) == 0) {
                out[f].p = row.buf + row.off[c];
                out[f].len = row.len[c];
            }
    return EXTRACT_OK;
}

static void new_source(void)
{
    need_header = true;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    xc_run_t run;
    if (!xc_open(&run, "tsv", names, data, size, 4, true))
        return 0;
    need_header = true;
    size_t first = 0;
    if (data[3] & 1) {
        err_t e;
        if (extractor_set_header(run.x, run.lines[0], run.lens[0], &e) < 0)
            abort();
        oracle_line(run.lines[0], run.lens[0], run.fields, 0, &run.env, NULL);
        first = 1;
    }
    xc_check_sources(&run, first, oracle_line, new_source);
    trow_t *rows[2] = {&head, &row};
    for (int k = 0; k < 2; k++) {
        free(rows[k]->buf);
        free(rows[k]->off);
        free(rows[k]->len);
        memset(rows[k], 0, sizeof *rows[k]);
    }
    xc_close(&run);
    return 0;
}
