/* fuzz_extract_generic.c: libFuzzer target over the `generic` format.
 *
 * Input layout (tests/support/extract_check.h): two bytes choose which of
 * 16 candidate field names are requested, one byte the batch size, the rest
 * is lines separated by '\n'. Every line must be accepted with only the
 * common variables set; aborts when a view points outside its line and the
 * extractor's own storage, a line gives another result alone than in a
 * batch, or any value differs from the obvious one (xo_generic). */
#include <stdint.h>

#include "tests/support/extract_check.h"
#include "tests/support/extract_oracle.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *const names[XC_MAX] = {
    "$line", "$empty", "$hostname", "$server", "$timezone", "$timeoffset", "*", "a",
    "$time", "$line", "", "a=1", "$severity", "x", "*", "$nosuch",
};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    return xc_fuzz(data, size, "generic", names, xo_generic);
}
