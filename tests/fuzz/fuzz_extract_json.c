/* fuzz_extract_json.c: libFuzzer target over the `json` format.
 *
 * Input layout (tests/support/extract_check.h): two bytes choose which of
 * 16 candidate field names are requested, one byte the batch size, the rest
 * is lines separated by '\n'.
 * Aborts when a status is invalid, a view points outside its line and the
 * extractor's own storage, a rejected line has a value, the batch's error
 * message disagrees with its statuses, a line gives another result alone
 * than in a batch, or the result disagrees with jansson: the same lines are
 * objects, and requested values are the same strings (or, raw, parse to
 * the same JSON). Documents jansson cannot take (numbers out of range, lone
 * surrogates, invalid UTF-8, NUL in keys) and ours beyond the depth limit
 * are not compared; lines with a raw NUL byte must be rejected. */
#include <jansson.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "tests/support/extract_check.h"
#include "tests/support/json_oracle.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *const names[XC_MAX] = {
    "a", "b", "a.b", "a.b.c", "", "k", "x.y", "$line", "*", "a.", "s", "n", "arr", "o.p",
    "$hostname", "q\"",
};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    xc_run_t run;
    if (!xc_open(&run, "json", names, data, size, 3, false))
        return 0;
    const size_t nf = run.nf;
    json_t *roots[XC_MAX];
    for (size_t b = 0; b < run.n_lines; b += run.batch) {
        size_t m = xc_batch_len(&run, b);
        xc_extract(&run, b, m);
        for (size_t r = 0; r < m; r++) {
            const uint8_t st = run.st[r];
            xc_check_status(&run, st);
            if (st == EXTRACT_SKIP)
                abort();
            roots[r] = NULL;
            for (size_t f = 0; f < nf; f++) {
                sv_t v = run.cols[f][r];
                if (v.len == SV_MISSING)
                    continue;
                if (st != EXTRACT_OK)
                    abort();
                xc_check_view(&run, v, run.lines[b + r], run.lens[b + r]);
            }
            const char *tp = run.lines[b + r];
            uint32_t tl = run.lens[b + r];
            extract_trim(&tp, &tl);
            /* a raw NUL byte is never valid JSON (jansson lets some pass) */
            if (tl && memchr(tp, '\0', tl)) {
                if (st != EXTRACT_ERROR)
                    abort();
                continue;
            }
            json_error_t je;
            json_t *root = json_loadb(tp, tl, JSON_ALLOW_NUL, &je);
            if (!root && jansson_limit(&je))
                continue;
            bool j_ok = root && json_is_object(root);
            if (j_ok && st == EXTRACT_OK) {
                json_t *strict = json_loadb(tp, tl, JSON_ALLOW_NUL | JSON_REJECT_DUPLICATES, &je);
                bool dups = !strict;
                json_decref(strict);
                for (size_t f = 0; f < nf; f++)
                    jansson_compare(run.fields[f], run.cols[f][r], root, dups);
            }
            roots[r] = root;
            if (j_ok != (st == EXTRACT_OK)) {
                /* only our depth limit may reject what jansson takes */
                if (j_ok) {
                    roots[r] = NULL;
                    json_decref(root);
                    sv_t one[XC_MAX];
                    xc_extract_one(&run, b + r, one);
                    if (!strstr(extractor_last_error(run.x), "nesting too deep"))
                        abort();
                    xc_extract(&run, b, m);
                    continue;
                }
                abort();
            }
        }
        xc_check_last_error(&run, m);
        /* each line alone gives the same statuses and values */
        xc_check_alone(&run, b, m, false);
        for (size_t r = 0; r < m; r++)
            json_decref(roots[r]);
    }
    xc_close(&run);
    return 0;
}
