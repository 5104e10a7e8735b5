/* test_extract_json.c: the `json` format: flat and dotted nested keys,
 * string unescaping (\uXXXX, surrogate pairs, lone surrogates), raw numbers
 * and literals, raw arrays and objects, duplicate keys, the depth limit,
 * every kind of malformed line, and random (mutated) documents against
 * jansson, both for validity and for values. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "exec/extract/extract.h"
#include "exec/extract/extract_int.h"
#include "tests/support/extract_unit.h"
#include "tests/support/json_oracle.h"
#include "tests/support/rng.h"

static const extract_env_t env = {"host07", "UTC", "0"};

static extractor_t *make(const char *const *fields, size_t n)
{
    return xt_make("json", &env, fields, n);
}

static void test_flat_and_nested(void **state)
{
    (void)state;
    const char *fields[] = {"level", "req.user.id", "req.method", "n", "t", "f", "z", "arr",
                            "req.user", "req", "missing", "req.missing", "$line"};
    extractor_t *x = make(fields, 13);
    const char *l = "{\"level\":\"INFO\",\"req\":{\"method\":\"GET\",\"user\":{\"id\":42,\"x\":[1]}},"
                    "\"n\":-1.5e+3,\"t\":true,\"f\":false,\"z\":null,\"arr\":[1, \"two\", {\"a\":3}]}";
    sv_t v[13];
    assert_int_equal(xt_run1(x, 13, l, strlen(l), v), EXTRACT_OK);
    assert_sv(v[0], "INFO");
    assert_sv(v[1], "42");
    assert_sv(v[2], "GET");
    assert_sv(v[3], "-1.5e+3");
    assert_sv(v[4], "true");
    assert_sv(v[5], "false");
    assert_sv(v[6], "null");
    assert_sv(v[7], "[1, \"two\", {\"a\":3}]");
    assert_sv(v[8], "{\"id\":42,\"x\":[1]}");
    assert_sv(v[9], "{\"method\":\"GET\",\"user\":{\"id\":42,\"x\":[1]}}");
    assert_sv(v[10], NULL);
    assert_sv(v[11], NULL);
    assert_sv(v[12], l);
    for (int f = 0; f < 13; f++)
        if (v[f].len != SV_MISSING)
            assert_true(v[f].p >= l && v[f].p + v[f].len <= l + strlen(l));
    extractor_free(x);
}

static void test_whitespace(void **state)
{
    (void)state;
    const char *fields[] = {"a", "b.c"};
    extractor_t *x = make(fields, 2);
    const char *l = "  {\t\"a\" :\r\n \"1\" ,\"b\":{ \"c\" : [ ] } }  \r";
    sv_t v[2];
    assert_int_equal(xt_run1(x, 2, l, strlen(l), v), EXTRACT_OK);
    assert_sv(v[0], "1");
    assert_sv(v[1], "[ ]");
    assert_int_equal(xt_run1(x, 2, "{}", 2, v), EXTRACT_OK);
    assert_sv(v[0], NULL);
    assert_int_equal(xt_run1(x, 2, "{ }", 3, v), EXTRACT_OK);
    extractor_free(x);
}

static void test_unescape(void **state)
{
    (void)state;
    const char *fields[] = {"s", "k\xc3\xa9y", "q\"k", "a.b"};
    extractor_t *x = make(fields, 4);
    static const struct {
        const char *json;
        const char *want;
        size_t want_len;
    } cases[] = {
        {"{\"s\":\"plain\"}", "plain", 5},
        {"{\"s\":\"a\\\"b\\\\c\\/d\"}", "a\"b\\c/d", 7},
        {"{\"s\":\"\\b\\f\\n\\r\\t\"}", "\b\f\n\r\t", 5},
        {"{\"s\":\"\\u0041\\u00e9\\u20AC\"}", "A\xc3\xa9\xe2\x82\xac", 6},
        {"{\"s\":\"\\ud83d\\ude00\"}", "\xf0\x9f\x98\x80", 4},             /* surrogate pair */
        {"{\"s\":\"\\ud83d\"}", "\xef\xbf\xbd", 3},                        /* lone high */
        {"{\"s\":\"\\ude00x\"}", "\xef\xbf\xbdx", 4},                      /* lone low */
        {"{\"s\":\"\\ud83d\\u0041\"}", "\xef\xbf\xbd" "A", 4},             /* high + non-low */
        {"{\"s\":\"\\ud83d\\ud83d\\ude00\"}", "\xef\xbf\xbd\xf0\x9f\x98\x80", 7},
        {"{\"s\":\"\\u0000\"}", "\0", 1},
        {"{\"s\":\"raw \xc3\xa9 \xff bytes\"}", "raw \xc3\xa9 \xff bytes", 14},
        {"{\"s\":\"\"}", "", 0},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        sv_t v[4];
        if (xt_run1(x, 4, cases[k].json, strlen(cases[k].json), v) != EXTRACT_OK)
            fail_msg("case %zu rejected: %s", k, extractor_last_error(x));
        if (v[0].len != cases[k].want_len || memcmp(v[0].p, cases[k].want, v[0].len) != 0)
            fail_msg("case %zu: got \"%.*s\"", k, (int)v[0].len, v[0].p);
    }
    /* escaped keys match their unescaped names */
    sv_t v[4];
    const char *l = "{\"k\\u00e9y\":1,\"q\\\"k\":2,\"a\\u002eb\":3}";
    assert_int_equal(xt_run1(x, 4, l, strlen(l), v), EXTRACT_OK);
    assert_sv(v[1], "1");
    assert_sv(v[2], "2");
    assert_sv(v[3], "3");    /* a literal "a.b" key is the name a.b too */
    extractor_free(x);
}

