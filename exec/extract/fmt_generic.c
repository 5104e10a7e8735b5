/* fmt_generic.c: the `generic` log format (dtail-behaviour.md §3.3): every
 * line is accepted and only the common variables ($line, $empty,
 * $hostname, $server, $timezone, $timeoffset, *) exist; any other name is
 * missing. What a query without `from` and without `logformat` gets. */
#include "exec/extract/extract_int.h"

static void generic_batch(extractor_t *x, const char *const *line, const uint32_t *len,
                          size_t n, sv_t *const *cols, uint8_t *status)
{
    for (size_t i = 0; i < n; i++) {
        const char *p = line[i];
        uint32_t l = len[i];
        extract_trim(&p, &l);
        extract_line_common(x, i, p, l, cols);
        extract_line_dups(x, i, cols);
        status[i] = EXTRACT_OK;
    }
}

const extract_format_t extract_format_generic = {
    .name = "generic", .batch = generic_batch, .records = true,
};
