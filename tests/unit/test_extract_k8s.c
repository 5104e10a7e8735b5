/* test_extract_k8s.c: the `k8s` format: Docker's json-file lines carrying
 * the application's JSON in "log": the inner keys (nested, arrays), the
 * runtime's $log, $stream and $time, the rejected lines (no log, a log that
 * is no object, plain text), and random inner objects: a k8s line gives
 * the values the json format gives for the inner object itself. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/support/extract_unit.h"
#include "tests/support/rng.h"

static const extract_env_t env = {"host07", "UTC", "0"};

static void test_fields(void **state)
{
    (void)state;
    const char *f[] = {"level", "req.ms", "tags.1.b", "$log", "$stream", "$time", "time",
                       "log", "stream"};
    extractor_t *x = xt_make("k8s", &env, f, 9);
    const char *l = "{\"log\":\"{\\\"level\\\":\\\"info\\\",\\\"req\\\":{\\\"ms\\\":12},"
                    "\\\"tags\\\":[\\\"a\\\",{\\\"b\\\":\\\"q\\\\\\\"\\\"}],\\\"time\\\":\\\"t\\\"}\\n\","
                    "\"stream\":\"stdout\",\"time\":\"2024-05-01T10:00:00.123456789Z\"}";
    sv_t v[9];
    assert_int_equal(xt_run1(x, 9, l, strlen(l), v), EXTRACT_OK);
    assert_sv(v[0], "info");
    assert_sv(v[1], "12");
    assert_sv(v[2], "q\"");
    assert_sv(v[3], "{\"level\":\"info\",\"req\":{\"ms\":12},\"tags\":[\"a\",{\"b\":\"q\\\"\"}],"
                    "\"time\":\"t\"}");
    assert_sv(v[4], "stdout");
    assert_sv(v[5], "2024-05-01T10:00:00.123456789Z");
    assert_sv(v[6], "t");          /* the application's own time key */
    assert_sv(v[7], NULL);         /* the runtime's keys are no barewords */
    assert_sv(v[8], NULL);
    /* keys in another order, spaces, an escaped stream, no time */
    const char *l2 = "{ \"stream\" : \"std\\u006frr\" , \"log\" : \"\\n {\\\"level\\\":1} \\r\\n\" }";
    assert_int_equal(xt_run1(x, 9, l2, strlen(l2), v), EXTRACT_OK);
    assert_sv(v[0], "1");
    assert_sv(v[3], "\n {\"level\":1}");
    assert_sv(v[4], "stdorr");
    assert_sv(v[5], NULL);
    extractor_free(x);
}

static void test_rejected(void **state)
{
    (void)state;
    const char *f[] = {"level", "$stream"};
    extractor_t *x = xt_make("k8s", &env, f, 2);
    static const char *const bad[] = {
        "", "not json", "{\"stream\":\"stdout\"}", "{\"log\":5}", "{\"log\":\"plain text\\n\"}",
        "{\"log\":\"[1]\"}", "{\"log\":\"{\\\"a\\\":1} x\"}", "{\"log\":\"{\\\"a\\\":}\"}",
        "{\"log\":\"{}\"", "[{\"log\":\"{}\"}]",
        "{\"log\":\"{}\",\"log\":5}",   /* the last log is no string */
    };
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        sv_t v[2];
        if (xt_run1(x, 2, bad[k], strlen(bad[k]), v) != EXTRACT_ERROR)
            fail_msg("'%s' was accepted", bad[k]);
        assert_sv(v[1], NULL);
        assert_non_null(strstr(extractor_last_error(x), "k8s line rejected"));
    }
    /* a key written with escapes is the same key */
    sv_t w[2];
    const char *esc = "{\"l\\u006fg\":\"{\\\"level\\\":7}\",\"str\\u0065am\":\"x\"}";
    assert_int_equal(xt_run1(x, 2, esc, strlen(esc), w), EXTRACT_OK);
    assert_sv(w[0], "7");
    assert_sv(w[1], "x");
    /* an unreadable runtime time: the line stays, the time is counted */
    const char *g[] = {"$time"};
    extractor_t *y = xt_make("k8s", &env, g, 1);
    sv_t v[1];
    const char *l = "{\"log\":\"{}\",\"time\":\"yesterday\"}";
    assert_int_equal(xt_run1(y, 1, l, strlen(l), v), EXTRACT_OK);
    assert_sv(v[0], NULL);
    assert_int_equal(extractor_bad_times(y), 1);
    extractor_free(y);
    extractor_free(x);
}