static void test_duplicates_and_dots(void **state)
{
    (void)state;
    const char *fields[] = {"a", "a.b", "", "x.", ".y", "x..y"};
    extractor_t *x = make(fields, 6);
    sv_t v[6];
    const char *l = "{\"a\":1,\"a\":{\"b\":2},\"a.b\":3}";
    assert_int_equal(xt_run1(x, 6, l, strlen(l), v), EXTRACT_OK);
    assert_sv(v[0], "{\"b\":2}");   /* later wins */
    assert_sv(v[1], "3");           /* literal a.b after nested a.b */
    l = "{\"a.b\":3,\"a\":{\"b\":2}}";
    assert_int_equal(xt_run1(x, 6, l, strlen(l), v), EXTRACT_OK);
    assert_sv(v[1], "2");
    /* names are flat: a later duplicate key does not unset nested names */
    l = "{\"a\":{\"b\":1},\"a\":2}";
    assert_int_equal(xt_run1(x, 6, l, strlen(l), v), EXTRACT_OK);
    assert_sv(v[0], "2");
    assert_sv(v[1], "1");
    l = "{\"a\":{\"b\":{\"c\":1}},\"a.b\":3}";
    assert_int_equal(xt_run1(x, 6, l, strlen(l), v), EXTRACT_OK);
    assert_sv(v[1], "3");
    l = "{\"\":\"e\",\"x\":{\"\":\"xe\",\"\":{\"y\":\"xey\"}},\"\":{\"y\":\"ey\"}}";
    assert_int_equal(xt_run1(x, 6, l, strlen(l), v), EXTRACT_OK);
    assert_sv(v[2], "{\"y\":\"ey\"}");
    assert_sv(v[3], "{\"y\":\"xey\"}");
    assert_sv(v[4], "ey");
    assert_sv(v[5], "xey");
    extractor_free(x);
}

