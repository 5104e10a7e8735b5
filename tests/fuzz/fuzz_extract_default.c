/* fuzz_extract_default.c: libFuzzer target over the `default` format.
 *
 * Input layout (tests/support/extract_check.h): two bytes choose which of
 * 16 candidate field names are requested, one byte the batch size, the rest
 * is lines separated by '\n'. Aborts when a status is invalid, a view
 * points outside its line and the extractor's own storage, a skipped or bad
 * line has a value, the batch's error message disagrees with its statuses,
 * a line gives another result alone than in a batch, or any result differs
 * from a naive oracle (xo_default). */
#include <stdint.h>

#include "tests/support/extract_check.h"
#include "tests/support/extract_oracle.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *const names[XC_MAX] = {
    "$severity", "$time", "$date", "$second", "$goroutines", "$uptime", "$line", "*",
    "a", "b", "hostname", "", "$time", "x=y", "$empty", "$hostname",
};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    return xc_fuzz(data, size, "default", names, xo_default);
}
