/* test_extract_default.c: the `default` format (DTail's MapReduce line,
 * dtail-behaviour.md §3.2): positional variables, $date..$second, key=value
 * barewords, the INFO / MAPREDUCE: / 11-field acceptance rules, the error
 * on a token without '=', DTail's own test data (compat mapr_testdata.log),
 * and the vector splitters (short and long lines) against a naive oracle
 * on random lines. */
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
#include "tests/support/extract_oracle.h"
#include "tests/support/extract_unit.h"
#include "tests/support/rng.h"

static const extract_env_t env = {"host07", "UTC", "0"};

static const char *const vars[] = {
    "$severity", "$loglevel", "$time", "$pid", "$caller", "$cpus", "$goroutines",
    "$cgocalls", "$loadavg", "$uptime", "$date", "$hour", "$minute", "$second",
};
#define N_VARS 14

static extractor_t *make(const char *const *fields, size_t n)
{
    return xt_make("default", &env, fields, n);
}

static void test_positional(void **state)
{
    (void)state;
    extractor_t *x = make(vars, N_VARS);
    const char *l = "INFO|1002-071143|1|stats.go:56|8|13|7|0.21|471h0m21s|MAPREDUCE:STATS|"
                    "currentConnections=0|lifetimeConnections=1";
    sv_t v[N_VARS];
    assert_int_equal(xt_run1(x, N_VARS, l, strlen(l), v), EXTRACT_OK);
    const char *want[N_VARS] = {"INFO", "INFO", "1002-071143", "1", "stats.go:56", "8", "13",
                                "7", "0.21", "471h0m21s", NULL, NULL, NULL, NULL};
    for (int f = 0; f < N_VARS; f++)
        assert_sv(v[f], want[f]);
    extractor_free(x);
}

static void test_full_time(void **state)
{
    (void)state;
    extractor_t *x = make(vars, N_VARS);
    const char *l = "INFO|19801011-424242|1|dserver_test.go|1|1|1|1.0|1m|"
                    "MAPREDUCE:INTEGRATIONTEST|foo=1|bar=42";
    sv_t v[N_VARS];
    assert_int_equal(xt_run1(x, N_VARS, l, strlen(l), v), EXTRACT_OK);
    assert_sv(v[2], "19801011-424242");
    assert_sv(v[10], "19801011");
    assert_sv(v[11], "42");
    assert_sv(v[12], "42");
    assert_sv(v[13], "42");
    /* 15 characters but not YYYYMMDD-HHMMSS: not split */
    const char *bad[] = {
        "INFO|19801011x424242|1|c|1|1|1|1|1m|MAPREDUCE:X|a=1",
        "INFO|1980101a-424242|1|c|1|1|1|1|1m|MAPREDUCE:X|a=1",
        "INFO|19801011-42424 |1|c|1|1|1|1|1m|MAPREDUCE:X|a=1",
        "INFO|19801011-4242420|1|c|1|1|1|1|1m|MAPREDUCE:X|a=1",
        "INFO||1|c|1|1|1|1|1m|MAPREDUCE:X|a=1",
    };
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        assert_int_equal(xt_run1(x, N_VARS, bad[k], strlen(bad[k]), v), EXTRACT_OK);
        for (int f = 10; f < 14; f++)
            assert_sv(v[f], NULL);
    }
    extractor_free(x);
}

static void test_keyvalues(void **state)
{
    (void)state;
    const char *fields[] = {"a", "b", "c", "", "d", "$time", "$line", "hostname"};
    extractor_t *x = make(fields, 8);
    sv_t v[8];
    const char *pre = "INFO|t|1|c|1|1|1|1|1m|MAPREDUCE:X|";
    char l[512];
    /* split on the first '='; empty value; empty key; later duplicate wins */
    snprintf(l, sizeof l, "%sa=1=2|b=|=x|c=3|c=4|hostname=h1", pre);
    assert_int_equal(xt_run1(x, 8, l, strlen(l), v), EXTRACT_OK);
    assert_sv(v[0], "1=2");
    assert_sv(v[1], "");
    assert_sv(v[2], "4");
    assert_sv(v[3], "x");
    assert_sv(v[4], NULL);
    assert_sv(v[5], "t");
    assert_sv(v[6], l);
    assert_sv(v[7], "h1");
    /* a key named like a variable overrides it, as in DTail's field map */
    snprintf(l, sizeof l, "%s$time=override|$line=L", pre);
    assert_int_equal(xt_run1(x, 8, l, strlen(l), v), EXTRACT_OK);
    assert_sv(v[5], "override");
    assert_sv(v[6], "L");
    /* keys are case-sensitive, spaces are part of keys and values */
    snprintf(l, sizeof l, "%sA=1| a=2|a =3|b= 4 ", pre);
    assert_int_equal(xt_run1(x, 8, l, strlen(l), v), EXTRACT_OK);
    assert_sv(v[0], NULL);
    assert_sv(v[1], " 4");   /* trailing space trimmed with the line */
    extractor_free(x);
}

