/* fuzz_journal.c: libFuzzer target over journal targets' text and the
 * short format (exec/scan/journal_spec.h, journal_fmt.h).
 *
 * Input: fields separated by 0x00, in the order target, message,
 * hostname, identifier, comm, pid, syslog pid, source time (missing ones
 * are absent fields). The target is checked (0, or -1 with a message that
 * names it) and, if valid, mangled into its bounds (a glob exactly when
 * the result has '*', '?' or '['); the entry is formatted twice, the same
 * both times, into whole lines: ending in '\n', starting with the time,
 * and a message that is not printable UTF-8 giving "[... blob data]". */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "exec/scan/journal_fmt.h"
#include "exec/scan/journal_spec.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_target(const char *p, size_t n)
{
    char spec[JOURNAL_SPEC_PREFIX_LEN + 512];
    if (n > sizeof spec - JOURNAL_SPEC_PREFIX_LEN - 1)
        n = sizeof spec - JOURNAL_SPEC_PREFIX_LEN - 1;
    memcpy(spec, JOURNAL_SPEC_PREFIX, JOURNAL_SPEC_PREFIX_LEN);
    memcpy(spec + JOURNAL_SPEC_PREFIX_LEN, p, n);
    spec[JOURNAL_SPEC_PREFIX_LEN + n] = 0;
    if (!journal_spec_is(spec, strlen(spec)))
        abort();
    err_t e;
    err_clear(&e);
    if (journal_spec_check(spec, &e) < 0) {
        if (e.code != ERR_INPUT || strncmp(e.msg, spec, strlen(spec) < 64 ? strlen(spec) : 64))
            abort();
        return;
    }
    char out[JOURNAL_UNIT_CAP];
    memset(out, 'x', sizeof out);
    int glob = journal_unit_mangle(spec + JOURNAL_SPEC_PREFIX_LEN, out);
    if (glob < 0 || !memchr(out, 0, sizeof out) || glob != (strpbrk(out, "*?[") != NULL))
        abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    journal_text_t f[8] = {{0}};
    const char *p = (const char *)data, *end = p + size;
    for (int i = 0; i < 8 && p <= end; i++) {
        const char *z = memchr(p, 0, (size_t)(end - p));
        size_t n = z ? (size_t)(z - p) : (size_t)(end - p);
        f[i] = (journal_text_t){p, n};
        p += n + 1;
        if (!z)
            break;
    }
    if (f[0].p)
        check_target(f[0].p, f[0].n);
    journal_entry_t en = {.realtime_us = 1700000000000000ull, .message = f[1], .hostname = f[2],
                          .identifier = f[3], .comm = f[4], .pid = f[5], .syslog_pid = f[6],
                          .source_realtime = f[7]};
    journal_fmt_t a, b;
    journal_fmt_init(&a);
    journal_fmt_init(&b);
    if (journal_fmt_short(&a, &en) < 0 || journal_fmt_short(&b, &en) < 0)
        abort();
    if (a.len != b.len || (a.len && memcmp(a.out, b.out, a.len) != 0))
        abort();
    if (!en.message.p) {
        if (a.len)
            abort();
    } else {
        if (a.len < 17 || a.out[a.len - 1] != '\n' || a.out[3] != ' ' || a.out[6] != ' ')
            abort();
        /* (a header field may hold '\n': journalctl prints it so) */
        static const char blob[] = " blob data]\n";
        int is_blob = a.len >= sizeof blob - 1 &&
                      memcmp(a.out + a.len - (sizeof blob - 1), blob, sizeof blob - 1) == 0;
        if (!journal_utf8_printable(en.message.p, en.message.n) &&
            memchr(en.message.p, '\x1b', en.message.n) == NULL &&
            memchr(en.message.p, '\r', en.message.n) == NULL && !is_blob)
            abort();
    }
    journal_fmt_free(&a);
    journal_fmt_free(&b);
    return 0;
}
