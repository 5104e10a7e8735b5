/* fuzz_extract_access.c: libFuzzer target over the `nginx` and `apache`
 * formats (one extractor, fmt_access.c).
 *
 * Input layout (tests/support/extract_check.h): two bytes choose which of
 * 16 candidate field names are requested, one byte the batch size (bit 3:
 * the apache name), the rest is lines separated by '\n'. Aborts when a
 * status is invalid, a view points outside its line and the extractor's
 * own storage, the batch's error message disagrees with its statuses, a
 * line gives other bytes alone than in a batch, or any status or value
 * differs from the naive oracle of tests/support/format_oracle.h. */
#include <stdint.h>

#include "tests/support/extract_check.h"
#include "tests/support/format_oracle.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *const names[XC_MAX] = {
    "$remote_addr", "$remote_user", "$time_local", "$request", "$method", "$path",
    "$protocol", "$status", "$body_bytes_sent", "$http_referer", "$http_user_agent",
    "$http_x_forwarded_for", "$request_time", "$time", "$line", "*",
};

static const logtime_ctx_t tc = {1773576000, 0, NULL, NULL};

static uint8_t oracle(const char *p, size_t n, const char *const *fields, size_t nf,
                      const extract_env_t *env, xo_val_t *out)
{
    return xf_oracle(p, n, fields, nf, env, xf_access, xf_access_time, &tc, out);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    xc_opts.now = tc.now;
    return xc_fuzz_copies(data, size, size > 2 && (data[2] & 8) ? "apache" : "nginx", names,
                          oracle);
}
