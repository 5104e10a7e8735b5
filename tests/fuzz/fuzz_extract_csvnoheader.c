/* fuzz_extract_csvnoheader.c: libFuzzer target over the `csvnoheader`
 * format: CSV rows without a header, columns named $1, $2, ...
 *
 * Input layout (tests/support/extract_check.h): two bytes choose which of
 * 16 candidate field names are requested, one byte the batch size, the
 * rest is lines separated by '\n'. Aborts when a status is invalid, a view
 * points outside its line and the extractor's own storage, the batch's
 * error message disagrees with its statuses, a line gives other bytes
 * alone than in a batch, or any status or value differs from the RFC 4180
 * oracle of tests/support/extract_oracle.h. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "tests/support/extract_check.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *const names[XC_MAX] = {
    "$1", "$2", "$3", "$10", "$0", "$01", "$line", "*", "a", "$hostname", "$4", "$100", "$2x",
    "$", "$empty", "$5",
};

/* The last row: the values handed out point into it. */
static xo_row_t last;

/* $N as column N-1 (N from 1, no leading zero), else SIZE_MAX. */
static size_t column(const char *name)
{
    if (name[0] != '$' || name[1] < '1' || name[1] > '9' || strlen(name) > 8)
        return SIZE_MAX;
    size_t v = 0;
    for (const char *c = name + 1; *c; c++) {
        if (*c < '0' || *c > '9')
            return SIZE_MAX;
        v = v * 10 + (size_t)(*c - '0');
    }
    return v - 1;
}

static uint8_t oracle(const char *p, size_t n, const char *const *fields, size_t nf,
                      const extract_env_t *env, xo_val_t *out)
{
    xo_trim(&p, &n);
    xo_row_free(&last);
    if (!xo_csv_split(p, n, &last)) {
        for (size_t f = 0; f < nf; f++)
            out[f].len = SIZE_MAX;
        return EXTRACT_ERROR;
    }
    xo_common(p, n, fields, nf, env, out);
    for (size_t f = 0; f < nf; f++) {
        size_t c = column(fields[f]);
        if (c < last.n) {
            out[f].p = last.val[c];
            out[f].len = last.len[c];
        }
    }
    return EXTRACT_OK;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    int rc = xc_fuzz_copies(data, size, "csvnoheader", names, oracle);
    xo_row_free(&last);
    return rc;
}