static void test_skip(void **state)
{
    (void)state;
    const char *fields[] = {"$time", "a"};
    extractor_t *x = make(fields, 2);
    const char *skip[] = {
        "",
        "|",
        "||||||||||||||||||||",
        "INFO",
        "INFO|",
        "WARN|t|1|c|1|1|1|1|1m|MAPREDUCE:X|a=1",
        "ERROR|t|1|c|1|1|1|1|1m|MAPREDUCE:X|a=1",
        "info|t|1|c|1|1|1|1|1m|MAPREDUCE:X|a=1",
        " INF|t|1|c|1|1|1|1|1m|MAPREDUCE:X|a=1",
        "INFO|t|1|c|1|1|1|1|1m|MAPREDUCE:X",          /* 10 fields */
        "INFO|t|1|c|1|1|1|1|1m|MAPREDUCE|a=1",         /* no ':' */
        "INFO|t|1|c|1|1|1|1|1m|mapreduce:X|a=1",
        "INFO|t|1|c|1|1|1|1|MAPREDUCE:X|a=1|b=2",      /* table one field early */
        "INFO|t|1|c|1|1|1|1|1m| MAPREDUCE:X|a=1",
        "INFO|t|1|c|1|1|1|1|1m|MAPREDUCE|garbage",     /* skipped before the bad token */
    };
    sv_t v[2];
    for (size_t k = 0; k < sizeof skip / sizeof skip[0]; k++) {
        uint8_t st = xt_run1(x, 2, skip[k], strlen(skip[k]), v);
        if (st != EXTRACT_SKIP)
            fail_msg("line %zu \"%s\": status %d, want skip", k, skip[k], st);
        assert_sv(v[0], NULL);
        assert_sv(v[1], NULL);
    }
    /* accepted variants */
    const char *ok[] = {
        "INFO|t|1|c|1|1|1|1|1m|MAPREDUCE:|a=1",
        "INFOX|t|1|c|1|1|1|1|1m|MAPREDUCE:X|a=1",
        "INFO |t|1|c|1|1|1|1|1m|MAPREDUCE:X|a=1",
        "  INFO|t|1|c|1|1|1|1|1m|MAPREDUCE:X|a=1  \r",
        "INFO|||||||||MAPREDUCE:X|a=1",
        "INFO|t|1|c|1|1|1|1|1m|MAPREDUCE:STATS:MORE|a=1",
    };
    for (size_t k = 0; k < sizeof ok / sizeof ok[0]; k++) {
        uint8_t st = xt_run1(x, 2, ok[k], strlen(ok[k]), v);
        if (st != EXTRACT_OK)
            fail_msg("line %zu \"%s\": status %d, want ok", k, ok[k], st);
        assert_sv(v[1], "1");
    }
    extractor_free(x);
}

static void test_error(void **state)
{
    (void)state;
    const char *fields[] = {"a"};
    extractor_t *x = make(fields, 1);
    const char *bad[] = {
        "INFO|t|1|c|1|1|1|1|1m|MAPREDUCE:X|garbage",
        "INFO|t|1|c|1|1|1|1|1m|MAPREDUCE:X|a=1|garbage",
        "INFO|t|1|c|1|1|1|1|1m|MAPREDUCE:X|a=1|",      /* trailing empty token */
        "INFO|t|1|c|1|1|1|1|1m|MAPREDUCE:X||a=1",
        "INFO|t|1|c|1|1|1|1|1m|MAPREDUCE:X|",
    };
    sv_t v[1];
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        uint8_t st = xt_run1(x, 1, bad[k], strlen(bad[k]), v);
        if (st != EXTRACT_ERROR)
            fail_msg("line %zu: status %d, want error", k, st);
        assert_sv(v[0], NULL);
        assert_non_null(strstr(extractor_last_error(x), "Unable to parse key-value token '"));
    }
    xt_run1(x, 1, bad[1], strlen(bad[1]), v);
    assert_string_equal(extractor_last_error(x), "Unable to parse key-value token 'garbage'");
    /* long and binary tokens are cut and escaped in the message */
    char l[600];
    int o = snprintf(l, sizeof l, "INFO|t|1|c|1|1|1|1|1m|MAPREDUCE:X|a=1|\x01\xff");
    memset(l + o, 'z', 300);
    l[o + 300] = '\0';
    assert_int_equal(xt_run1(x, 1, l, strlen(l), v), EXTRACT_ERROR);
    assert_non_null(strstr(extractor_last_error(x), "'\\x01\\xffzzz"));
    assert_non_null(strstr(extractor_last_error(x), "...'"));
    extractor_free(x);
}

