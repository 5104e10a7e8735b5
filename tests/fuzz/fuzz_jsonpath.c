/* fuzz_jsonpath.c: libFuzzer target over json(FIELD).path's reader
 * (exec/extract/jsonpath.h). The input's first line is the path, the rest
 * the JSON text; any input must give a value inside the text (and, when
 * escaped, unescape within its own length) or none, never crash, read
 * past the text or recurse without bound. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "exec/extract/jsonpath.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const uint8_t *nl = memchr(data, '\n', size < 256 ? size : 256);
    if (!nl)
        return 0;
    size_t pl = (size_t)(nl - data);
    char path[257];
    memcpy(path, data, pl);
    path[pl] = 0;
    if (strlen(path) != pl)
        return 0;   /* a NUL inside: no path a query can write */
    size_t n = size - pl - 1;
    char *text = malloc(n ? n : 1);   /* exactly n bytes: ASan sees a read past them */
    if (!text)
        return 0;
    memcpy(text, nl + 1, n);
    const char *v;
    uint32_t vl;
    bool esc;
    if (jsonpath_find(text, n, path, &v, &vl, &esc)) {
        if (v < text || v + vl > text + n)
            abort();
        if (esc) {
            char *out = malloc(vl ? vl : 1);
            if (!out || jsonpath_unescape(v, vl, out) > vl)
                abort();
            free(out);
        }
    }
    free(text);
    return 0;
}
