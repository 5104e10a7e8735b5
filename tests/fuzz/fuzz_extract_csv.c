/* fuzz_extract_csv.c: libFuzzer target over the `csv` format.
 *
 * Input layout (tests/support/extract_check.h): two bytes choose which of
 * 16 candidate field names are requested, one byte the batch size, one
 * flags byte (bit 0: the first line is given with extractor_set_header),
 * the rest is lines separated by '\n'. A line starting with byte 0x02
 * begins a new source (the byte is dropped). Aborts when a status is
 * invalid, a view points outside its line and the extractor's own storage,
 * the batch's error message disagrees with its statuses, or any result
 * differs from a byte-by-byte RFC 4180 oracle that tracks the header per
 * source. */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "tests/support/extract_check.h"
#include "tests/support/extract_oracle.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *const names[XC_MAX] = {
    "a", "b", "c", "", "$line", "*", "$time", "count($time)", "a", "x,y", "q\"", "$hostname",
    "$empty", " a", "h", "\"a\"",
};

typedef struct ostate {
    bool need_header;   /* the next line is a header */
    bool header_bad;    /* the header was malformed */
    xo_row_t header;    /* the header's names */
    xo_row_t row;       /* the last row: the values handed out point into it */
} ostate_t;

/* The oracle's state for the current input (libFuzzer calls the target
 * with one input at a time). */
static ostate_t os;

/* One line of a source, as the oracle sees it; values stay valid until the
 * next call. */
static uint8_t oracle_line(const char *p, size_t n, const char *const *fields, size_t nf,
                           const extract_env_t *env, xo_val_t *out)
{
    xo_trim(&p, &n);
    for (size_t f = 0; f < nf; f++)
        out[f].len = SIZE_MAX;
    if (os.need_header) {
        os.need_header = false;
        xo_row_free(&os.header);
        os.header_bad = !xo_csv_split(p, n, &os.header);
        return os.header_bad ? EXTRACT_ERROR : EXTRACT_SKIP;
    }
    if (os.header_bad)
        return EXTRACT_ERROR;
    xo_row_t *row = &os.row;
    xo_row_free(row);
    if (!xo_csv_split(p, n, row) || row->n > os.header.n)
        return EXTRACT_ERROR;
    /* the common variables, unless a column has the name */
    xo_common(p, n, fields, nf, env, out);
    for (size_t f = 0; f < nf; f++) {
        for (size_t c = 0; c < row->n; c++)
            if (os.header.len[c] == strlen(fields[f]) &&
                memcmp(os.header.val[c], fields[f], os.header.len[c]) == 0) {
                out[f].p = row->val[c];
                out[f].len = row->len[c];
            }
    }
    return EXTRACT_OK;
}

static void new_source(void)
{
    os.need_header = true;
    os.header_bad = false;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    xc_run_t run;
    if (!xc_open(&run, "csv", names, data, size, 4, true))
        return 0;
    bool explicit_header = data[3] & 1;
    os = (ostate_t){.need_header = true};
    size_t first = 0;
    if (explicit_header) {
        err_t e;
        int r = extractor_set_header(run.x, run.lines[0], run.lens[0], &e);
        uint8_t hs = oracle_line(run.lines[0], run.lens[0], run.fields, 0, &run.env, NULL);
        if ((r == 0) != (hs == EXTRACT_SKIP))
            abort();
        first = 1;
    }
    xc_check_sources(&run, first, oracle_line, new_source);
    xo_row_free(&os.header);
    xo_row_free(&os.row);
    xc_close(&run);
    return 0;
}
