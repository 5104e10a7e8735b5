/* test_agg_layout.c: the bytes of a serialized table (an AGGREGATE
 * payload) are pinned: a small table serializes to a fixed byte vector,
 * little-endian whatever the host (docs/protocol.md, "Layout of
 * AGGREGATE"); that vector merges back; every truncation and a set of
 * malformed variants are refused with a message naming the field and its
 * byte offset; a table of every kind survives serialize, merge,
 * serialize unchanged. Uses only exec/agg/table.h, the API dserver and
 * the clients call. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "exec/agg/table.h"

static const agg_spec_t small_specs[] = {
    {PLAN_AGG_COUNT, 0, 0, false, 0}, {PLAN_AGG_SUM, 0, 0, false, 0},
    {PLAN_AGG_MAX, 0, 0, false, 0}, {PLAN_AGG_LAST, 0, 0, false, 0},
};
#define N_SMALL (sizeof small_specs / sizeof small_specs[0])

/* select count(v), sum(v), max(v), last(v) ... group by k, over the rows
 * k=g v=10 and k=g v=30. */
static const unsigned char golden[] = {
    'D', 'T', 'A', 'G', 2,                          /* magic, version */
    4, 0, 0, 0,                                     /* 4 select items */
    1, 0, 0, 0, 0, 0, 0, 0, 0,                      /* count, q 0.0 */
    2, 0, 0, 0, 0, 0, 0, 0, 0,                      /* sum */
    4, 0, 0, 0, 0, 0, 0, 0, 0,                      /* max */
    0, 0, 0, 0, 0, 0, 0, 0, 0,                      /* last */
    1, 0, 0, 0, 0, 0, 0, 0,                         /* 1 group */
    5, 0, 0, 0, 1, 0, 0, 0, 'g',                    /* key: one part "g" */
    2, 0, 0, 0, 0, 0, 0, 0,                         /* count 2 */
    0, 0, 0, 0, 0, 0, 0x44, 0x40, 2, 0, 0, 0, 0, 0, 0, 0,  /* sum 40.0 of 2 */
    0, 0, 0, 0, 0, 0, 0x3e, 0x40,                   /* max 30.0 */
    2, 0, 0, 0, 0, 0, 0, 0, 2, 0, 0, 0, '3', '0',   /* last: seq 2, "30" */
};

static void small_table(agg_table_t *t)
{
    err_t e;
    assert_int_equal(agg_table_init(t, small_specs, N_SMALL, &e), 0);
    long g = agg_table_group_one(t, "g", 1, agg_hash("g", 1));
    assert_true(g >= 0);
    uint32_t gid[2] = {(uint32_t)g, (uint32_t)g};
    sv_t v[2] = {{"10", 2}, {"30", 2}};
    uint64_t seq[2] = {1, 2};
    for (size_t s = 0; s < N_SMALL; s++)
        agg_table_update(t, s, gid, v, seq, 2);
}

static void dump(const char *what, const unsigned char *p, size_t len)
{
    fprintf(stderr, "%s (%zu bytes):", what, len);
    for (size_t i = 0; i < len; i++)
        fprintf(stderr, " %02x", p[i]);
    fputc('\n', stderr);
}

static void test_golden_bytes(void **state)
{
    (void)state;
    agg_table_t t;
    small_table(&t);
    size_t len;
    unsigned char *b = agg_table_serialize(&t, &len);
    assert_non_null(b);
    if (len != sizeof golden || memcmp(b, golden, len) != 0) {
        dump("got", b, len);
        dump("want", golden, sizeof golden);
        fail_msg("the serialized table is not the pinned layout");
    }
    free(b);
    agg_table_free(&t);
}

/* The vector read back is the table (rendered by its states). */
static void test_golden_merges(void **state)
{
    (void)state;
    err_t e;
    agg_table_t t;
    assert_int_equal(agg_table_init(&t, small_specs, N_SMALL, &e), 0);
    assert_int_equal(agg_table_merge_serialized(&t, golden, sizeof golden, &e), 0);
    assert_int_equal(t.n_groups, 1);
    assert_true(agg_state_number(&t.specs[0], agg_table_state(&t, 0, 0)) == 2);
    assert_true(agg_state_number(&t.specs[1], agg_table_state(&t, 0, 1)) == 40);
    assert_true(agg_state_number(&t.specs[2], agg_table_state(&t, 0, 2)) == 30);
    assert_true(agg_state_number(&t.specs[3], agg_table_state(&t, 0, 3)) == 30);
    /* Version 1 (host order, little-endian wherever it ran) reads alike. */
    unsigned char v1[sizeof golden];
    memcpy(v1, golden, sizeof golden);
    v1[4] = 1;
    assert_int_equal(agg_table_merge_serialized(&t, v1, sizeof v1, &e), 0);
    assert_true(agg_state_number(&t.specs[0], agg_table_state(&t, 0, 0)) == 4);
    agg_table_free(&t);
}

/* Where each field of the vector starts, and the name its error gives. */
static const struct {
    size_t at;
    const char *field;
} fields[] = {
    {0, "magic"}, {4, "version"}, {5, "spec count"},
    {45, "group count"}, {53, "group key"}, {57, "group key"}, {62, "count state"}, {70, "sum state"},
    {78, "sum state's count"}, {86, "min/max state"}, {94, "last state's seq"},
    {102, "last state's length"}, {106, "last state's value"},
};