static void test_binary_bytes(void **state)
{
    (void)state;
    const char *fields[] = {"$caller", "a", "$line"};
    extractor_t *x = make(fields, 3);
    const char l[] = "INFO|t|1|c\0\xff\xfe|1|1|1|1|1m|MAPREDUCE:X|a=\0\x80";
    sv_t v[3];
    assert_int_equal(xt_run1(x, 3, l, sizeof l - 1, v), EXTRACT_OK);
    assert_int_equal(v[0].len, 4);
    assert_memory_equal(v[0].p, "c\0\xff\xfe", 4);
    assert_int_equal(v[1].len, 2);
    assert_memory_equal(v[1].p, "\0\x80", 2);
    assert_int_equal(v[2].len, sizeof l - 1);
    extractor_free(x);
}

/* A batch mixing accepted, skipped and bad lines; the views of each line
 * point into that line. */
static void test_batch_mixed(void **state)
{
    (void)state;
    const char *fields[] = {"$goroutines", "a", "$line"};
    extractor_t *x = make(fields, 3);
    const char *lines[] = {
        "INFO|t|1|c|1|11|1|1|1m|MAPREDUCE:X|a=1",
        "WARN|t|1|c|1|12|1|1|1m|MAPREDUCE:X|a=2",
        "INFO|t|1|c|1|13|1|1|1m|MAPREDUCE:X|junk",
        "INFO|t|1|c|1|14|1|1|1m|MAPREDUCE:X|a=4",
    };
    uint32_t lens[4];
    for (int i = 0; i < 4; i++)
        lens[i] = (uint32_t)strlen(lines[i]);
    sv_t c0[4], c1[4], c2[4];
    sv_t *cols[] = {c0, c1, c2};
    uint8_t st[4];
    extract_batch(x, lines, lens, 4, cols, st);
    assert_int_equal(st[0], EXTRACT_OK);
    assert_int_equal(st[1], EXTRACT_SKIP);
    assert_int_equal(st[2], EXTRACT_ERROR);
    assert_int_equal(st[3], EXTRACT_OK);
    assert_sv(c0[0], "11");
    assert_sv(c0[3], "14");
    assert_sv(c1[3], "4");
    assert_ptr_equal(c2[3].p, lines[3]);
    assert_sv(c0[1], NULL);
    assert_sv(c2[2], NULL);
    assert_string_equal(extractor_last_error(x), "Unable to parse key-value token 'junk'");
    extractor_free(x);
}

/* DTail's integration test data: 597 lines, all accepted. Skipped where
 * that data is not (a plain clone has no ../shared). */
static void test_compat_testdata(void **state)
{
    (void)state;
    const char *dir = getenv("DTAIL_COMPAT_DIR");
    char path[4096];
    snprintf(path, sizeof path, "%s/mapr_testdata.log", dir ? dir : "../shared/compat");
    FILE *f = fopen(path, "rb");
    if (!f) {
        print_message("SKIP test_compat_testdata: needs DTail's acceptance data %s\n", path);
        skip();
    }
    static char buf[1 << 20];
    size_t n = fread(buf, 1, sizeof buf, f);
    fclose(f);
    const char *lines[1000];
    uint32_t lens[1000];
    size_t nl = 0;
    for (size_t at = 0; at < n;) {
        const char *nlp = memchr(buf + at, '\n', n - at);
        size_t end = nlp ? (size_t)(nlp - buf) : n;
        lines[nl] = buf + at;
        lens[nl] = (uint32_t)(end - at);
        nl++;
        at = end + 1;
    }
    assert_int_equal(nl, 597);
    const char *fields[] = {"$goroutines", "$time", "currentConnections", "lifetimeConnections",
                            "$date", "$line", "$severity"};
    extractor_t *x = make(fields, 7);
    sv_t c[7][597];
    sv_t *cols[7];
    for (int k = 0; k < 7; k++)
        cols[k] = c[k];
    uint8_t st[597];
    extract_batch(x, lines, lens, nl, cols, st);
    for (size_t i = 0; i < nl; i++) {
        assert_int_equal(st[i], EXTRACT_OK);
        /* naive: fields by strtok-like walking */
        char line[512];
        memcpy(line, lines[i], lens[i]);
        line[lens[i]] = '\0';
        char *tok[32];
        int nt = 0;
        for (char *p = line;; ) {
            tok[nt++] = p;
            char *bar = strchr(p, '|');
            if (!bar)
                break;
            *bar = '\0';
            p = bar + 1;
        }
        assert_int_equal(nt, 12);
        assert_sv(c[0][i], tok[5]);
        assert_sv(c[1][i], tok[1]);
        for (int t = 10; t < nt; t++) {
            char *eq = strchr(tok[t], '=');
            *eq = '\0';
            int k = strcmp(tok[t], "currentConnections") == 0 ? 2 : 3;
            assert_sv(c[k][i], eq + 1);
        }
        assert_sv(c[4][i], NULL);           /* MMDD-HHMMSS: no $date (D9) */
        assert_sv(c[6][i], "INFO");
        assert_int_equal(c[5][i].len, lens[i]);
    }
    assert_sv(c[0][0], "13");
    assert_sv(c[1][0], "1002-071143");
    assert_sv(c[2][0], "0");
    assert_sv(c[3][0], "1");
    extractor_free(x);
}

