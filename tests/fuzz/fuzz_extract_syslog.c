/* fuzz_extract_syslog.c: libFuzzer target over the `syslog` format
 * (RFC 5424 and RFC 3164 lines).
 *
 * Input layout (tests/support/extract_check.h): two bytes choose which of
 * 16 candidate field names are requested, one byte the batch size, the
 * rest is lines separated by '\n'. Aborts when a status is invalid, a view
 * points outside its line and the extractor's own storage, the batch's
 * error message disagrees with its statuses, a line gives other bytes
 * alone than in a batch, or any status or value differs from the naive
 * oracle of tests/support/format_oracle.h ($time through logtime, with the
 * same `now` for the years RFC 3164 does not write). */
#include <stdint.h>

#include "tests/support/extract_check.h"
#include "tests/support/format_oracle.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *const names[XC_MAX] = {
    "$priority", "$facility", "$severity", "$version", "$timestamp", "$host", "$app", "$pid",
    "$msgid", "$sd", "$message", "$time", "$line", "a@1.x", "ex@32473.iut", "b.c",
};

static const logtime_ctx_t tc = {1773576000, 0, NULL, NULL};

static uint8_t oracle(const char *p, size_t n, const char *const *fields, size_t nf,
                      const extract_env_t *env, xo_val_t *out)
{
    return xf_oracle(p, n, fields, nf, env, xf_syslog, xf_syslog_time, &tc, out);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    xc_opts.now = tc.now;
    return xc_fuzz_copies(data, size, "syslog", names, oracle);
}
