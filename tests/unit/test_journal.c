/* test_journal.c: journal targets without a journal: the target's text
 * (exec/scan/journal_spec.h: DTail's checks, journalctl's unit names) and
 * the short format (exec/scan/journal_fmt.h), each case's want what
 * systemd 252's `journalctl -o short` printed for the same entry
 * (tests/e2e/journal.sh compares with journalctl itself, on real files). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "exec/scan/journal_fmt.h"
#include "exec/scan/journal_spec.h"
#include "exec/scan/targets.h"

/* ---- the target ------------------------------------------------------------ */

static void check_spec(const char *spec, const char *want_part)
{
    err_t e;
    err_clear(&e);
    int rc = journal_spec_check(spec, &e);
    if (!want_part) {
        if (rc != 0)
            fail_msg("%s: refused: %s", spec, e.msg);
        return;
    }
    if (rc == 0)
        fail_msg("%s: accepted, want \"%s\"", spec, want_part);
    assert_int_equal(e.code, ERR_INPUT);
    assert_true(strncmp(e.msg, spec, strlen(spec)) == 0);   /* it names the target */
    if (!strstr(e.msg, want_part))
        fail_msg("%s: \"%s\" lacks \"%s\"", spec, e.msg, want_part);
}

static void test_spec_check(void **state)
{
    (void)state;
    check_spec("journal:sshd.service", NULL);
    check_spec("journal:sshd", NULL);
    check_spec("journal:app-*.service", NULL);
    check_spec("journal:a-b", NULL);                  /* '-' inside is fine */
    check_spec("journal:caf\xc3\xa9", NULL);           /* UTF-8 letters too */
    check_spec("journal:\xff", NULL);                  /* invalid UTF-8: not a space */
    check_spec("journal:", "the unit is empty");
    check_spec("journal:-x", "must not start with '-'");
    check_spec("journal:--follow", "must not start with '-'");
    check_spec("journal:a b", "whitespace or a control character at byte 2");
    check_spec("journal:a\tb", "whitespace or a control character");
    check_spec("journal:a\x7f", "whitespace or a control character");
    check_spec("journal:a\xc2\x85", "whitespace or a control character");     /* NEL */
    check_spec("journal:a\xc2\xa0z", "whitespace or a control character");    /* NBSP */
    check_spec("journal:\xe3\x80\x80", "whitespace or a control character");  /* U+3000 */
    char big[300];
    snprintf(big, sizeof big, "journal:%0*d", JOURNAL_UNIT_MAX + 1, 0);
    check_spec(big, "longer than");
    assert_true(journal_spec_is("journal:x", 9));
    assert_true(journal_spec_is("journal:", 8));
    assert_false(journal_spec_is("journal", 7));
    assert_false(journal_spec_is("/var/log/journal:x", 18));
    assert_true(journal_spec_in_list("/a.log, journal:x ,b"));
    assert_false(journal_spec_in_list("/a.log,/journal:x"));
    assert_false(journal_spec_in_list(NULL));
}

static void check_mangle(const char *unit, const char *want, int want_glob)
{
    char out[JOURNAL_UNIT_CAP];
    int glob = journal_unit_mangle(unit, out);
    assert_int_equal(glob, want_glob);
    assert_string_equal(out, want);
}

/* systemd's unit_name_mangle(UNIT_NAME_MANGLE_GLOB), as journalctl -u. */
static void test_unit_mangle(void **state)
{
    (void)state;
    check_mangle("sshd", "sshd.service", 0);
    check_mangle("sshd.service", "sshd.service", 0);
    check_mangle("home.mount", "home.mount", 0);
    check_mangle("user@1000.service", "user@1000.service", 0);
    check_mangle("foo.bar", "foo.bar.service", 0);          /* not a unit type */
    check_mangle("app-*", "app-*", 1);                     /* a glob gets no suffix */
    check_mangle("a*.service", "a*.service", 1);
    check_mangle("a/b", "a-b.service", 0);
    check_mangle("a%b", "a\\x25b.service", 0);
    check_mangle("x\xc3\xa9", "x\\xc3\\xa9.service", 0);
    check_mangle("a%*", "a\\x25*", 1);
    char big[JOURNAL_UNIT_MAX + 2];
    memset(big, 'a', sizeof big - 1);
    big[sizeof big - 1] = 0;
    char out[JOURNAL_UNIT_CAP];
    assert_int_equal(journal_unit_mangle(big, out), -1);
}