static void test_invalid(void **state)
{
    (void)state;
    const char *fields[] = {"a"};
    extractor_t *x = make(fields, 1);
    static const char *const bad[] = {
        "", " ", "null", "1", "\"s\"", "[1]", "[]", "{", "}", "{\"a\"}", "{\"a\":}", "{\"a\" 1}",
        "{a:1}", "{'a':1}", "{\"a\":1,}", "{,}", "{\"a\":1 \"b\":2}", "{\"a\":1}x", "{\"a\":1}{}",
        "{\"a\":01}", "{\"a\":1.}", "{\"a\":.5}", "{\"a\":-}", "{\"a\":1e}", "{\"a\":1e+}",
        "{\"a\":+1}", "{\"a\":0x1}", "{\"a\":NaN}", "{\"a\":Infinity}", "{\"a\":tru}",
        "{\"a\":True}", "{\"a\":nul}", "{\"a\":[1,]}", "{\"a\":[,1]}", "{\"a\":[1 2]}",
        "{\"a\":\"x}", "{\"a\":\"\\x\"}", "{\"a\":\"\\u12\"}", "{\"a\":\"\\u12g4\"}",
        "{\"a\":\"\\\"}", "{\"a\":\"tab\there\"}", "{\"a\":\"nl\nhere\"}", "{\"a\\\":1}",
        "{\"a\":1}]", "{\"a\":{\"b\":1}", "{\"a\":[}", "\xef\xbb\xbf{\"a\":1}",
        "{\"a\":1 /* c */}",
    };
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        sv_t v[1];
        uint8_t st = xt_run1(x, 1, bad[k], strlen(bad[k]), v);
        if (st != EXTRACT_ERROR)
            fail_msg("case %zu \"%s\": status %d, want error", k, bad[k], st);
        assert_sv(v[0], NULL);
        assert_non_null(strstr(extractor_last_error(x), "JSON line rejected"));
    }
    /* NUL bytes outside strings, and inside (raw control character) */
    const char nul1[] = "{\"a\":1\0}";
    const char nul2[] = "{\"a\":\"x\0y\"}";
    sv_t v[1];
    assert_int_equal(xt_run1(x, 1, nul1, sizeof nul1 - 1, v), EXTRACT_ERROR);
    assert_int_equal(xt_run1(x, 1, nul2, sizeof nul2 - 1, v), EXTRACT_ERROR);
    extractor_free(x);
}

static void test_depth(void **state)
{
    (void)state;
    const char *fields[] = {"a", "k.k.k"};
    extractor_t *x = make(fields, 2);
    char l[1024];
    for (int depth = 60; depth <= 70; depth++) {
        for (int arrays = 0; arrays < 2; arrays++) {
            size_t o = 0;
            o += (size_t)sprintf(l + o, "{\"a\":1,\"k\":");
            for (int d = 1; d < depth; d++)
                o += (size_t)sprintf(l + o, arrays ? "[" : "{\"k\":");
            o += (size_t)sprintf(l + o, "0");
            for (int d = 1; d < depth; d++)
                l[o++] = arrays ? ']' : '}';
            l[o++] = '}';
            sv_t v[2];
            uint8_t st = xt_run1(x, 2, l, o, v);
            /* the outer object is level 1 */
            assert_int_equal(st, depth <= 64 ? EXTRACT_OK : EXTRACT_ERROR);
            if (st == EXTRACT_ERROR)
                assert_non_null(strstr(extractor_last_error(x), "nesting too deep"));
        }
    }
    /* very deep input does not recurse past the limit */
    size_t n = 1 << 20;
    char *deep = malloc(n);
    deep[0] = '{';
    memcpy(deep + 1, "\"a\":", 4);
    memset(deep + 5, '[', n - 5);
    sv_t v[2];
    assert_int_equal(xt_run1(x, 2, deep, n, v), EXTRACT_ERROR);
    free(deep);
    extractor_free(x);
}

/* Only what is needed: no requested key means nothing is materialised,
 * but the line is still validated. */
static void test_no_dynamic_fields(void **state)
{
    (void)state;
    const char *fields[] = {"$line"};
    extractor_t *x = make(fields, 1);
    sv_t v[1];
    assert_int_equal(xt_run1(x, 1, "{\"a\":\"\\u00e9\"}", 14, v), EXTRACT_OK);
    assert_int_equal(xt_run1(x, 1, "{\"a\":\"\\u00g9\"}", 14, v), EXTRACT_ERROR);
    extractor_free(x);
    x = make(NULL, 0);
    assert_int_equal(xt_run1(x, 0, "{\"a\":{\"b\":[1,{}]}}", 18, NULL), EXTRACT_OK);
    assert_int_equal(xt_run1(x, 0, "{\"a\":{\"b\":[1,{]}}", 17, NULL), EXTRACT_ERROR);
    extractor_free(x);
}

