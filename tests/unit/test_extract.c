/* test_extract.c: the extractor dispatcher and what every format shares:
 * format lookup, the common variables, DTail's whitespace trimming (Go's
 * strings.TrimSpace), repeated and unknown field names, per-batch error
 * messages, scratch lifetime across a batch, and agreement with the
 * parser's registry of formats and $variables. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "exec/extract/extract.h"
#include "exec/extract/extract_int.h"
#include "parser/logformat.h"
#include "tests/support/extract_unit.h"

static const extract_env_t env = {"host07", "UTC", "7200"};

static const char *const all_formats[] = {
    "default", "generic", "generickv", "csv", "csvnoheader", "tsv", "json", "k8s", "logfmt",
    "nginx", "apache", "syslog",
};
#define N_FORMATS (sizeof all_formats / sizeof all_formats[0])

/* A line every format accepts (csv and tsv after their header "a"), with
 * every $variable of the format (parser/logformat.c) and, where the
 * format names fields, a = 1. */
static const char *ok_line(const char *fmt)
{
    static const char *const lines[][2] = {
        {"default", "INFO|1002-071143|1|stats.go:56|8|13|7|0.21|471h0m21s|MAPREDUCE:STATS|a=1"},
        {"json", "{\"a\":1,\"time\":\"2024-05-01T10:00:00Z\"}"},
        {"csv", "1"},
        {"csvnoheader", "1"},
        {"tsv", "1"},
        {"k8s", "{\"log\":\"{\\\"a\\\":1}\\n\",\"stream\":\"stdout\",\"time\":\"2024-05-01T10:00:00Z\"}"},
        {"logfmt", "a=1 time=2024-05-01T10:00:00Z"},
        {"nginx", "::1 - bob [10/Oct/2000:13:55:36 -0700] \"GET / HTTP/1.1\" 200 5 \"-\" \"ua\" "
                  "\"10.0.0.1\" 0.012"},
        {"apache", "::1 - bob [10/Oct/2000:13:55:36 -0700] \"GET / HTTP/1.1\" 200 5 \"-\" \"ua\" "
                   "\"10.0.0.1\" 0.012"},
        {"syslog", "<165>1 2003-10-11T22:14:15.003Z host app 1 ID47 [a@1 x=\"1\"] hello"},
        {"pattern", "1 [10/Oct/2000:13:55:36 -0700]"},
    };
    for (size_t k = 0; k < sizeof lines / sizeof lines[0]; k++)
        if (strcmp(fmt, lines[k][0]) == 0)
            return lines[k][1];
    return "a=1";
}

/* Whether ok_line(fmt) gives the bareword a the value 1. */
static bool names_a(const char *fmt)
{
    return strcmp(fmt, "generic") && strcmp(fmt, "csvnoheader") && strcmp(fmt, "nginx") &&
           strcmp(fmt, "apache") && strcmp(fmt, "syslog");
}

/* An extractor of fmt that takes ok_line(fmt) (csv, tsv: their header set). */
static extractor_t *make(const char *fmt, const char *const *fields, size_t n)
{
    extractor_t *x = xt_make(fmt, &env, fields, n);
    err_t e;
    if ((strcmp(fmt, "csv") == 0 || strcmp(fmt, "tsv") == 0) &&
        extractor_set_header(x, "a", 1, &e) < 0)
        fail_msg("set_header: %s", e.msg);
    return x;
}

static void test_unknown_format(void **state)
{
    (void)state;
    const char *bad[] = {"custom1", "custom2", "mimecast", "mimecastgeneric", "", "Default",
                         "delimited"};
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        err_t e;
        err_clear(&e);
        extractor_t *x = extractor_new(bad[k], NULL, 0, &env, &e);
        assert_null(x);
        assert_int_not_equal(e.code, ERR_NONE);
        assert_non_null(strstr(e.msg, "unknown log format"));
    }
}