/* A journal target in a file list is one target, named as given. */
static int n_errors;
static void count_error(void *ctx, const err_t *e)
{
    (void)ctx;
    assert_non_null(strstr(e->msg, "invalid journal target"));
    n_errors++;
}

static void test_targets(void **state)
{
    (void)state;
    target_list_t tl;
    target_list_init(&tl);
    err_t e;
    n_errors = 0;
    assert_int_equal(target_list_add_spec(&tl, "journal:a*, journal:-x,journal:b.service", count_error,
                                          NULL, &e),
                     0);
    assert_int_equal(n_errors, 1);
    assert_int_equal(tl.n, 2);
    assert_string_equal(tl.items[0].path, "journal:a*");   /* not a file glob */
    assert_string_equal(tl.items[0].source_id, "journal:a*");
    assert_string_equal(tl.items[1].path, "journal:b.service");
    assert_string_equal(tl.items[1].source_id, "journal:b.service");
    target_list_free(&tl);
}

/* ---- the short format ------------------------------------------------------ */

#define T0 1700000000000000ull   /* Nov 14 22:13:20 UTC */

static journal_text_t text(const char *s)
{
    return (journal_text_t){s, s ? strlen(s) : 0};
}

/* An entry of myapp[42] on integrationtest at T0 with message m. */
static journal_entry_t entry(const char *m)
{
    journal_entry_t en = {.realtime_us = T0};
    en.hostname = text("integrationtest");
    en.identifier = text("myapp");
    en.pid = text("42");
    en.message = text(m);
    return en;
}

static void expect_fmt(const journal_entry_t *en, const char *want)
{
    journal_fmt_t f;
    journal_fmt_init(&f);
    assert_int_equal(journal_fmt_short(&f, en), 0);
    if (f.len != strlen(want) || memcmp(f.out, want, f.len) != 0)
        fail_msg("got  \"%.*s\"\nwant \"%s\"", (int)f.len, f.out, want);
    journal_fmt_free(&f);
}

#define HEAD "Nov 14 22:13:20 integrationtest myapp[42]: "
#define PAD "                                           "   /* strlen(HEAD) */

static void test_fmt_message(void **state)
{
    (void)state;
    journal_entry_t en = entry("hello alpha");
    expect_fmt(&en, HEAD "hello alpha\n");
    en = entry("tab\there");
    expect_fmt(&en, HEAD "tab        here\n");
    en = entry("color \x1b[31mred\x1b[0m end");
    expect_fmt(&en, HEAD "color red end\n");
    en = entry("osc \x1b]8;;http://x\alink\x1b]8;;\a end");
    expect_fmt(&en, HEAD "osc link end\n");
    en = entry("cr at end\r");
    expect_fmt(&en, HEAD "cr at end\n");
    en = entry("cr before\r\nnewline");
    expect_fmt(&en, HEAD "cr before\n" PAD "newline\n");
    en = entry("multi\nline two\nline three");
    expect_fmt(&en, HEAD "multi\n" PAD "line two\n" PAD "line three\n");
    en = entry("trailing nl\n");
    expect_fmt(&en, HEAD "trailing nl\n");
    en = entry("double\n\nnl");
    expect_fmt(&en, HEAD "double\n" PAD "\n" PAD "nl\n");
    en = entry("multi\n\ttabbed\n\x1b[1mbold");
    expect_fmt(&en, HEAD "multi\n" PAD "        tabbed\n" PAD "bold\n");
    en = entry("");
    expect_fmt(&en, HEAD "\n");
    en = entry("\n");
    expect_fmt(&en, HEAD "\n");
    en = entry("valid \xc3\xa9 utf8");
    expect_fmt(&en, HEAD "valid \xc3\xa9 utf8\n");
    en = entry("\x1b[0m");   /* nothing left */
    expect_fmt(&en, HEAD "\n");
    /* systemd's strchr takes a NUL for a colour sequence's digit */
    static const char nul_csi[] = "csi nul \x1b[3\0" "1m end";
    en.message = (journal_text_t){nul_csi, sizeof nul_csi - 1};
    expect_fmt(&en, HEAD "csi nul  end\n");
}