/* Long keys and paths (longer than any requested name) do not match and
 * do not overflow the path buffer. */
static void test_long_keys(void **state)
{
    (void)state;
    const char *fields[] = {"ab", "a.b"};
    extractor_t *x = make(fields, 2);
    char l[20000];
    size_t o = (size_t)sprintf(l, "{\"");
    memset(l + o, 'a', 5000);
    o += 5000;
    o += (size_t)sprintf(l + o, "\":{\"b\":1},\"a\":{\"");
    for (int k = 0; k < 1000; k++)
        o += (size_t)sprintf(l + o, "\\u0062");
    o += (size_t)sprintf(l + o, "\":2,\"\\u0062\":3},\"\\u0061\\u0062\":4}");
    sv_t v[2];
    assert_int_equal(xt_run1(x, 2, l, o, v), EXTRACT_OK);
    assert_sv(v[0], "4");
    assert_sv(v[1], "3");
    extractor_free(x);
}

/* ---- random documents against jansson ---- */

static uint64_t rng = 2024;

typedef struct gbuf {
    char *p;        /* text */
    size_t n;       /* used */
    size_t cap;     /* size */
} gbuf_t;

static void put(gbuf_t *b, const char *s)
{
    size_t l = strlen(s);
    if (b->n + l < b->cap) {
        memcpy(b->p + b->n, s, l);
        b->n += l;
    }
}

static const char *const gen_keys[] = {"a", "b", "c", "", "k\xc3\xa9y", "k\\u00e9y", "x y",
                                       "q\\\"k"};

static void gen_value(gbuf_t *b, int depth);

static void gen_string(gbuf_t *b)
{
    static const char *const parts[] = {"x", "hello", "\\n", "\\\"", "\\\\", "\\/", "\\u0041",
                                        "\\u00e9", "\\ud83d\\ude00", "\\u0000", " ", "\xc3\xa9",
                                        "\\t", "\\u20ac"};
    put(b, "\"");
    unsigned n = rng_next(&rng) % 5;
    for (unsigned k = 0; k < n; k++)
        put(b, parts[rng_next(&rng) % (sizeof parts / sizeof parts[0])]);
    put(b, "\"");
}

static void gen_object(gbuf_t *b, int depth)
{
    put(b, rng_next(&rng) % 4 ? "{" : "{ ");
    unsigned n = depth > 5 ? 0 : rng_next(&rng) % 5;
    for (unsigned k = 0; k < n; k++) {
        if (k)
            put(b, rng_next(&rng) % 4 ? "," : " , ");
        put(b, "\"");
        put(b, gen_keys[rng_next(&rng) % (sizeof gen_keys / sizeof gen_keys[0])]);
        put(b, rng_next(&rng) % 4 ? "\":" : "\" : ");
        gen_value(b, depth + 1);
    }
    put(b, "}");
}

static void gen_value(gbuf_t *b, int depth)
{
    static const char *const nums[] = {"0", "-0", "1", "-12", "3.25", "1e5", "-2.5E-3", "10",
                                       "0.0", "7e+2", "123456"};
    unsigned r = rng_next(&rng) % 10;
    if (r < 3 && depth < 6) {
        gen_object(b, depth);
    } else if (r < 4 && depth < 6) {
        put(b, "[");
        unsigned n = rng_next(&rng) % 4;
        for (unsigned k = 0; k < n; k++) {
            if (k)
                put(b, ",");
            gen_value(b, depth + 1);
        }
        put(b, "]");
    } else if (r < 6) {
        gen_string(b);
    } else if (r < 8) {
        put(b, nums[rng_next(&rng) % (sizeof nums / sizeof nums[0])]);
    } else {
        static const char *const lits[] = {"true", "false", "null"};
        put(b, lits[rng_next(&rng) % 3]);
    }
}

