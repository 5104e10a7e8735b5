/* fuzz_detect.c: libFuzzer target over extract_detect (the log format of
 * a sample). Aborts when the answer is not one of the formats detection
 * names, or when it changes with bytes past the DETECT_LINES-th
 * non-empty line (the decision must read no further). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "exec/extract/detect.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *const known[] = {"default", "json", "logfmt", "nginx", "syslog", "csv",
                                    "generic", NULL};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *p = (const char *)data;
    const char *got = extract_detect(p, size);
    int ok = 0;
    for (int i = 0; known[i]; i++)
        ok |= strcmp(got, known[i]) == 0;
    if (!ok)
        abort();
    /* The end of the DETECT_LINES-th non-empty line: what comes after
     * may be anything. */
    size_t at = 0;
    int lines = 0;
    while (at < size && lines < DETECT_LINES) {
        const char *nl = memchr(p + at, '\n', size - at);
        if (!nl)
            return 0;
        size_t next = (size_t)(nl - p) + 1;
        int blank = 1;
        for (size_t k = at; k < next - 1; k++)
            blank &= p[k] == ' ' || p[k] == '\t' || p[k] == '\r';
        lines += !blank;
        at = next;
    }
    if (lines < DETECT_LINES)
        return 0;
    char *more = malloc(at + 16);
    if (!more)
        return 0;
    memcpy(more, p, at);
    memcpy(more + at, "x,y\n{\"a\":1}\n", 12);
    if (strcmp(extract_detect(more, at + 12), got) != 0)
        abort();
    free(more);
    return 0;
}
