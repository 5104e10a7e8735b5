/* fuzz_extract_generickv.c: libFuzzer target over the `generickv` format.
 *
 * Input layout (tests/support/extract_check.h): two bytes choose which of
 * 16 candidate field names are requested, one byte the batch size, the rest
 * is lines separated by '\n'. Every line must be accepted (no hang on
 * tokens without '=', defect D1); aborts when a view points outside its
 * line and the extractor's own storage, a line gives another result alone
 * than in a batch, or any value differs from a naive oracle
 * (xo_generickv). */
#include <stdint.h>

#include "tests/support/extract_check.h"
#include "tests/support/extract_oracle.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *const names[XC_MAX] = {
    "a", "b", "c", "", "$line", "*", "hostname", "x=y", "a", "$time", "$empty", "$hostname",
    "key", "k|v", " a", "a ",
};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    return xc_fuzz(data, size, "generickv", names, xo_generickv);
}