/* ---- random lines against a naive oracle ---- */

static uint64_t rng = 777;

/* The fields asked of the extractor and of the oracle (xo_default). */
static const char *const oracle_fields[] = {
    "$severity", "$loglevel", "$time", "$date", "$hour", "$minute", "$second", "$pid",
    "$caller", "$cpus", "$goroutines", "$cgocalls", "$loadavg", "$uptime", "$line", "*",
    "a", "b", "hostname", "", "$time", "x=y", "$empty",
};
#define N_OF (sizeof oracle_fields / sizeof oracle_fields[0])

static const char *const pieces[] = {
    "a", "b", "=", "|", "||", "x=y", "hostname", "$time", " ", "\r", "1002-071143",
    "20211002-071143", "INFO", "MAPREDUCE:", "z", "\0", "\xc2\xa0", "==", "long-value-",
};

static size_t gen_piece(char *out, size_t cap, size_t o)
{
    const char *pc = pieces[rng_next(&rng) % (sizeof pieces / sizeof pieces[0])];
    size_t pl = pc[0] ? strlen(pc) : 1;
    if (o + pl > cap)
        return o;
    memcpy(out + o, pc, pl);
    return o + pl;
}

static size_t gen_line(char *out, size_t cap)
{
    size_t o = 0;
    unsigned kind = rng_next(&rng) % 10;
    size_t target = rng_next(&rng) % 3 == 0 ? rng_next(&rng) % (cap - 16) : rng_next(&rng) % 300;
    if (kind < 7) {
        /* structured: INFO + 9 fields + MAPREDUCE:T + key=value tokens */
        const char *lead = kind == 0 ? " INFO" : "INFO";
        o = (size_t)snprintf(out, cap, "%s", lead);
        for (int k = 1; k < 9; k++) {
            out[o++] = '|';
            if (k == 1 && rng_next(&rng) % 2) {
                const char *t = rng_next(&rng) % 2 ? "20211002-071143" : "1002-071143";
                memcpy(out + o, t, strlen(t));
                o += strlen(t);
            } else {
                size_t before = o;
                o = gen_piece(out, 64 * (size_t)k, o);
                for (size_t j = before; j < o; j++)
                    if (out[j] == '|' && rng_next(&rng) % 8)
                        out[j] = '_';
            }
        }
        out[o++] = '|';
        memcpy(out + o, "MAPREDUCE:T", 11);
        o += 11;
        while (o < target && o + 40 < cap) {
            out[o++] = '|';
            static const char *const keys[] = {"a", "b", "hostname", "$time", "", "x", "$line"};
            if (rng_next(&rng) % 50) {
                const char *k = keys[rng_next(&rng) % 7];
                memcpy(out + o, k, strlen(k));
                o += strlen(k);
                out[o++] = '=';
            }
            unsigned np = rng_next(&rng) % 4;
            for (unsigned q = 0; q < np; q++) {
                size_t before = o;
                o = gen_piece(out, cap - 8, o);
                for (size_t j = before; j < o; j++)
                    if (out[j] == '|' && rng_next(&rng) % 4)
                        out[j] = '_';
            }
        }
        return o;
    }
    while (o < target)
        o = gen_piece(out, cap, o);
    return o;
}

/* Lines seen per status, and lines longer than the short splitter takes. */
static size_t seen[4], seen_long, seen_many_tokens;

/* Extracts the batch's lines (fields oracle_fields) and checks them; table
 * is the literal set with extractor_set_table, or NULL. */
static void check_against_oracle(extractor_t *x, xt_batch_t *bt, const char *table)
{
    xt_batch_run(x, bt);
    const char *const *lines = bt->lines;
    const uint32_t *lens = bt->lens;
    const uint8_t *st = bt->st;
    for (size_t i = 0; i < bt->n; i++) {
        xo_val_t want[N_OF];
        uint8_t ws = xo_default(lines[i], lens[i], oracle_fields, N_OF, &env, want);
        xo_apply_table(lines[i], lens[i], table, N_OF, want, &ws);
        if (ws != st[i])
            fail_msg("line %zu (len %u): status %d, oracle %d", i, lens[i], st[i], ws);
        seen[ws]++;
        seen_long += lens[i] > SPLIT_SHORT_MAX;
        size_t bars = 0;
        for (size_t k = 0; k < lens[i]; k++)
            bars += lines[i][k] == '|';
        seen_many_tokens += bars > 64;
        for (size_t f = 0; f < N_OF; f++) {
            sv_t v = bt->cols[f][i];
            if (want[f].len == SIZE_MAX) {
                if (v.len != SV_MISSING)
                    fail_msg("line %zu field %s: got a value, want missing", i, oracle_fields[f]);
                continue;
            }
            if (v.len != want[f].len || (v.len && memcmp(v.p, want[f].p, v.len) != 0))
                fail_msg("line %zu field %s: got \"%.*s\", want \"%.*s\"", i, oracle_fields[f],
                         v.len == SV_MISSING ? 0 : (int)v.len, v.p ? v.p : "",
                         (int)want[f].len, want[f].p);
            bool inside = v.p >= lines[i] && v.p + v.len <= lines[i] + lens[i];
            if (!inside && !extract_owns(x, v.p, v.len))
                fail_msg("line %zu field %s: view outside the line", i, oracle_fields[f]);
        }
    }
}