static void mutate(gbuf_t *b)
{
    static const char alphabet[] = "{}[]\":,\\ 0123456789eE+-.tfnrulax\t";
    unsigned n = rng_next(&rng) % 3;
    for (unsigned k = 0; k < n && b->n; k++) {
        size_t at = rng_next(&rng) % b->n;
        switch (rng_next(&rng) % 3) {
        case 0:
            b->p[at] = alphabet[rng_next(&rng) % (sizeof alphabet - 1)];
            break;
        case 1:
            memmove(b->p + at, b->p + at + 1, b->n - at - 1);
            b->n--;
            break;
        default:
            if (b->n + 1 < b->cap) {
                memmove(b->p + at + 1, b->p + at, b->n - at);
                b->p[at] = alphabet[rng_next(&rng) % (sizeof alphabet - 1)];
                b->n++;
            }
        }
    }
}

/* jansson rejects some documents we accept: numbers out of range, lone
 * surrogates (we give U+FFFD, as Go), invalid UTF-8 (we pass bytes through).
 * Those cases are not compared (jansson_limit, json_oracle.h). */

static const char *const cmp_fields[] = {"a", "b", "c", "", "k\xc3\xa9y", "x y", "q\"k", "a.b",
                                         "a.a", "b.c", "a.b.c", "a.", ".a", "c.k\xc3\xa9y",
                                         "a.0", "b.1", "a.0.b", "c.2.a", "b.0.1", "a.01"};
#define N_CF (sizeof cmp_fields / sizeof cmp_fields[0])

static const char *cur_line;
static size_t cur_len;
static const char *cur_field;

static void compare_value(sv_t v, json_t *want, size_t line)
{
    if (!want) {
        if (v.len != SV_MISSING)
            fail_msg("line %zu \"%.*s\" field \"%s\": got \"%.*s\", jansson has nothing", line, (int)cur_len, cur_line, cur_field, (int)v.len, v.p);
        return;
    }
    if (v.len == SV_MISSING)
        fail_msg("line %zu: missing, jansson has a value", line);
    if (json_is_string(want)) {
        if (v.len != json_string_length(want) ||
            memcmp(v.p, json_string_value(want), v.len) != 0)
            fail_msg("line %zu: string differs", line);
        return;
    }
    /* numbers, literals, arrays, objects: our raw text parses to the same */
    json_error_t je;
    json_t *mine = json_loadb(v.p, v.len, JSON_DECODE_ANY | JSON_ALLOW_NUL, &je);
    if (!mine)
        fail_msg("line %zu: raw value \"%.*s\" does not parse: %s", line, (int)v.len, v.p,
                 je.text);
    if (!json_equal(mine, want))
        fail_msg("line %zu: raw value \"%.*s\" differs", line, (int)v.len, v.p);
    json_decref(mine);
}

/* Array members by index, at any depth, and the array itself raw. */
static void test_arrays(void **state)
{
    (void)state;
    const char *f[] = {"tags.0", "tags.1", "tags.2", "tags", "a.0.b", "a.1.0", "a.1.1.c",
                       "a.01", "a.-1", "n.0"};
    extractor_t *x = make(f, 10);
    const char *l = "{\"tags\":[\"x\", \"y\\n\"],\"a\":[{\"b\":1},[2,{\"c\":[3]}]],"
                    "\"n\":{\"0\":\"key\"}}";
    sv_t v[10];
    assert_int_equal(xt_run1(x, 10, l, strlen(l), v), EXTRACT_OK);
    assert_sv(v[0], "x");
    assert_sv(v[1], "y\n");
    assert_sv(v[2], NULL);
    assert_sv(v[3], "[\"x\", \"y\\n\"]");
    assert_sv(v[4], "1");
    assert_sv(v[5], "2");
    assert_sv(v[6], "[3]");
    assert_sv(v[7], NULL);
    assert_sv(v[8], NULL);
    assert_sv(v[9], "key");       /* an object's key "0" is the same name */
    extractor_free(x);
    /* Past the names' length no index is written (a long array). */
    const char *g[] = {"a.9"};
    x = make(g, 1);
    char big[8192];
    int o = sprintf(big, "{\"a\":[");
    for (int k = 0; k < 1500; k++)
        o += sprintf(big + o, "%s%d", k ? "," : "", k);
    o += sprintf(big + o, "]}");
    assert_int_equal(xt_run1(x, 1, big, (size_t)o, v), EXTRACT_OK);
    assert_sv(v[0], "9");
    extractor_free(x);
}

