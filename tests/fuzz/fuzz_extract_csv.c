/* fuzz_extract_csv.c: libFuzzer target over the `csv` format.
 *
 * Input layout: two bytes choose which of 16 candidate field names are
 * requested, one byte the batch size, one flags byte (bit 0: the first line
 * is given with extractor_set_header), the rest is lines separated by '\n'.
 * A line starting with byte 0x02 begins a new source (the byte is dropped).
 * Aborts when a status is invalid, a view points outside its line and the
 * extractor's own storage, the batch's error message disagrees with its
 * statuses, or any result differs from a byte-by-byte RFC 4180 oracle that
 * tracks the header per source. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "exec/extract/extract.h"
#include "exec/extract/extract_int.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *const names[16] = {
    "a", "b", "c", "", "$line", "*", "$time", "count($time)", "a", "x,y", "q\"", "$hostname",
    "$empty", " a", "h", "\"a\"",
};

/* The oracle's view of one field value (owned copy). */
typedef struct oval {
    char *p;            /* bytes */
    size_t len;         /* SIZE_MAX: missing */
} oval_t;

typedef struct orow {
    char **val;         /* values */
    size_t *len;        /* their lengths */
    size_t n;           /* count */
} orow_t;

static void orow_free(orow_t *r)
{
    for (size_t k = 0; k < r->n; k++)
        free(r->val[k]);
    free(r->val);
    free(r->len);
    r->val = NULL;
    r->len = NULL;
    r->n = 0;
}

/* Splits a (trimmed) line; false when the quoting is malformed. */
static bool oracle_split(const char *p, size_t n, orow_t *r)
{
    r->val = calloc(n + 1, sizeof *r->val);
    r->len = calloc(n + 1, sizeof *r->len);
    r->n = 0;
    size_t i = 0;
    for (;;) {
        char *v = malloc(n + 1);
        size_t vl = 0;
        r->val[r->n] = v;
        r->n++;
        if (i < n && p[i] == '"') {
            i++;
            for (;;) {
                if (i >= n)
                    return false;
                if (p[i] == '"') {
                    if (i + 1 < n && p[i + 1] == '"') {
                        v[vl++] = '"';
                        i += 2;
                        continue;
                    }
                    i++;
                    break;
                }
                v[vl++] = p[i++];
            }
            if (i < n && p[i] != ',')
                return false;
        } else {
            while (i < n && p[i] != ',')
                v[vl++] = p[i++];
        }
        r->len[r->n - 1] = vl;
        if (i >= n)
            return true;
        i++;
    }
}

typedef struct ostate {
    bool need_header;   /* the next line is a header */
    bool header_bad;    /* the header was malformed */
    orow_t header;      /* the header's names */
} ostate_t;