static void test_random_vs_oracle(void **state)
{
    (void)state;
    enum { N = 4000, CAP = 2048 };
    extractor_t *x = make(oracle_fields, N_OF);
    xt_batch_t bt;
    xt_batch_init(&bt, N, CAP, N_OF);
    for (int round = 0; round < 10; round++) {
        for (size_t i = 0; i < N; i++) {
            bt.lines[i] = bt.buf + i * CAP;
            bt.lens[i] = (uint32_t)gen_line(bt.buf + i * CAP, CAP);
        }
        check_against_oracle(x, &bt, NULL);
    }
    /* the generator reaches every case */
    assert_true(seen[EXTRACT_OK] > 5000);
    assert_true(seen[EXTRACT_SKIP] > 5000);
    assert_true(seen[EXTRACT_ERROR] > 1000);
    assert_true(seen_long > 5000);
    assert_true(seen_many_tokens > 1000);
    xt_batch_free(&bt);
    extractor_free(x);
}

/* The fused table filter (extractor_set_table) on random lines: a line
 * without the literal is EXTRACT_NO_TABLE, any other has the status and
 * values it has without the filter. Field 9 is "MAPREDUCE:T", sometimes
 * "MAPREDUCE:U", and some lines carry "|MAPREDUCE:U|" elsewhere, so both
 * the proof by field 9 and the search are exercised, with literals that
 * field 9 can prove and ones it cannot. */
static void test_table_random(void **state)
{
    (void)state;
    enum { N = 3000, CAP = 2048 };
    static const char *const lits[] = {
        "|MAPREDUCE:T|", "|MAPREDUCE:U|", "|MAPREDUCE:", "MAPREDUCE:T", "|", "|MAPREDUCE:T|a=",
    };
    xt_batch_t bt;
    xt_batch_init(&bt, N, CAP, N_OF);
    memset(seen, 0, sizeof seen);
    for (size_t t = 0; t < sizeof lits / sizeof lits[0]; t++) {
        extractor_t *x = make(oracle_fields, N_OF);
        err_t e;
        assert_int_equal(extractor_set_table(x, lits[t], &e), 1);
        for (int round = 0; round < 3; round++) {
            for (size_t i = 0; i < N; i++) {
                char *l = bt.buf + i * CAP;
                size_t n = gen_line(l, CAP - 32);
                char *m = memmem(l, n, "MAPREDUCE:T", 11);
                if (m && i % 3 == 1)
                    m[10] = 'U';
                if (i % 5 == 2) {
                    size_t at = rng_next(&rng) % (n + 1);
                    memmove(l + at + 14, l + at, n - at);
                    memcpy(l + at, "|MAPREDUCE:U|x", 14);
                    n += 14;
                }
                bt.lines[i] = l;
                bt.lens[i] = (uint32_t)n;
            }
            check_against_oracle(x, &bt, lits[t]);
        }
        extractor_free(x);
    }
    assert_true(seen[EXTRACT_OK] > 1000);
    assert_true(seen[EXTRACT_SKIP] > 1000);
    assert_true(seen[EXTRACT_ERROR] > 500);
    assert_true(seen[EXTRACT_NO_TABLE] > 1000);
    xt_batch_free(&bt);
}

/* The table filter on hand-made lines: the literal anywhere in the line
 * counts (as the grep DTail runs), a line of another table is not skipped
 * but NO_TABLE, the batch's error message comes only from lines of the
 * table, and formats that cannot filter say so. */
