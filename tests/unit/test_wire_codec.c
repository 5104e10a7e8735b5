/* test_wire_codec.c: wire's little-endian byte layer and the AGGREGATE
 * pieces built on it: each integer and double goes out as fixed bytes
 * whatever the host; readers refuse what is short, naming payload, field
 * and offset; a sketch has a pinned layout, with its infinity counts only
 * when there are any; parts of a table join into one whose group count
 * is the sum. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "wire/aggregate.h"
#include "wire/codec.h"

static void test_le_bytes(void **state)
{
    (void)state;
    wire_buf_t b = {0};
    wire_put_le16(&b, 0x0102);
    wire_put_le32(&b, 0x03040506u);
    wire_put_le64(&b, 0x0708090a0b0c0d0eull);
    wire_put_lef64(&b, -2.5);            /* 0xc004000000000000 */
    wire_put_lestr(&b, "ab", 2);
    static const unsigned char want[] = {
        0x02, 0x01, 0x06, 0x05, 0x04, 0x03, 0x0e, 0x0d, 0x0c, 0x0b, 0x0a, 0x09, 0x08, 0x07,
        0, 0, 0, 0, 0, 0, 0x04, 0xc0, 2, 0, 0, 0, 'a', 'b',
    };
    assert_int_equal(b.len, sizeof want);
    assert_memory_equal(b.p, want, sizeof want);

    err_t e;
    wire_le_reader_t r = wire_le_reader(b.p, b.len, "test payload");
    uint16_t a16;
    uint32_t a32, n;
    uint64_t a64;
    double d;
    const unsigned char *s;
    assert_int_equal(wire_le_get_u16(&r, &a16, "a", &e), 0);
    assert_int_equal(wire_le_get_u32(&r, &a32, "b", &e), 0);
    assert_int_equal(wire_le_get_u64(&r, &a64, "c", &e), 0);
    assert_int_equal(wire_le_get_f64(&r, &d, "d", &e), 0);
    assert_int_equal(wire_le_get_str(&r, &s, &n, "e", &e), 0);
    assert_int_equal(a16, 0x0102);
    assert_int_equal(a32, 0x03040506u);
    assert_true(a64 == 0x0708090a0b0c0d0eull);
    assert_true(d == -2.5);
    assert_int_equal(n, 2);
    assert_memory_equal(s, "ab", 2);
    assert_int_equal(wire_le_left(&r), 0);
    assert_int_equal(wire_le_get_u8(&r, (uint8_t *)&a16, "the end", &e), -1);
    assert_string_equal(e.msg, "test payload: the end truncated at byte 28 (1 bytes, 0 left)");
    assert_int_equal(e.offset, 28);
    free(b.p);
}

static void test_short_reads_consume_nothing(void **state)
{
    (void)state;
    static const unsigned char p[] = {5, 0, 0, 0, 'x', 'y'};
    err_t e;
    wire_le_reader_t r = wire_le_reader(p, sizeof p, "x");
    const unsigned char *s;
    uint32_t n;
    assert_int_equal(wire_le_get_str(&r, &s, &n, "name", &e), -1);
    assert_string_equal(e.msg, "x: name truncated at byte 4 (5 bytes, 2 left)");
    uint64_t v;
    wire_le_reader_t r2 = wire_le_reader(p, sizeof p, "x");
    assert_int_equal(wire_le_get_u64(&r2, &v, "count", &e), -1);
    assert_int_equal(r2.pos, 0);
}

