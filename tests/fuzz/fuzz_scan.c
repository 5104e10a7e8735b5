/* fuzz_scan.c: libFuzzer target over the line splitter and the filter.
 *
 * The first bytes choose the plan (pattern, invert, context, max, maximum
 * line length, output format); the rest is the input file. The engine's
 * output must equal the naive oracle's byte for byte; any difference
 * aborts. Input layout: flags byte, before, after, max, max_line_len (2
 * bytes), pattern length, pattern bytes, data. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/log.h"
#include "exec/linescan.h"
#include "tests/support/memfile.h"
#include "tests/support/oracle.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 7)
        return 0;
    log_level = LOG_NONE;
    uint8_t flags = data[0];
    unsigned before = data[1] % 5, after = data[2] % 5;
    unsigned long long max = data[3] % 4;
    size_t max_line_len = 1 + (((size_t)data[4] << 8 | data[5]) % 600);
    size_t plen = data[6] % 16;
    if (size < 7 + plen)
        return 0;
    char pattern[17];
    memcpy(pattern, data + 7, plen);
    pattern[plen] = '\0';
    if (strlen(pattern) != plen)
        return 0;   /* NUL inside: not a command-line pattern */
    const char *text = (const char *)data + 7 + plen;
    size_t n = size - 7 - plen;
    /* Text starting with gzip's or zstd's magic is opened as compressed
     * input (and is then, almost always, corrupt): that is the
     * decompressor's case, not the line splitter's this target checks. */
    if ((n >= 2 && memcmp(text, "\x1f\x8b", 2) == 0) ||
        (n >= 4 && memcmp(text, "\x28\xb5\x2f\xfd", 4) == 0))
        return 0;

    err_t e;
    matcher_t m;
    if (matcher_init(&m, pattern, &e) < 0)
        return 0;
    char path[64];
    int fd = memfile_create(text, n, path, sizeof path);
    if (fd < 0)
        abort();
    outbuf_t out;
    outbuf_init_mem(&out, 4096, &e);
    line_sink_t sink;
    enum line_format format = flags & 2 ? LINE_REMOTE : LINE_PLAIN;
    line_sink_init(&sink, &out, format, "h", NULL);
    line_sink_set_source(&sink, "s");
    linescan_opts_t o = {.matcher = &m, .invert = flags & 1, .before = before,
                         .after = after, .max = max, .max_line_len = max_line_len};
    linescan_t ls;
    if (linescan_init(&ls, &o, &e) < 0)
        abort();
    input_t *in = input_open(path, &e);
    if (!in || linescan_run(&ls, in, path, &sink, NULL, &e) < 0)
        abort();
    input_close(in);
    linescan_free(&ls);

    oracle_out_t want = {0};
    /* -1: the engine accepted a pattern plain pcre2 rejects. */
    if (oracle_expect(text, n, pattern, o.invert, before, after, max, max_line_len,
                      format == LINE_REMOTE, &want) < 0 ||
        !oracle_same(out.data, out.len, &want))
        abort();
    free(want.data);
    line_sink_free(&sink);
    outbuf_free(&out);
    matcher_free(&m);
    close(fd);
    return 0;
}