static void test_table_cases(void **state)
{
    (void)state;
    const char *fields[] = {"$goroutines", "a"};
    extractor_t *x = make(fields, 2);
    err_t e;
    assert_int_equal(extractor_set_table(x, "|MAPREDUCE:STATS|", &e), 1);
    char long_line[600];
    int o = snprintf(long_line, sizeof long_line, "INFO|t|1|c|1|7|1|1|1m|MAPREDUCE:STATS|a=");
    memset(long_line + o, 'v', 400);
    long_line[o + 400] = '\0';
    const char *lines[] = {
        "INFO|t|1|c|1|11|1|1|1m|MAPREDUCE:STATS|a=1",
        "INFO|t|1|c|1|12|1|1|1m|MAPREDUCE:OTHER|junk",
        "INFO|t|1|c|1|13|1|1|1m|MAPREDUCE:STATSX|a=3",
        "INFO|t|1|MAPREDUCE:STATS|1|14|1|1|1m|MAPREDUCE:OTHER|a=4",
        "WARN|t|1|c|1|15|1|1|1m|MAPREDUCE:STATS|a=5",
        "WARN|t|1|c|1|16|1|1|1m|MAPREDUCE:OTHER|a=6",
        "x",
        "INFO|t|1|c|1|18|1|1|1m|MAPREDUCE:STATS|bad",
        "  INFO|t|1|c|1|19|1|1|1m|MAPREDUCE:STATS|a=9  ",
        long_line,
        "INFO|t|1|c|1|21|1|1|1m|MAPREDUCE:STATS",
        "INFO|t|1|c|1|22|1|1|1m|MAPREDUCE:|MAPREDUCE:STATS|a=1",
    };
    enum { N = sizeof lines / sizeof lines[0] };
    const uint8_t want[N] = {
        EXTRACT_OK, EXTRACT_NO_TABLE, EXTRACT_NO_TABLE, EXTRACT_OK, EXTRACT_SKIP,
        EXTRACT_NO_TABLE, EXTRACT_NO_TABLE, EXTRACT_ERROR, EXTRACT_OK, EXTRACT_OK,
        EXTRACT_NO_TABLE, EXTRACT_ERROR,
    };
    uint32_t lens[N];
    for (int i = 0; i < N; i++)
        lens[i] = (uint32_t)strlen(lines[i]);
    sv_t c0[N], c1[N];
    sv_t *cols[] = {c0, c1};
    uint8_t st[N];
    extract_batch(x, lines, lens, N, cols, st);
    for (int i = 0; i < N; i++)
        if (st[i] != want[i])
            fail_msg("line %d: status %d, want %d", i, st[i], want[i]);
    assert_sv(c0[0], "11");
    assert_sv(c1[0], "1");
    assert_sv(c0[1], NULL);
    assert_sv(c1[2], NULL);
    assert_sv(c1[3], "4");
    assert_sv(c0[8], "19");
    assert_sv(c0[9], "7");
    assert_int_equal(c1[9].len, 400);
    /* line 1's bad token is not of the table: the message is line 7's */
    assert_string_equal(extractor_last_error(x), "Unable to parse key-value token 'bad'");
    /* "*": any MAPREDUCE record */
    assert_int_equal(extractor_set_table(x, "|MAPREDUCE:", &e), 1);
    extract_batch(x, lines, lens, N, cols, st);
    const uint8_t want_any[N] = {
        EXTRACT_OK, EXTRACT_ERROR, EXTRACT_OK, EXTRACT_OK, EXTRACT_SKIP, EXTRACT_SKIP,
        EXTRACT_NO_TABLE, EXTRACT_ERROR, EXTRACT_OK, EXTRACT_OK, EXTRACT_SKIP, EXTRACT_ERROR,
    };
    for (int i = 0; i < N; i++)
        if (st[i] != want_any[i])
            fail_msg("line %d (any table): status %d, want %d", i, st[i], want_any[i]);
    assert_string_equal(extractor_last_error(x), "Unable to parse key-value token 'junk'");
    extractor_free(x);
    static const char *const others[] = {"generic", "generickv", "csv", "json"};
    for (size_t k = 0; k < 4; k++) {
        x = xt_make(others[k], &env, fields, 2);
        assert_int_equal(extractor_set_table(x, "|MAPREDUCE:STATS|", &e), 0);
        extractor_free(x);
    }
}

/* Lines around the short splitter's limit and the window sizes, with a
 * separator or '=' at every interesting offset. */
static void test_boundaries(void **state)
{
    (void)state;
    extractor_t *x = make(oracle_fields, N_OF);
    xt_batch_t bt;
    xt_batch_init(&bt, 1, 1200, N_OF);
    char *buf = bt.buf;
    for (size_t len = 40; len < 1100; len++) {
        for (size_t at = len > 70 ? len - 70 : 0; at < len; at += 7) {
            size_t o = (size_t)snprintf(buf, 1200, "INFO|1|2|3|4|5|6|7|8|MAPREDUCE:T|a=");
            while (o < len)
                buf[o++] = 'v';
            if (at > 36)
                buf[at] = at % 2 ? '|' : '=';
            if (at > 36 && at + 2 < len && at % 2) {
                buf[at + 1] = 'b';
                buf[at + 2] = '=';
            }
            bt.lines[0] = buf;
            bt.lens[0] = (uint32_t)len;
            check_against_oracle(x, &bt, NULL);
        }
    }
    xt_batch_free(&bt);
    extractor_free(x);
}