static void test_common_vars_every_format(void **state)
{
    (void)state;
    const char *fields[] = {"$line", "$empty", "$hostname", "$server", "$timezone",
                            "$timeoffset", "*"};
    for (size_t k = 0; k < N_FORMATS; k++) {
        if (strcmp(all_formats[k], "tsv") == 0)
            continue;           /* tsv trims only a final \r (test_extract_tsv) */
        extractor_t *x = make(all_formats[k], fields, 7);
        char buf[256];
        snprintf(buf, sizeof buf, " \t%s\r", ok_line(all_formats[k]));
        sv_t v[7];
        assert_int_equal(xt_run1(x, 7, buf, strlen(buf), v), EXTRACT_OK);
        assert_sv(v[0], ok_line(all_formats[k]));
        assert_sv(v[1], "");
        assert_sv(v[2], "host07");
        assert_sv(v[3], "host07");
        assert_sv(v[4], "UTC");
        assert_sv(v[5], "7200");
        assert_sv(v[6], "*");
        for (int f = 1; f < 7; f++)
            assert_true(extract_owns(x, v[f].p, v[f].len));
        extractor_free(x);
    }
}

static void test_env_null(void **state)
{
    (void)state;
    const char *fields[] = {"$hostname", "$timezone", "$timeoffset"};
    err_t e;
    extractor_t *x = extractor_new("generic", fields, 3, NULL, &e);
    assert_non_null(x);
    sv_t v[3];
    assert_int_equal(xt_run1(x, 3, "x", 1, v), EXTRACT_OK);
    assert_sv(v[0], "");
    assert_sv(v[1], "");
    assert_sv(v[2], "");
    extractor_free(x);
    extract_env_t partial = {"h", NULL, NULL};
    x = extractor_new("generic", fields, 3, &partial, &e);
    assert_int_equal(xt_run1(x, 3, "x", 1, v), EXTRACT_OK);
    assert_sv(v[0], "h");
    assert_sv(v[1], "");
    extractor_free(x);
}

static void test_env_is_copied(void **state)
{
    (void)state;
    char host[16] = "before";
    extract_env_t en = {host, "UTC", "0"};
    const char *fields[] = {"$hostname"};
    err_t e;
    extractor_t *x = extractor_new("generic", fields, 1, &en, &e);
    strcpy(host, "after");
    sv_t v[1];
    xt_run1(x, 1, "x", 1, v);
    assert_sv(v[0], "before");
    extractor_free(x);
}

/* Go's strings.TrimSpace: ASCII \t\n\v\f\r and space, and the Unicode
 * spaces; nothing else (NUL, other controls, invalid UTF-8) is trimmed. */
static void test_trim(void **state)
{
    (void)state;
    static const struct {
        const char *in;
        size_t len;
        const char *want;
    } cases[] = {
        {"abc", 3, "abc"},
        {"  abc  ", 7, "abc"},
        {"\t\n\v\f\r abc \r\n", 12, "abc"},
        {"abc\r", 4, "abc"},
        {"", 0, ""},
        {"   ", 3, ""},
        {"\r", 1, ""},
        {"a b", 3, "a b"},
        {"\xc2\xa0" "abc" "\xc2\x85", 7, "abc"},                   /* U+00A0, U+0085 */
        {"\xe3\x80\x80" "abc" "\xe2\x80\x8a", 9, "abc"},           /* U+3000, U+200A */
        {"\xe2\x80\xa8\xe2\x80\xa9" "x" "\xe2\x80\xaf\xe2\x81\x9f", 13, "x"},
        {"\xe1\x9a\x80" "x" "\xe2\x80\x80", 7, "x"},               /* U+1680, U+2000 */
        {"\xe2\x80\x8b" "x", 4, "\xe2\x80\x8b" "x"},               /* U+200B is not a space */
        {"\xc2" "x" "\xa0", 3, "\xc2" "x" "\xa0"},                 /* broken sequences */
        {"\xa0" "x" "\xc2", 3, "\xa0" "x" "\xc2"},
        {"\xff" "x" "\xfe", 3, "\xff" "x" "\xfe"},
        {"\x01x\x1f", 3, "\x01x\x1f"},                             /* not whitespace */
        {"\x7f" "x", 2, "\x7f" "x"},
        {" \xc2\xa0 ", 4, ""},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        const char *p = cases[k].in;
        uint32_t n = (uint32_t)cases[k].len;
        extract_trim(&p, &n);
        if (n != strlen(cases[k].want) || memcmp(p, cases[k].want, n) != 0)
            fail_msg("trim case %zu: got %u bytes", k, n);
    }
    /* NUL bytes inside and at the ends are kept. */
    const char nul[] = {' ', '\0', 'a', '\0', ' '};
    const char *p = nul;
    uint32_t n = 5;
    extract_trim(&p, &n);
    assert_int_equal(n, 3);
    assert_ptr_equal(p, nul + 1);
}