/* Escapes s as the content of a JSON string into out; its length. */
static size_t json_escape(const char *s, size_t n, char *out)
{
    size_t o = 0;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c == '"' || c == '\\') {
            out[o++] = '\\';
            out[o++] = (char)c;
        } else if (c < 0x20) {
            o += (size_t)sprintf(out + o, "\\u%04x", c);
        } else {
            out[o++] = (char)c;
        }
    }
    return o;
}

/* A random inner line: an object of random members, half of them with a
 * byte changed. */
static uint32_t gen_inner(uint64_t *rng, char *out)
{
    static const char *const members[] = {
        "\"a\":1", "\"b\":\"x\\\"y\"", "\"c\":{\"d\":[1,{\"e\":\"\\u00e9\"}]}",
        "\"a\":[true,null]", "\"x\":\"\\n\\t\"", "\"c\":[]", "\"b\":{\"c\":2.5e3}",
        "\"z\":\"caf\xc3\xa9\"",
    };
    static const char mut[] = "{}[]\":,\\ 0a";
    uint32_t o = 0;
    out[o++] = '{';
    unsigned n = rng_next(rng) % 5;
    for (unsigned k = 0; k < n; k++) {
        if (k)
            out[o++] = ',';
        const char *m = members[rng_next(rng) % (sizeof members / sizeof members[0])];
        memcpy(out + o, m, strlen(m));
        o += (uint32_t)strlen(m);
    }
    out[o++] = '}';
    if (rng_next(rng) % 2)
        out[rng_next(rng) % o] = mut[rng_next(rng) % (sizeof mut - 1)];
    return o;
}

static void test_random_vs_json(void **state)
{
    (void)state;
    const char *f[] = {"a", "b", "c", "c.d", "c.d.0", "c.d.1.e", "a.0", "a.1", "x", "b.c", "z"};
    enum { NF = 11, N = 400, CAP = 1024 };
    extractor_t *kx = xt_make("k8s", &env, f, NF), *jx = xt_make("json", &env, f, NF);
    xt_batch_t in, out;
    xt_batch_init(&in, N, CAP, NF);
    xt_batch_init(&out, N, 8 * CAP, NF);
    uint64_t rng = 0x8c8;
    size_t ok = 0, bad = 0;
    for (int round = 0; round < 30; round++) {
        for (size_t i = 0; i < N; i++) {
            char *src = in.buf + i * CAP;
            in.lines[i] = src;
            in.lens[i] = gen_inner(&rng, src);
            char *l = out.buf + i * 8 * CAP;
            size_t o = (size_t)sprintf(l, "{\"log\":\"");
            o += json_escape(src, in.lens[i], l + o);
            o += (size_t)sprintf(l + o, "\\n\",\"stream\":\"stdout\"}");
            out.lines[i] = l;
            out.lens[i] = (uint32_t)o;
        }
        xt_batch_run(jx, &in);
        xt_batch_run(kx, &out);
        for (size_t i = 0; i < N; i++) {
            assert_int_equal(out.st[i], in.st[i]);
            if (in.st[i] == EXTRACT_OK)
                ok++;
            else
                bad++;
            for (size_t k = 0; k < NF; k++) {
                sv_t a = in.cols[k][i], b = out.cols[k][i];
                assert_int_equal(a.len, b.len);
                if (a.len != SV_MISSING && a.len)
                    assert_memory_equal(a.p, b.p, a.len);
            }
        }
    }
    assert_true(ok > 3000);
    assert_true(bad > 1000);
    xt_batch_free(&in);
    xt_batch_free(&out);
    extractor_free(kx);
    extractor_free(jx);
}