/* A huge line: thousands of tokens, megabytes long. */
static void test_huge_line(void **state)
{
    (void)state;
    const char *fields[] = {"a", "k4999", "$uptime"};
    extractor_t *x = make(fields, 3);
    size_t cap = 8u << 20;
    char *l = malloc(cap);
    size_t o = (size_t)sprintf(l, "INFO|t|1|c|1|1|1|1|up|MAPREDUCE:X");
    for (int k = 0; k < 5000; k++)
        o += (size_t)sprintf(l + o, "|k%d=%d", k, k);
    memset(l + o, 'x', 4u << 20);
    o += 4u << 20;
    o += (size_t)sprintf(l + o, "|a=end");
    sv_t v[3];
    assert_int_equal(xt_run1(x, 3, l, o, v), EXTRACT_OK);
    assert_sv(v[0], "end");
    assert_int_equal(v[1].len, 4 + (4u << 20));
    assert_sv(v[2], "up");
    l[o - 6] = '_';   /* "...xxx_a=end": still one token with '=' */
    assert_int_equal(xt_run1(x, 3, l, o, v), EXTRACT_OK);
    memcpy(l + o - 5, "aXend", 5);   /* no '=' in the last token: error */
    l[o - 6] = '|';
    assert_int_equal(xt_run1(x, 3, l, o, v), EXTRACT_ERROR);
    free(l);
    extractor_free(x);
}

/* Few requested names of distinct lengths: the one pass matches key=value
 * tokens by pattern (kv_fast), where oracle_fields take the lookup. */
static const char *const kv_fast_fields[] = {
    "a", "hostname", "x=y", "", "$line",
};
#define N_KF (sizeof kv_fast_fields / sizeof kv_fast_fields[0])
/* The same with names of 9 to 15 bytes (two words per compare). */
static const char *const kv_wide_fields[] = {
    "a", "hostname", "1002-071143", "20211002-071143",
};
#define N_KW (sizeof kv_wide_fields / sizeof kv_wide_fields[0])

/* extract_lines (one pass: split and extract) gives each line exactly what
 * extract_batch gives it: the same rows, statuses, values and first error
 * message, for every instruction set this CPU has, any batch size, any
 * alignment of the region, with and without a table filter, whether the
 * tokens are matched by pattern or by lookup. */
static void lines_vs_batch(const char *const *fields, size_t n_fields, bool kv_fast)
{
    enum { N = 3000, CAP = 1024 };
    char *region = malloc((size_t)N * CAP + 64);
    char *tmp = malloc(CAP);
    const char **lines = calloc(N, sizeof *lines);
    uint32_t *lens = calloc(N, sizeof *lens);
    xt_batch_t want, got;
    xt_batch_init(&want, N, 1, n_fields);
    xt_batch_init(&got, N, 1, n_fields);
    static const char *const lits[] = {NULL, "|MAPREDUCE:T|", "|MAPREDUCE:", "MAPREDUCE:T|a="};
    size_t fast = 0, rows = 0;
    for (int isa = EXTRACT_ISA_BASE; isa <= EXTRACT_ISA_AVX512; isa++) {
        if (extract_isa_limit(isa) != isa)
            continue;
        for (size_t t = 0; t < sizeof lits / sizeof lits[0]; t++) {
            extractor_t *xa = make(fields, n_fields), *xb = make(fields, n_fields);
            assert_int_equal(xb->kv_fast, kv_fast);
            err_t e;
            if (lits[t]) {
                assert_int_equal(extractor_set_table(xa, lits[t], &e), 1);
                assert_int_equal(extractor_set_table(xb, lits[t], &e), 1);
            }
            for (int round = 0; round < 2; round++) {
                size_t o = rng_next(&rng) % 64;   /* the region's alignment */
                char *start = region + o;
                for (size_t i = 0; i < N; i++) {
                    size_t n = gen_line(tmp, i % 7 ? 300 : CAP - 1);
                    for (size_t k = 0; k < n; k++)
                        if (tmp[k] == '\n')
                            tmp[k] = ' ';
                    if (i % 11 == 3 && n)
                        tmp[n - 1] = '\r';
                    memcpy(region + o, tmp, n);
                    lines[i] = region + o;
                    lens[i] = (uint32_t)n;
                    region[o + n] = '\n';
                    o += n + 1;
                }
                const char *end = region + o, *p = start;
                size_t i0 = 0;
                while (p < end) {
                    size_t cap = 1 + rng_next(&rng) % 300, n = 0;
                    if (cap > N - i0)
                        cap = N - i0;
                    /* a batch may be filled by several calls */
                    const char *mid = p + rng_next(&rng) % (size_t)(end - p + 1);
                    const char *nl = memchr(mid, '\n', (size_t)(end - mid));
                    const char *stop = nl ? nl + 1 : end;
                    sv_t *cols[N_OF];
                    assert_true(n_fields <= N_OF);
                    for (size_t f = 0; f < n_fields; f++)
                        cols[f] = got.cols[f] + i0;
                    const char **gl = (const char **)got.lines + i0;
                    p = extract_lines(xb, p, stop, gl, got.lens + i0, &n, cap, cols, got.st + i0);
                    if (n < cap && p < end)
                        p = extract_lines(xb, p, end, gl, got.lens + i0, &n, cap, cols,
                                          got.st + i0);
                    assert_true(n > 0 && n <= cap);
                    const char *const *wl = lines + i0;
                    for (size_t f = 0; f < n_fields; f++)
                        cols[f] = want.cols[f] + i0;
                    extract_batch(xa, wl, lens + i0, n, cols, want.st + i0);
                    assert_string_equal(extractor_last_error(xb), extractor_last_error(xa));
                    i0 += n;
                }
                assert_int_equal(i0, N);
                for (size_t i = 0; i < N; i++) {
                    if (got.lines[i] != lines[i] || got.lens[i] != lens[i])
                        fail_msg("isa %d row %zu: line %p/%u, want %p/%u", isa, i,
                                 (const void *)got.lines[i], got.lens[i],
                                 (const void *)lines[i], lens[i]);
                    if (got.st[i] != want.st[i])
                        fail_msg("isa %d table %zu row %zu: status %d, want %d: %.*s", isa, t, i,
                                 got.st[i], want.st[i], (int)lens[i], lines[i]);
                    fast += got.st[i] == EXTRACT_OK && lens[i] <= SPLIT_SHORT_MAX;
                    rows++;
                    for (size_t f = 0; f < n_fields; f++) {
                        sv_t a = got.cols[f][i], b = want.cols[f][i];
                        if (a.len != b.len ||
                            (a.len != SV_MISSING && a.len && memcmp(a.p, b.p, a.len) != 0))
                            fail_msg("isa %d row %zu field %s differs", isa, i,
                                     fields[f]);
                    }
                }
            }
            extractor_free(xa);
            extractor_free(xb);
        }
    }
    extract_isa_limit(EXTRACT_ISA_AVX512);
    assert_true(fast > rows / 10);
    xt_batch_free(&want);
    xt_batch_free(&got);
    free(region);
    free(tmp);
    free(lines);
    free(lens);
}