static void test_unknown_names_missing(void **state)
{
    (void)state;
    const char *fields[] = {"$nosuch", "nosuch", "$time", "a"};
    extractor_t *x = make("generic", fields, 4);
    sv_t v[4];
    assert_int_equal(xt_run1(x, 4, "a=1|$time=2", 11, v), EXTRACT_OK);
    for (int f = 0; f < 4; f++)
        assert_sv(v[f], NULL);   /* generic has no fields of its own */
    extractor_free(x);
    /* default: an unknown $variable is missing, not an error */
    x = make("default", fields, 4);
    const char *l = ok_line("default");
    assert_int_equal(xt_run1(x, 4, l, strlen(l), v), EXTRACT_OK);
    assert_sv(v[0], NULL);
    assert_sv(v[1], NULL);
    assert_sv(v[2], "1002-071143");
    assert_sv(v[3], "1");
    extractor_free(x);
}

static void test_repeated_names(void **state)
{
    (void)state;
    const char *fields[] = {"a", "$line", "a", "b", "$line", "a"};
    for (size_t k = 0; k < N_FORMATS; k++) {
        if (!names_a(all_formats[k]))
            continue;
        extractor_t *x = make(all_formats[k], fields, 6);
        const char *l = ok_line(all_formats[k]);
        sv_t v[6];
        assert_int_equal(xt_run1(x, 6, l, strlen(l), v), EXTRACT_OK);
        assert_sv(v[0], "1");
        assert_sv(v[2], "1");
        assert_sv(v[5], "1");
        assert_sv(v[1], l);
        assert_sv(v[4], l);
        assert_sv(v[3], NULL);
        extractor_free(x);
    }
}

static void test_no_fields(void **state)
{
    (void)state;
    for (size_t k = 0; k < N_FORMATS; k++) {
        extractor_t *x = make(all_formats[k], NULL, 0);
        const char *l = ok_line(all_formats[k]);
        assert_int_equal(xt_run1(x, 0, l, strlen(l), NULL), EXTRACT_OK);
        extractor_free(x);
    }
}

static void test_last_error_per_batch(void **state)
{
    (void)state;
    const char *fields[] = {"a"};
    extractor_t *x = make("json", fields, 1);
    assert_string_equal(extractor_last_error(x), "");
    const char *lines[] = {"{\"a\":1}", "nope", "[1]", "{\"a\":2}"};
    uint32_t lens[] = {7, 4, 3, 7};
    sv_t col[4];
    sv_t *cols[] = {col};
    uint8_t st[4];
    extract_batch(x, lines, lens, 4, cols, st);
    assert_int_equal(st[0], EXTRACT_OK);
    assert_int_equal(st[1], EXTRACT_ERROR);
    assert_int_equal(st[2], EXTRACT_ERROR);
    assert_int_equal(st[3], EXTRACT_OK);
    assert_non_null(strstr(extractor_last_error(x), "not a JSON object"));
    assert_non_null(strstr(extractor_last_error(x), "byte 0"));
    assert_sv(col[1], NULL);
    assert_sv(col[2], NULL);
    assert_sv(col[3], "2");
    extract_batch(x, lines, lens, 1, cols, st);
    assert_string_equal(extractor_last_error(x), "");
    extract_batch(x, lines, lens, 0, cols, st);
    assert_string_equal(extractor_last_error(x), "");
    extractor_free(x);
}

/* Views into scratch stay valid for the whole batch, however much scratch
 * the batch needs; the next batch reuses it without allocating. */
