/* test_extract_generickv.c: the `generic` and `generickv` formats
 * (dtail-behaviour.md §3.3, §3.4): generic accepts every line with only the
 * common variables; generickv adds each '|'-separated key=value token,
 * ignores tokens without '=' (DTail hangs on them, defect D1), and is
 * checked against a naive oracle on random lines. */
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

static const extract_env_t env = {"host07", "UTC", "0"};

static uint8_t run1(extractor_t *x, size_t n_fields, const char *line, size_t len, sv_t *out)
{
    sv_t *cols[64];
    for (size_t f = 0; f < n_fields; f++)
        cols[f] = &out[f];
    uint8_t st = 0xff;
    uint32_t l = (uint32_t)len;
    extract_batch(x, &line, &l, 1, cols, &st);
    return st;
}

static void assert_sv(sv_t v, const char *want)
{
    if (!want) {
        if (v.len != SV_MISSING)
            fail_msg("value \"%.*s\", want missing", (int)v.len, v.p);
        return;
    }
    if (v.len != strlen(want))
        fail_msg("value \"%.*s\" (len %u), want \"%s\"", v.len == SV_MISSING ? 0 : (int)v.len,
                 v.p ? v.p : "", v.len, want);
    if (v.len)
        assert_memory_equal(v.p, want, v.len);
}

static extractor_t *make(const char *fmt, const char *const *fields, size_t n)
{
    err_t e;
    extractor_t *x = extractor_new(fmt, fields, n, &env, &e);
    if (!x)
        fail_msg("extractor_new: %s", e.msg);
    return x;
}

static void test_generic_every_line(void **state)
{
    (void)state;
    const char *fields[] = {"$line", "a", "$time", "*"};
    extractor_t *x = make("generic", fields, 4);
    const char *lines[] = {"", "   ", "|", "a=1", "INFO|t|1|c|1|1|1|1|1m|MAPREDUCE:X|a=1",
                           "\xff\xfe", "{\"a\":1}"};
    for (size_t k = 0; k < sizeof lines / sizeof lines[0]; k++) {
        sv_t v[4];
        assert_int_equal(run1(x, 4, lines[k], strlen(lines[k]), v), EXTRACT_OK);
        assert_sv(v[1], NULL);
        assert_sv(v[2], NULL);
        assert_sv(v[3], "*");
    }
    sv_t v[4];
    run1(x, 4, "  hello world \r", 15, v);
    assert_sv(v[0], "hello world");
    const char nul[] = "a\0b";
    run1(x, 4, nul, 3, v);
    assert_int_equal(v[0].len, 3);
    extractor_free(x);
}

static void test_generickv_pairs(void **state)
{
    (void)state;
    const char *fields[] = {"a", "b", "c", "", "$line", "$time"};
    extractor_t *x = make("generickv", fields, 6);
    sv_t v[6];
    const char *l = "a=1|b=2=3|c=|=e|a=9";
    assert_int_equal(run1(x, 6, l, strlen(l), v), EXTRACT_OK);
    assert_sv(v[0], "9");          /* a later token wins */
    assert_sv(v[1], "2=3");
    assert_sv(v[2], "");
    assert_sv(v[3], "e");
    assert_sv(v[4], l);
    assert_sv(v[5], NULL);         /* generickv has no $time */
    l = "$time=5|$line=x";          /* keys named like variables set them */
    assert_int_equal(run1(x, 6, l, strlen(l), v), EXTRACT_OK);
    assert_sv(v[4], "x");
    assert_sv(v[5], "5");
    extractor_free(x);
}

/* DTail loops forever on a token without '=' (D1): here it is ignored. */
static void test_generickv_no_hang(void **state)
{
    (void)state;
    const char *fields[] = {"a", "b"};
    extractor_t *x = make("generickv", fields, 2);
    const char *lines[] = {"a=1|garbage", "garbage", "", "|", "||||", "a=1|garbage|b=2",
                           "garbage|a=1", "=", "a", "a=1|", "|a=1"};
    const char *want_a[] = {"1", NULL, NULL, NULL, NULL, "1", "1", NULL, NULL, "1", "1"};
    for (size_t k = 0; k < sizeof lines / sizeof lines[0]; k++) {
        sv_t v[2];
        assert_int_equal(run1(x, 2, lines[k], strlen(lines[k]), v), EXTRACT_OK);
        assert_sv(v[0], want_a[k]);
    }
    sv_t v[2];
    run1(x, 2, "a=1|garbage|b=2", 15, v);
    assert_sv(v[1], "2");
    extractor_free(x);
}

/* Only requested names are looked at; no dynamic field when none is asked
 * (the splitter is not even run). */