/* Directed cases of the pattern match (kv_fast) in the one pass: keys that
 * share a name's first eight bytes, or its length, but not the name; a
 * repeated key (the last wins); a key longer than 64 bytes. */
static void test_kv_patterns(void **state)
{
    (void)state;
    static const char region[] =
        "INFO|t|1|c|1|1|1|1|up|MAPREDUCE:X|1002-071xyz=no|20211002-07114X=no|ab=no\n"
        "INFO|t|1|c|1|2|1|1|up|MAPREDUCE:X|1002-071143=yes|a=1|a=2|20211002-071143=w\n"
        "INFO|t|1|c|1|3|1|1|up|MAPREDUCE:X|kkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkk=1|a=3\n"
        "INFO|t|1|c|1|4|1|1|up|MAPREDUCE:X|a=4|no-equals-sign\n"
        "................................\n";   /* 16 readable bytes after the lines above */
    extractor_t *x = make(kv_wide_fields, N_KW);
    assert_true(x->kv_fast && !x->kv_narrow);
    const char *line[8];
    uint32_t len[8];
    uint8_t st[8];
    sv_t c[N_KW][8];
    sv_t *cols[N_KW];
    for (size_t f = 0; f < N_KW; f++)
        cols[f] = c[f];
    size_t n = 0;
    extract_lines(x, region, region + sizeof region - 1, line, len, &n, 8, cols, st);
    assert_int_equal(n, 5);
    assert_int_equal(st[0], EXTRACT_OK);
    assert_sv(c[0][0], NULL);
    assert_sv(c[2][0], NULL);
    assert_sv(c[3][0], NULL);
    assert_int_equal(st[1], EXTRACT_OK);
    assert_sv(c[0][1], "2");
    assert_sv(c[2][1], "yes");
    assert_sv(c[3][1], "w");
    assert_int_equal(st[2], EXTRACT_OK);
    assert_sv(c[0][2], "3");
    assert_int_equal(st[3], EXTRACT_ERROR);
    assert_string_equal(extractor_last_error(x), "Unable to parse key-value token 'no-equals-sign'");
    extractor_free(x);
}

static void test_lines_vs_batch(void **state)
{
    (void)state;
    lines_vs_batch(oracle_fields, N_OF, false);
}

static void test_lines_vs_batch_kv_fast(void **state)
{
    (void)state;
    lines_vs_batch(kv_fast_fields, N_KF, true);
    lines_vs_batch(kv_wide_fields, N_KW, true);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_positional),
        cmocka_unit_test(test_full_time),
        cmocka_unit_test(test_keyvalues),
        cmocka_unit_test(test_skip),
        cmocka_unit_test(test_error),
        cmocka_unit_test(test_binary_bytes),
        cmocka_unit_test(test_batch_mixed),
        cmocka_unit_test(test_compat_testdata),
        cmocka_unit_test(test_random_vs_oracle),
        cmocka_unit_test(test_table_random),
        cmocka_unit_test(test_table_cases),
        cmocka_unit_test(test_boundaries),
        cmocka_unit_test(test_huge_line),
        cmocka_unit_test(test_kv_patterns),
        cmocka_unit_test(test_lines_vs_batch),
        cmocka_unit_test(test_lines_vs_batch_kv_fast),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