static void test_scratch_lifetime(void **state)
{
    (void)state;
    enum { N = 3000 };
    const char *fields[] = {"s"};
    extractor_t *x = make("json", fields, 1);
    char **lines = calloc(N, sizeof *lines);
    uint32_t *lens = calloc(N, sizeof *lens);
    sv_t *col = calloc(N, sizeof *col);
    uint8_t *st = calloc(N, 1);
    for (size_t i = 0; i < N; i++) {
        size_t reps = 1 + i % 40;
        lines[i] = malloc(16 + 12 * reps);
        size_t o = (size_t)sprintf(lines[i], "{\"s\":\"");
        for (size_t r = 0; r < reps; r++)
            o += (size_t)sprintf(lines[i] + o, "%02zu\\n\\u00e9", i % 100);
        o += (size_t)sprintf(lines[i] + o, "\"}");
        lens[i] = (uint32_t)o;
    }
    sv_t *cols[] = {col};
    for (int pass = 0; pass < 2; pass++) {
        extract_batch(x, (const char *const *)lines, lens, N, cols, st);
        for (size_t i = 0; i < N; i++) {
            assert_int_equal(st[i], EXTRACT_OK);
            size_t reps = 1 + i % 40;
            assert_int_equal(col[i].len, 5 * reps);
            assert_true(extract_owns(x, col[i].p, col[i].len));
            for (size_t r = 0; r < reps; r++) {
                char want[6];
                snprintf(want, sizeof want, "%02zu\n\xc3\xa9", i % 100);
                assert_memory_equal(col[i].p + 5 * r, want, 5);
            }
        }
    }
    assert_int_equal(x->scratch.n_old, 0);   /* the second pass fit in one block */
    for (size_t i = 0; i < N; i++)
        free(lines[i]);
    free(lines);
    free(lens);
    free(col);
    free(st);
    extractor_free(x);
}

/* Every format of the parser's registry has an extractor, and every
 * $variable the parser accepts for it is planned (not "missing" on a line
 * that has it). Also the other way round: the extractors know no format
 * the parser does not. */
static void test_registry_agreement(void **state)
{
    (void)state;
    for (size_t k = 0; logformat_all[k]; k++) {
        const logformat_t *lf = logformat_all[k];
        size_t n = 0;
        const char *fields[64];
        for (size_t c = 0; logformat_common_vars[c]; c++)
            fields[n++] = logformat_common_vars[c];
        for (size_t v = 0; lf->vars[v]; v++)
            fields[n++] = lf->vars[v];
        err_t e;
        /* pattern's registry entry has only $time: its other variables
         * are the pattern's own fields (test_extract_pattern.c). */
        bool pattern = strcmp(lf->name, "pattern") == 0;
        extract_opts_t o = {.pattern = pattern ? "$a [$time_local]" : NULL};
        extractor_t *x = extractor_new_opts(lf->name, fields, n, &env, &o, &e);
        if (!x)
            fail_msg("no extractor for format %s", lf->name);
        if (strcmp(lf->name, "csv") == 0 || strcmp(lf->name, "tsv") == 0)
            extractor_set_header(x, "a", 1, &e);
        const char *l = strcmp(lf->name, "default") == 0
                            ? "INFO|20211002-071143|1|stats.go:56|8|13|7|0.21|471h|MAPREDUCE:X|a=1"
                            : ok_line(lf->name);
        sv_t v[64];
        assert_int_equal(xt_run1(x, n, l, strlen(l), v), EXTRACT_OK);
        for (size_t f = 0; f < n; f++)
            if (v[f].len == SV_MISSING)
                fail_msg("format %s: %s is missing", lf->name, fields[f]);
        /* pattern finds its fields through the dynamic names' lookup, but
         * the parser knows them all (no bareword names a field). */
        if (!pattern)
            assert_int_equal(x->fmt->dynamic, lf->dynamic);
        extractor_free(x);
    }
    for (size_t k = 0; k < N_FORMATS; k++)
        assert_non_null(logformat_find(all_formats[k]));
}

/* Many fields: the name table handles collisions and growth. */
static void test_many_fields(void **state)
{
    (void)state;
    enum { NF = 300 };
    char *names[NF];
    char line[NF * 16];
    size_t o = 0;
    for (int f = 0; f < NF; f++) {
        names[f] = malloc(16);
        snprintf(names[f], 16, "k%d", f);
        if (f % 2 == 0)
            o += (size_t)sprintf(line + o, "%sk%d=%d", o ? "|" : "", f, f * 7);
    }
    extractor_t *x = make("generickv", (const char *const *)names, NF);
    sv_t *v = calloc(NF, sizeof *v);
    sv_t **cols = calloc(NF, sizeof *cols);
    for (int f = 0; f < NF; f++)
        cols[f] = &v[f];
    uint8_t st;
    const char *lp = line;
    uint32_t ll = (uint32_t)o;
    extract_batch(x, &lp, &ll, 1, cols, &st);
    assert_int_equal(st, EXTRACT_OK);
    for (int f = 0; f < NF; f++) {
        char want[16];
        snprintf(want, sizeof want, "%d", f * 7);
        assert_sv(v[f], f % 2 == 0 ? want : NULL);
        free(names[f]);
    }
    free(v);
    free(cols);
    extractor_free(x);
}

