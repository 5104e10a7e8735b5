/* fuzz_extract_logfmt.c: libFuzzer target over the `logfmt` format.
 *
 * Input layout (tests/support/extract_check.h): two bytes choose which of
 * 16 candidate field names are requested, one byte the batch size, the
 * rest is lines separated by '\n'. Aborts when a status is invalid, a view
 * points outside its line and the extractor's own storage, the batch's
 * error message disagrees with its statuses, a line gives other bytes
 * alone than in a batch, or any status or value differs from the naive
 * oracle of tests/support/format_oracle.h ($time through logtime). */
#include <stdint.h>

#include "tests/support/extract_check.h"
#include "tests/support/format_oracle.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *const names[XC_MAX] = {
    "a", "b", "time", "ts", "$time", "$line", "*", "msg", "", "a=b", "q\"", "$hostname",
    "timestamp", "level", "x y", "true",
};

/* 2026-03-15T12:00:00Z: the extractor's and the oracle's now. */
static const logtime_ctx_t tc = {1773576000, 0, NULL, NULL};

static uint8_t oracle(const char *p, size_t n, const char *const *fields, size_t nf,
                      const extract_env_t *env, xo_val_t *out)
{
    return xf_oracle(p, n, fields, nf, env, xf_logfmt, xf_logfmt_time, &tc, out);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    xc_opts.now = tc.now;
    return xc_fuzz_copies(data, size, "logfmt", names, oracle);
}