/* $time: the first of the top-level keys time, timestamp, ts, @timestamp. */
static void test_time(void **state)
{
    (void)state;
    const char *f[] = {"$time", "ts"};
    extractor_t *x = make(f, 2);
    static const xt_case_t cases[] = {
        {"{\"ts\":1714557600,\"time\":\"2024-05-01T12:00:00+02:00\"}", "2024-05-01T10:00:00Z"},
        {"{\"ts\":1714557600123}", "2024-05-01T10:00:00.123Z"},
        {"{\"@timestamp\":\"2024-05-01T10:00:00.5Z\"}", "2024-05-01T10:00:00.5Z"},
        {"{\"a\":{\"time\":\"2024-05-01T10:00:00Z\"}}", NULL},   /* not top-level */
        {"{\"timestamp\":\"soon\"}", NULL},
        {"{\"time\":{\"s\":1}}", NULL},
    };
    xt_check_cases(x, 2, cases, sizeof cases / sizeof cases[0]);
    assert_int_equal(extractor_bad_times(x), 2);
    assert_string_equal(extractor_bad_time(x, 1), "{\"s\":1}");
    extractor_free(x);
}

static void test_random_vs_jansson(void **state)
{
    (void)state;
    enum { N = 500, CAP = 4096 };
    extractor_t *x = make(cmp_fields, N_CF);
    xt_batch_t bt;
    xt_batch_init(&bt, N, CAP, N_CF);
    size_t agree_ok = 0, agree_bad = 0, values = 0;
    for (int round = 0; round < 40; round++) {
        for (size_t i = 0; i < N; i++) {
            gbuf_t b = {bt.buf + i * CAP, 0, CAP};
            gen_object(&b, 0);
            if (rng_next(&rng) % 2)
                mutate(&b);
            bt.lines[i] = b.p;
            bt.lens[i] = (uint32_t)b.n;
        }
        xt_batch_run(x, &bt);
        for (size_t i = 0; i < N; i++) {
            json_error_t je;
            json_t *root = json_loadb(bt.lines[i], bt.lens[i], JSON_ALLOW_NUL, &je);
            if (!root && jansson_limit(&je))
                continue;
            /* jansson ignores surrounding whitespace as we trim it */
            bool j_ok = root && json_is_object(root);
            if (j_ok != (bt.st[i] == EXTRACT_OK))
                fail_msg("line %zu \"%.*s\": ours %d, jansson %s", i, (int)bt.lens[i], bt.lines[i],
                         bt.st[i], root ? "object" : je.text);
            if (!j_ok) {
                agree_bad++;
                json_decref(root);
                continue;
            }
            agree_ok++;
            /* with duplicate keys, whether a literal "a.b" or a nested a.b
             * comes last is lost in jansson's tree: dotted names skipped */
            json_t *strict = json_loadb(bt.lines[i], bt.lens[i],
                                        JSON_ALLOW_NUL | JSON_REJECT_DUPLICATES, &je);
            bool dups = !strict;
            json_decref(strict);
            for (size_t f = 0; f < N_CF; f++) {
                int ways = 0;
                json_t *want = jansson_get(root, cmp_fields[f], &ways);
                if (ways > 1 || (dups && strchr(cmp_fields[f], '.')))
                    continue;
                cur_line = bt.lines[i];
                cur_len = bt.lens[i];
                cur_field = cmp_fields[f];
                values += want != NULL;
                compare_value(bt.cols[f][i], want, i);
            }
            json_decref(root);
        }
    }
    assert_true(agree_ok > 5000);
    assert_true(agree_bad > 3000);
    assert_true(values > 10000);
    xt_batch_free(&bt);
    extractor_free(x);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_flat_and_nested),
        cmocka_unit_test(test_whitespace),
        cmocka_unit_test(test_unescape),
        cmocka_unit_test(test_duplicates_and_dots),
        cmocka_unit_test(test_invalid),
        cmocka_unit_test(test_depth),
        cmocka_unit_test(test_no_dynamic_fields),
        cmocka_unit_test(test_long_keys),
        cmocka_unit_test(test_arrays),
        cmocka_unit_test(test_time),
        cmocka_unit_test(test_random_vs_jansson),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