static void test_truncated_is_refused(void **state)
{
    (void)state;
    err_t e;
    agg_table_t t;
    assert_int_equal(agg_table_init(&t, small_specs, N_SMALL, &e), 0);
    for (size_t cut = 0; cut < sizeof golden; cut++) {
        err_clear(&e);
        assert_int_equal(agg_table_merge_serialized(&t, golden, cut, &e), -1);
        assert_non_null(strstr(e.msg, "partial aggregate: "));
        const char *field = NULL;
        size_t at = 0;
        for (size_t f = 0; f < sizeof fields / sizeof fields[0]; f++)
            if (fields[f].at <= cut) {
                field = fields[f].field;
                at = fields[f].at;
            }
        /* A spec list cut short: its count is more than the rest holds. */
        if (cut >= 9 && cut < 45) {
            assert_non_null(strstr(e.msg, "4 select items, but"));
            continue;
        }
        char want[128];
        snprintf(want, sizeof want, "%s truncated at byte %zu", field, at);
        if (!strstr(e.msg, want))
            fail_msg("cut at %zu: \"%s\" does not say \"%s\"", cut, e.msg, want);
    }
    agg_table_free(&t);
}

static int merge_variant(size_t at, unsigned char byte, const char *want)
{
    unsigned char b[sizeof golden + 1];
    memcpy(b, golden, sizeof golden);
    size_t len = sizeof golden;
    if (at == sizeof golden)
        len++;
    b[at] = byte;
    err_t e;
    err_clear(&e);
    agg_table_t t;
    assert_int_equal(agg_table_init(&t, small_specs, N_SMALL, &e), 0);
    int rc = agg_table_merge_serialized(&t, b, len, &e);
    agg_table_free(&t);
    if (rc == 0 || !strstr(e.msg, want)) {
        fprintf(stderr, "byte %zu = %u: rc %d, \"%s\", want \"%s\"\n", at, byte, rc, e.msg, want);
        return -1;
    }
    return 0;
}

static void test_malformed_is_refused(void **state)
{
    (void)state;
    assert_int_equal(merge_variant(0, 'X', "bad magic"), 0);
    assert_int_equal(merge_variant(4, 4, "unsupported version 4 (this build reads 1 to 3) at byte 4"), 0);
    assert_int_equal(merge_variant(4, 0, "unsupported version 0"), 0);
    assert_int_equal(merge_variant(5, 3, "3 select items, expected 4 at byte 5"), 0);
    assert_int_equal(merge_variant(8, 1, "16777220 select items, but 99 bytes follow at byte 5"), 0);
    assert_int_equal(merge_variant(18, 4, "select item 2 differs at byte 18"), 0);
    assert_int_equal(merge_variant(45, 2, "group key truncated at byte 108 (4 bytes, 0 left)"), 0);
    assert_int_equal(merge_variant(53, 200, "group key truncated at byte 57 (200 bytes, 51 left)"), 0);
    assert_int_equal(merge_variant(sizeof golden, 0, "1 trailing bytes at byte 108"), 0);
}

/* Every kind, a quantile among them, with several groups: serialize,
 * merge into an empty table, serialize again: the same bytes. The
 * quantile spans 1.5 to 1e300, a store grown to more buckets than a
 * reader takes: sent whole (before its ends were trimmed), it was refused
 * as malformed. */
static void test_round_trip(void **state)
{
    (void)state;
    static const agg_spec_t all[] = {
        {PLAN_AGG_COUNT, 0, 0, false, 0}, {PLAN_AGG_SUM, 0, 0, false, 0}, {PLAN_AGG_MIN, 0, 0, false, 0},
        {PLAN_AGG_MAX, 0, 0, false, 0}, {PLAN_AGG_AVG, 0, 0, false, 0}, {PLAN_AGG_LAST, 0, 0, false, 0},
        {PLAN_AGG_LEN, 0, 0, false, 0}, {PLAN_AGG_PERCENTAGE, 0, 0, false, 0},
        {PLAN_AGG_PERCENTILE, 0, 0, false, 0}, {PLAN_AGG_QUANTILE, 0.9, 0, false, 0},
    };
    const size_t n = sizeof all / sizeof all[0];
    err_t e;
    agg_table_t t, u;
    assert_int_equal(agg_table_init(&t, all, n, &e), 0);
    static const char *keys[] = {"a", "bb", "", "ccc"};
    static const char *vals[] = {"1.5", "-2", "x", "1e300", "0", "-1e-300", "7"};
    for (uint64_t i = 0; i < 200; i++) {
        const char *k = keys[i % 4];
        uint32_t kl = (uint32_t)strlen(k);
        long g = agg_table_group_one(&t, k, kl, agg_hash(k, kl));
        assert_true(g >= 0);
        uint32_t gid = (uint32_t)g;
        const char *v = vals[i % 7];
        sv_t sv = i % 11 == 3 ? (sv_t){NULL, SV_MISSING} : (sv_t){v, (uint32_t)strlen(v)};
        uint64_t seq = i + 1;
        for (size_t s = 0; s < n; s++)
            agg_table_update(&t, s, &gid, &sv, &seq, 1);
    }
    size_t la, lb;
    unsigned char *a = agg_table_serialize(&t, &la);
    assert_int_equal(agg_table_init(&u, all, n, &e), 0);
    if (agg_table_merge_serialized(&u, a, la, &e) < 0)
        fail_msg("%s", e.msg);
    unsigned char *b = agg_table_serialize(&u, &lb);
    assert_int_equal(la, lb);
    assert_memory_equal(a, b, la);
    free(a);
    free(b);
    agg_table_free(&t);
    agg_table_free(&u);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_golden_bytes),
        cmocka_unit_test(test_golden_merges),
        cmocka_unit_test(test_truncated_is_refused),
        cmocka_unit_test(test_malformed_is_refused),
        cmocka_unit_test(test_round_trip),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