/* One positive bucket, no negative one, and then with an infinity. */
static void test_sketch_layout(void **state)
{
    (void)state;
    const uint64_t counts[] = {3};
    wire_sketch_t s = {.total = 3, .zero = 0, .min = 1.0, .max = 2.0,
                       .pos = {-2, 1, counts, NULL}, .neg = {0, 0, NULL, NULL}};
    static const unsigned char want[] = {
        3, 0, 0, 0, 0, 0, 0, 0,   0, 0, 0, 0, 0, 0, 0, 0,        /* total, zero */
        0, 0, 0, 0, 0, 0, 0xf0, 0x3f,  0, 0, 0, 0, 0, 0, 0, 0x40, /* min 1.0, max 2.0 */
        0xfe, 0xff, 0xff, 0xff, 1, 0, 0, 0, 3, 0, 0, 0, 0, 0, 0, 0, /* pos: offset -2, 1 count */
        0, 0, 0, 0, 0, 0, 0, 0,                                   /* neg: empty */
    };
    unsigned char out[80];
    assert_int_equal(wire_sketch_size(&s), sizeof want);
    assert_int_equal(wire_sketch_store(&s, out), sizeof want);
    assert_memory_equal(out, want, sizeof want);

    err_t e;
    wire_le_reader_t r = wire_le_reader(out, sizeof want, "q");
    wire_sketch_t back;
    assert_int_equal(wire_sketch_get(&r, &back, &e), 0);
    assert_int_equal(back.pos.offset, -2);
    assert_int_equal(back.pos.n, 1);
    assert_true(wire_sketch_count(&back.pos, 0) == 3);
    assert_true(back.inf == 0 && back.ninf == 0);

    s.inf = 1;
    assert_int_equal(wire_sketch_store(&s, out), sizeof want + 16);
    assert_int_equal(out[sizeof want], 1);
    r = wire_le_reader(out, sizeof want + 16, "q");
    assert_int_equal(wire_sketch_get(&r, &back, &e), 0);
    assert_true(back.inf == 1 && back.ninf == 0);
    /* Half the infinity counts, or bytes after them, are malformed. */
    r = wire_le_reader(out, sizeof want + 8, "q");
    assert_int_equal(wire_sketch_get(&r, &back, &e), -1);
    assert_non_null(strstr(e.msg, "sketch -inf count truncated at byte 64"));
    /* A store claiming more buckets than there are bytes. */
    out[36] = 0xff;
    r = wire_le_reader(out, sizeof want, "q");
    assert_int_equal(wire_sketch_get(&r, &back, &e), -1);
    assert_non_null(strstr(e.msg, "sketch positive store of 255 buckets, but 16 bytes follow"));
}

static void test_join_adds_group_counts(void **state)
{
    (void)state;
    const wire_agg_spec_t specs[] = {{1, 0}};
    wire_buf_t a = {0}, b = {0}, whole = {0};
    size_t at = wire_agg_put_header(&a, WIRE_AGG_VERSION_V2, specs, 1);
    wire_agg_put_key(&a, "k", 1);
    wire_put_le64(&a, 7);
    wire_agg_set_groups(&a, at, 1);
    at = wire_agg_put_header(&b, WIRE_AGG_VERSION_V2, specs, 1);
    wire_agg_put_key(&b, "l", 1);
    wire_put_le64(&b, 8);
    wire_agg_put_key(&b, "m", 1);
    wire_put_le64(&b, 9);
    wire_agg_set_groups(&b, at, 2);
    err_t e;
    assert_int_equal(wire_agg_join(&whole, a.p, a.len, &e), 0);
    assert_int_equal(wire_agg_join(&whole, b.p, b.len, &e), 0);
    wire_le_reader_t r = wire_le_reader(whole.p, whole.len, WIRE_AGG_WHAT);
    uint32_t n_specs;
    uint8_t version;
    wire_agg_spec_t sp;
    uint64_t n_groups;
    assert_int_equal(wire_agg_get_header(&r, &version, &n_specs, &e), 0);
    assert_int_equal(version, WIRE_AGG_VERSION_V2);
    assert_int_equal(wire_agg_get_spec(&r, &sp, &e), 0);
    assert_int_equal(wire_agg_get_groups(&r, &n_groups, &e), 0);
    assert_int_equal(n_specs, 1);
    assert_int_equal(n_groups, 3);
    assert_int_equal(wire_le_left(&r), 3 * (4 + 1 + 8));
    /* Another spec list does not join; nor does a header cut short. */
    const wire_agg_spec_t other[] = {{2, 0}};
    wire_buf_t c = {0};
    wire_agg_put_header(&c, WIRE_AGG_VERSION_V2, other, 1);
    assert_int_equal(wire_agg_join(&whole, c.p, c.len, &e), -1);
    assert_non_null(strstr(e.msg, "select items differ"));
    assert_int_equal(wire_agg_join(&whole, c.p, 12, &e), -1);
    assert_non_null(strstr(e.msg, "malformed header"));
    free(a.p);
    free(b.p);
    free(c.p);
    free(whole.p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_le_bytes),
        cmocka_unit_test(test_short_reads_consume_nothing),
        cmocka_unit_test(test_sketch_layout),
        cmocka_unit_test(test_join_adds_group_counts),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