/* Both splitters against a byte loop, for every length up to 300 (short
 * lines, the window tail, the short splitter's limit) and random content;
 * each line is a private allocation so a read past it is caught by ASan. */
static void test_splitters(void **state)
{
    (void)state;
    uint64_t r = 12345;
    for (uint32_t len = 0; len <= 300; len++) {
        for (int rep = 0; rep < 20; rep++) {
            char *l = malloc(len ? len : 1);
            for (uint32_t k = 0; k < len; k++) {
                r = r * 6364136223846793005ULL + 1442695040888963407ULL;
                unsigned c = (unsigned)(r >> 33) % (rep < 10 ? 4 : 40);
                l[k] = c == 0 ? '|' : c == 1 ? '=' : c == 2 ? '\0' : 'a';
            }
            /* the byte loop */
            uint32_t want_start[301], want_end[301], want_eq[301], nt = 0, at = 0;
            for (uint32_t k = 0; k <= len; k++)
                if (k == len || l[k] == '|') {
                    want_start[nt] = at;
                    want_end[nt] = k;
                    want_eq[nt] = EXTRACT_NONE;
                    for (uint32_t q = at; q < k; q++)
                        if (l[q] == '=') {
                            want_eq[nt] = q;
                            break;
                        }
                    nt++;
                    at = k + 1;
                }
            /* streaming, with small output buffers to cross refills */
            split_t sp;
            split_init(&sp, l, len, '|', '=');
            split_tok_t tok[3];
            uint32_t got = 0;
            size_t n;
            while ((n = split_fill(&sp, tok, 1 + (size_t)(rep % 3))) > 0)
                for (size_t t = 0; t < n; t++, got++) {
                    assert_true(got < nt);
                    assert_int_equal(tok[t].start, want_start[got]);
                    assert_int_equal(tok[t].end, want_end[got]);
                    assert_int_equal(tok[t].eq, want_eq[got]);
                }
            assert_int_equal(got, nt);
            if (len <= SPLIT_SHORT_MAX) {
                split_short_t ss;
                split_short_init(&ss, l, len, '|', '=');
                assert_int_equal(ss.n_sep + 1, nt);
                for (uint32_t t = 0; t < nt; t++) {
                    assert_int_equal(split_short_start(&ss, t), want_start[t]);
                    assert_int_equal(split_short_end(&ss, t), want_end[t]);
                    assert_int_equal(extract_first_eq(ss.eq, SPLIT_SHORT_WIN - 1, 0, want_start[t], want_end[t]), want_eq[t]);
                }
            }
            free(l);
        }
    }
}

static void test_quote_helper(void **state)
{
    (void)state;
    char out[32];
    extract_quote(out, sizeof out, "ab\x01\\", 4, 64);
    assert_string_equal(out, "ab\\x01\\x5c");
    extract_quote(out, sizeof out, "abcdefgh", 8, 4);
    assert_string_equal(out, "abcd...");
    extract_quote(out, 8, "abcdefghijkl", 12, 64);
    assert_true(strlen(out) < 8);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_unknown_format),
        cmocka_unit_test(test_common_vars_every_format),
        cmocka_unit_test(test_env_null),
        cmocka_unit_test(test_env_is_copied),
        cmocka_unit_test(test_trim),
        cmocka_unit_test(test_unknown_names_missing),
        cmocka_unit_test(test_repeated_names),
        cmocka_unit_test(test_no_fields),
        cmocka_unit_test(test_last_error_per_batch),
        cmocka_unit_test(test_scratch_lifetime),
        cmocka_unit_test(test_registry_agreement),
        cmocka_unit_test(test_many_fields),
        cmocka_unit_test(test_splitters),
        cmocka_unit_test(test_quote_helper),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