/* The log written with a random choice of equivalent escapes per byte
 * (as it is, \uXXXX, \/ for '/', a surrogate pair for U+1F600), the
 * interesting part at every offset from 0 to 200: across the 64-byte
 * windows the log is unescaped in and the 16-byte blocks of its last 64
 * bytes. $log is the inner line again and the inner key its value; a
 * control byte or a bad escape at that offset rejects the line. */
static void test_log_escapes_at_every_offset(void **state)
{
    (void)state;
    const char *f[] = {"$log", "m"};
    extractor_t *x = xt_make("k8s", &env, f, 2);
    uint64_t rng = 0x10651;
    static const char tail[] = "x\\\"y\\\\z/\xc3\xa9\xf0\x9f\x98\x80";   /* x\"y\\z/é😀 */
    static const char want_m[] = "x\"y\\z/\xc3\xa9\xf0\x9f\x98\x80";
    char inner[512], line[4096], want[512];
    sv_t v[2];
    for (int k = 0; k <= 200; k++) {
        for (int rep = 0; rep < 4; rep++) {
            int n = sprintf(inner, "{\"m\":\"%.*s%s\"}", k,
                            "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
                            "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
                            tail);
            size_t o = (size_t)sprintf(line, "{\"log\":\"");
            for (int i = 0; i < n; i++) {
                unsigned char c = (unsigned char)inner[i];
                /* the first as plain as JSON allows, the others random */
                unsigned r = rep ? (unsigned)(rng_next(&rng) % 4) : 3;
                if (c == 0xf0 && r == 0) {          /* U+1F600 as a pair */
                    o += (size_t)sprintf(line + o, "\\ud83d\\ude00");
                    i += 3;
                } else if (c == '"' || c == '\\') {
                    line[o++] = '\\';
                    line[o++] = (char)c;
                } else if (c == '/' && r == 1) {
                    o += (size_t)sprintf(line + o, "\\/");
                } else if (c < 0x80 && r == 2) {
                    o += (size_t)sprintf(line + o, "\\u%04x", c);
                } else {
                    line[o++] = (char)c;
                }
            }
            o += (size_t)sprintf(line + o, "\\n\",\"stream\":\"stdout\"}");
            assert_int_equal(xt_run1(x, 2, line, o, v), EXTRACT_OK);
            assert_int_equal(v[0].len, (uint32_t)n);
            assert_memory_equal(v[0].p, inner, (size_t)n);
            memset(want, 'a', (size_t)k);
            memcpy(want + k, want_m, sizeof want_m - 1);
            assert_int_equal(v[1].len, (uint32_t)k + sizeof want_m - 1);
            assert_memory_equal(v[1].p, want, v[1].len);
        }
        /* a control byte, a bad escape and a cut \u at offset k of the log */
        static const char *const bad[] = {"\x01", "\\q", "\\u12", "\\ud83d\\u12"};
        for (size_t b = 0; b < sizeof bad / sizeof bad[0]; b++) {
            int o = sprintf(line, "{\"log\":\"{\\\"m\\\":\\\"%.*s%s\\\"}\",\"stream\":\"s\"}", k,
                            "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
                            "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
                            bad[b]);
            assert_int_equal(xt_run1(x, 2, line, (size_t)o, v), EXTRACT_ERROR);
        }
    }
    extractor_free(x);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fields),
        cmocka_unit_test(test_rejected),
        cmocka_unit_test(test_random_vs_json),
        cmocka_unit_test(test_log_escapes_at_every_offset),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