static void test_generickv_nothing_requested(void **state)
{
    (void)state;
    const char *fields[] = {"$line"};
    extractor_t *x = make("generickv", fields, 1);
    assert_int_equal(x->n_dyn, 1);   /* $line itself can be overridden */
    extractor_free(x);
    x = make("generickv", NULL, 0);
    assert_int_equal(x->n_dyn, 0);
    assert_int_equal(run1(x, 0, "a=1", 3, NULL), EXTRACT_OK);
    extractor_free(x);
}

/* ---- random lines against a naive oracle ---- */

static uint64_t rng = 4711;
static unsigned next_rand(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (unsigned)(rng >> 11);
}

static const char *const kv_fields[] = {"a", "b", "hostname", "", "$line", "x=y", "*", "a"};
#define N_KF (sizeof kv_fields / sizeof kv_fields[0])

static void oracle(const char *p, size_t n, const char **vp, size_t *vl)
{
    uint32_t n32 = (uint32_t)n;
    extract_trim(&p, &n32);
    n = n32;
    for (size_t f = 0; f < N_KF; f++) {
        vl[f] = SIZE_MAX;
        if (strcmp(kv_fields[f], "$line") == 0) {
            vp[f] = p;
            vl[f] = n;
        }
        if (strcmp(kv_fields[f], "*") == 0) {
            vp[f] = "*";
            vl[f] = 1;
        }
    }
    for (size_t at = 0;;) {
        const char *bar = memchr(p + at, '|', n - at);
        size_t end = bar ? (size_t)(bar - p) : n;
        const char *eq = memchr(p + at, '=', end - at);
        if (eq) {
            size_t kl = (size_t)(eq - (p + at));
            for (size_t f = 0; f < N_KF; f++)
                if (strlen(kv_fields[f]) == kl && memcmp(kv_fields[f], p + at, kl) == 0) {
                    vp[f] = eq + 1;
                    vl[f] = end - (size_t)(eq + 1 - p);
                }
        }
        if (!bar)
            break;
        at = end + 1;
    }
}

static void test_generickv_random(void **state)
{
    (void)state;
    static const char *const pieces[] = {"a", "b", "=", "|", "x=y", "hostname", " ", "\r",
                                         "\0", "==", "||", "a=", "b=", "$line=", "zzzzzzzz"};
    enum { N = 2000, CAP = 1500 };
    extractor_t *x = make("generickv", kv_fields, N_KF);
    char *buf = malloc((size_t)N * CAP);
    const char **lines = calloc(N, sizeof *lines);
    uint32_t *lens = calloc(N, sizeof *lens);
    sv_t *mem = calloc(N_KF * N, sizeof *mem);
    sv_t *cols[N_KF];
    for (size_t f = 0; f < N_KF; f++)
        cols[f] = mem + f * N;
    uint8_t *st = calloc(N, 1);
    size_t seen_long = 0;
    for (int round = 0; round < 10; round++) {
        for (size_t i = 0; i < N; i++) {
            char *l = buf + i * CAP;
            size_t target = next_rand() % 4 == 0 ? next_rand() % (CAP - 16) : next_rand() % 200;
            size_t o = 0;
            while (o < target) {
                const char *pc = pieces[next_rand() % (sizeof pieces / sizeof pieces[0])];
                size_t pl = pc[0] ? strlen(pc) : 1;
                memcpy(l + o, pc, pl);
                o += pl;
            }
            lines[i] = l;
            lens[i] = (uint32_t)o;
            seen_long += o > SPLIT_SHORT_MAX;
        }
        extract_batch(x, lines, lens, N, cols, st);
        for (size_t i = 0; i < N; i++) {
            assert_int_equal(st[i], EXTRACT_OK);
            const char *vp[N_KF];
            size_t vl[N_KF];
            oracle(lines[i], lens[i], vp, vl);
            for (size_t f = 0; f < N_KF; f++) {
                sv_t v = cols[f][i];
                if (vl[f] == SIZE_MAX) {
                    assert_int_equal(v.len, SV_MISSING);
                    continue;
                }
                if (v.len != vl[f] || (v.len && memcmp(v.p, vp[f], v.len) != 0))
                    fail_msg("line %zu field \"%s\" differs", i, kv_fields[f]);
            }
        }
    }
    assert_true(seen_long > 1000);
    free(buf);
    free(lines);
    free(lens);
    free(mem);
    free(st);
    extractor_free(x);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_generic_every_line),
        cmocka_unit_test(test_generickv_pairs),
        cmocka_unit_test(test_generickv_no_hang),
        cmocka_unit_test(test_generickv_nothing_requested),
        cmocka_unit_test(test_generickv_random),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