/* What is not printable UTF-8 after the tabs and escapes: its size. */
static void test_fmt_blob(void **state)
{
    (void)state;
    static const struct { const char *m; size_t n; const char *want; } cases[] = {
        {"cr in\rmiddle", 12, "[12B blob data]"},
        {"lone esc \x1bX end", 15, "[15B blob data]"},
        {"invalid \xff utf8", 14, "[14B blob data]"},
        {"c1 \xc2\x85 ctl", 9, "[9B blob data]"},
        {"del \x7f ctl", 9, "[9B blob data]"},
        {"nul \0 byte", 10, "[10B blob data]"},
        {"tab\tand\x01" "ctl", 11, "[18B blob data]"},   /* the size with the tab expanded */
        {"csi bad \x1b[31xend", 16, "[16B blob data]"},
        {"esc at end \x1b", 12, "[12B blob data]"},
        {"csi at end \x1b[31", 15, "[15B blob data]"},
        {"\x1b\t", 2, "[2B blob data]"},                  /* ESC and the byte after it stay */
        {"surrogate \xed\xa0\x80", 13, "[13B blob data]"},
        {"overlong \xc0\xaf", 11, "[11B blob data]"},
        {"nonchar \xef\xbf\xbe", 11, "[11B blob data]"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        journal_entry_t en = entry("");
        en.message = (journal_text_t){cases[i].m, cases[i].n};
        char want[128];
        snprintf(want, sizeof want, HEAD "%s\n", cases[i].want);
        expect_fmt(&en, want);
    }
    /* 1024-based, one truncated decimal */
    size_t n = 70000;
    char *big = malloc(n);
    assert_non_null(big);
    memset(big, 'x', n);
    big[0] = 1;
    journal_entry_t en = entry("");
    en.message = (journal_text_t){big, n};
    expect_fmt(&en, HEAD "[68.3K blob data]\n");
    en.message.n = 3 * 1024 * 1024 + 512 * 1024;
    char *bigger = calloc(1, en.message.n);
    assert_non_null(bigger);
    en.message.p = bigger;
    expect_fmt(&en, HEAD "[3.5M blob data]\n");
    free(bigger);
    free(big);
}

static void test_fmt_header(void **state)
{
    (void)state;
    journal_entry_t en = entry("x");
    en.identifier = text(NULL);
    expect_fmt(&en, "Nov 14 22:13:20 integrationtest unknown[42]: x\n");
    /* journalctl does not count "unknown" in the message's column */
    en.message = text("multi\nline");
    expect_fmt(&en, "Nov 14 22:13:20 integrationtest unknown[42]: multi\n"
                    "                                     line\n");
    en = entry("comm only");
    en.identifier = text(NULL);
    en.comm = text("mycomm");
    expect_fmt(&en, "Nov 14 22:13:20 integrationtest mycomm[42]: comm only\n");
    en = entry("ident ctl");
    en.identifier = text("id\x01x");
    expect_fmt(&en, "Nov 14 22:13:20 integrationtest unknown[42]: ident ctl\n");
    en = entry("syslog pid");
    en.pid = text(NULL);
    en.syslog_pid = text("77");
    expect_fmt(&en, "Nov 14 22:13:20 integrationtest myapp[77]: syslog pid\n");
    en = entry("both pid");
    en.syslog_pid = text("88");
    expect_fmt(&en, HEAD "both pid\n");
    en = entry("no pid");
    en.pid = text(NULL);
    expect_fmt(&en, "Nov 14 22:13:20 integrationtest myapp: no pid\n");
    en = entry("no host");
    en.hostname = text(NULL);
    expect_fmt(&en, "Nov 14 22:13:20 myapp[42]: no host\n");
    char host[301];
    memset(host, 'h', 300);
    host[300] = 0;
    en = entry("long host");
    en.hostname = text(host);   /* 300 bytes: left out */
    expect_fmt(&en, "Nov 14 22:13:20 myapp[42]: long host\n");
    host[299] = 0;
    en.hostname = text(host);   /* 299: shown */
    journal_fmt_t f;
    journal_fmt_init(&f);
    assert_int_equal(journal_fmt_short(&f, &en), 0);
    assert_int_equal(f.len, 16 + 299 + strlen(" myapp[42]: long host\n"));
    journal_fmt_free(&f);
    en = entry(NULL);   /* no MESSAGE: not shown */
    journal_fmt_init(&f);
    assert_int_equal(journal_fmt_short(&f, &en), 0);
    assert_int_equal(f.len, 0);
    journal_fmt_free(&f);
}

static void test_fmt_time(void **state)
{
    (void)state;
    journal_entry_t en = entry("source rt");
    en.source_realtime = text("1700005000000000");   /* the source's time wins */
    expect_fmt(&en, "Nov 14 23:36:40 integrationtest myapp[42]: source rt\n");
    en.source_realtime = text("xyz");   /* not a number: the entry's */
    expect_fmt(&en, HEAD "source rt\n");
    en.source_realtime = text("0x10");   /* systemd's safe_atou64 takes hex */
    expect_fmt(&en, "Jan 01 00:00:00 integrationtest myapp[42]: source rt\n");
    en.source_realtime = text("0");   /* not valid: the entry's */
    expect_fmt(&en, HEAD "source rt\n");
    en.source_realtime = text("-5");
    expect_fmt(&en, HEAD "source rt\n");
    /* the local zone, whatever the locale */
    setenv("TZ", "CET-1CEST,M3.5.0,M10.5.0/3", 1);
    tzset();
    en = entry("local");
    en.realtime_us = 1690000000000000ull;   /* Jul 22 04:26:40 UTC: summer time */
    expect_fmt(&en, "Jul 22 06:26:40 integrationtest myapp[42]: local\n");
    setenv("TZ", "UTC", 1);
    tzset();
}

/* Lines are appended: the caller takes them; buffers are reused. */
static void test_fmt_appends(void **state)
{
    (void)state;
    journal_fmt_t f;
    journal_fmt_init(&f);
    journal_entry_t a = entry("one"), b = entry("two\nthree");
    assert_int_equal(journal_fmt_short(&f, &a), 0);
    assert_int_equal(journal_fmt_short(&f, &b), 0);
    static const char want[] = HEAD "one\n" HEAD "two\n" PAD "three\n";
    assert_int_equal(f.len, sizeof want - 1);
    assert_memory_equal(f.out, want, f.len);
    f.len = 0;
    assert_int_equal(journal_fmt_short(&f, &a), 0);
    assert_int_equal(f.len, strlen(HEAD "one\n"));
    journal_fmt_free(&f);
}

static void test_utf8_printable(void **state)
{
    (void)state;
    assert_true(journal_utf8_printable("plain\ttab\nnl", 12));
    assert_true(journal_utf8_printable("\xf0\x9f\x98\x80", 4));
    assert_false(journal_utf8_printable("\xf0\x9f\x98", 3));   /* cut short */
    assert_false(journal_utf8_printable("\xf4\x90\x80\x80", 4));   /* past U+10FFFF */
    assert_false(journal_utf8_printable("\xef\xb7\x90", 3));   /* U+FDD0 */
    assert_false(journal_utf8_printable("a\rb", 3));
    assert_true(journal_utf8_printable("", 0));
}

int main(void)
{
    setenv("TZ", "UTC", 1);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_spec_check),      cmocka_unit_test(test_unit_mangle),
        cmocka_unit_test(test_targets),         cmocka_unit_test(test_fmt_message),
        cmocka_unit_test(test_fmt_blob),        cmocka_unit_test(test_fmt_header),
        cmocka_unit_test(test_fmt_time),        cmocka_unit_test(test_fmt_appends),
        cmocka_unit_test(test_utf8_printable),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