static uint8_t oracle_line(ostate_t *s, const char *p, size_t n, const char *const *fields,
                           size_t nf, oval_t *out)
{
    uint32_t n32 = (uint32_t)n;
    extract_trim(&p, &n32);
    n = n32;
    for (size_t f = 0; f < nf; f++)
        out[f].len = SIZE_MAX;
    if (s->need_header) {
        s->need_header = false;
        orow_free(&s->header);
        s->header_bad = !oracle_split(p, n, &s->header);
        return s->header_bad ? EXTRACT_ERROR : EXTRACT_SKIP;
    }
    if (s->header_bad)
        return EXTRACT_ERROR;
    orow_t row;
    bool ok = oracle_split(p, n, &row);
    if (!ok || row.n > s->header.n) {
        orow_free(&row);
        return EXTRACT_ERROR;
    }
    for (size_t f = 0; f < nf; f++) {
        if (strcmp(fields[f], "$line") == 0) {
            out[f].p = (char *)p;
            out[f].len = n;
        } else if (strcmp(fields[f], "*") == 0) {
            out[f].p = "*";
            out[f].len = 1;
        } else if (strcmp(fields[f], "$empty") == 0) {
            out[f].p = "";
            out[f].len = 0;
        } else if (strcmp(fields[f], "$hostname") == 0) {
            out[f].p = "fuzzhost";
            out[f].len = 8;
        }
        for (size_t c = 0; c < row.n; c++)
            if (s->header.len[c] == strlen(fields[f]) &&
                memcmp(s->header.val[c], fields[f], s->header.len[c]) == 0) {
                out[f].p = row.val[c];
                out[f].len = row.len[c];
            }
    }
    /* the values must outlive row: hand the strings to the caller */
    for (size_t f = 0; f < nf; f++)
        if (out[f].len != SIZE_MAX) {
            char *copy = malloc(out[f].len + 1);
            memcpy(copy, out[f].p, out[f].len);
            out[f].p = copy;
        }
    orow_free(&row);
    return EXTRACT_OK;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 4)
        return 0;
    unsigned mask = (unsigned)data[0] | (unsigned)data[1] << 8;
    size_t batch = 1 + data[2] % 16;
    bool explicit_header = data[3] & 1;
    const char *fields[16];
    size_t nf = 0;
    for (int k = 0; k < 16; k++)
        if (mask >> k & 1)
            fields[nf++] = names[k];
    extract_env_t env = {"fuzzhost", "UTC", "0"};
    err_t e;
    extractor_t *x = extractor_new("csv", fields, nf, &env, &e);
    if (!x)
        abort();

    const char *text = (const char *)data + 4;
    size_t n = size - 4, n_lines = 1;
    for (size_t k = 0; k < n; k++)
        n_lines += text[k] == '\n';
    char **lines = calloc(n_lines, sizeof *lines);
    uint32_t *lens = calloc(n_lines, sizeof *lens);
    bool *new_source = calloc(n_lines, sizeof *new_source);
    size_t i = 0, at = 0;
    for (size_t k = 0; k <= n; k++)
        if (k == n || text[k] == '\n') {
            size_t start = at;
            if (start < k && text[start] == 0x02) {
                new_source[i] = true;
                start++;
            }
            lens[i] = (uint32_t)(k - start);
            lines[i] = malloc(lens[i] ? lens[i] : 1);
            memcpy(lines[i], text + start, lens[i]);
            i++;
            at = k + 1;
        }

    ostate_t os = {true, false, {NULL, NULL, 0}};
    size_t first = 0;
    if (explicit_header) {
        int r = extractor_set_header(x, lines[0], lens[0], &e);
        uint8_t hs = oracle_line(&os, lines[0], lens[0], fields, 0, NULL);
        if ((r == 0) != (hs == EXTRACT_SKIP))
            abort();
        first = 1;
    }
    sv_t *mem = calloc((nf ? nf : 1) * batch, sizeof *mem);
    sv_t *cols[16];
    for (size_t f = 0; f < nf; f++)
        cols[f] = mem + f * batch;
    uint8_t st[16];
    oval_t want[16];
    for (size_t b = first; b < n_lines;) {
        if (new_source[b]) {
            extractor_begin_source(x, "next");
            os.need_header = true;
            os.header_bad = false;
        }
        size_t m = 1;
        while (m < batch && b + m < n_lines && !new_source[b + m])
            m++;
        extract_batch(x, (const char *const *)lines + b, lens + b, m, cols, st);
        bool any_err = false;
        for (size_t r = 0; r < m; r++) {
            const char *lp = lines[b + r];
            uint32_t ll = lens[b + r];
            if (st[r] > EXTRACT_ERROR)
                abort();
            any_err |= st[r] == EXTRACT_ERROR;
            uint8_t ws = oracle_line(&os, lp, ll, fields, nf, want);
            if (ws != st[r])
                abort();
            for (size_t f = 0; f < nf; f++) {
                sv_t v = cols[f][r];
                if (want[f].len == SIZE_MAX) {
                    if (v.len != SV_MISSING)
                        abort();
                    continue;
                }
                if (v.len != want[f].len || (v.len && memcmp(v.p, want[f].p, v.len) != 0))
                    abort();
                bool inside = v.p >= lp && v.p + v.len <= lp + ll;
                if (!inside && !extract_owns(x, v.p, v.len))
                    abort();
                free(want[f].p);
            }
        }
        if (any_err != (extractor_last_error(x)[0] != '\0'))
            abort();
        b += m;
    }
    orow_free(&os.header);
    for (size_t k = 0; k < n_lines; k++)
        free(lines[k]);
    free(lines);
    free(lens);
    free(new_source);
    free(mem);
    extractor_free(x);
    return 0;
}
