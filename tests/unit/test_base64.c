/* test_base64.c: base64_encode writes RFC 4648's vectors and what Go's
 * EncodeToString writes; base64_decode reads them back and fails where
 * Go's StdEncoding.DecodeString fails, at the byte offset Go names
 * ("illegal base64 data at input byte N"; the recorded Go dserver said 0
 * for "!!!" and 4 for "Y2F0Og", tests/fixtures/dt41/server/garbage.out). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>

#include "base/base64.h"
#include "tests/support/rng.h"

static void test_rfc4648_vectors(void **state)
{
    (void)state;
    static const char *const plain[] = {"", "f", "fo", "foo", "foob", "fooba", "foobar"};
    static const char *const coded[] = {"", "Zg==", "Zm8=", "Zm9v", "Zm9vYg==", "Zm9vYmE=", "Zm9vYmFy"};
    for (size_t i = 0; i < 7; i++) {
        char enc[16] = {0};
        size_t n = strlen(plain[i]);
        assert_int_equal(base64_encoded_len(n), strlen(coded[i]));
        base64_encode(enc, plain[i], n);
        assert_string_equal(enc, coded[i]);
        char dec[16] = {0};
        size_t len = 99, bad = 99;
        assert_int_equal(base64_decode(dec, &len, coded[i], strlen(coded[i]), &bad), 0);
        assert_int_equal(len, n);
        assert_memory_equal(dec, plain[i], n);
    }
}

static void decodes(const char *in, const char *want)
{
    char dec[64];
    size_t len, bad = 0;
    if (base64_decode(dec, &len, in, strlen(in), &bad) != 0)
        fail_msg("\"%s\": refused at %zu", in, bad);
    if (len != strlen(want) || memcmp(dec, want, len) != 0)
        fail_msg("\"%s\": \"%.*s\", not \"%s\"", in, (int)len, dec, want);
}

static void refuses(const char *in, size_t at)
{
    char dec[64];
    size_t len, bad = 999;
    if (base64_decode(dec, &len, in, strlen(in), &bad) == 0)
        fail_msg("\"%s\": decoded", in);
    if (bad != at)
        fail_msg("\"%s\": refused at byte %zu, Go says %zu", in, bad, at);
}

/* Go: newlines are skipped anywhere, even inside the padding; the unused
 * bits of the last character may be set. */
static void test_go_leniency(void **state)
{
    (void)state;
    decodes("Y2F0Og==", "cat:");
    decodes("Y2F0\r\nOg==", "cat:");
    decodes("Y2F0Og=\n=", "cat:");
    decodes("Y2F0Og==\n\n", "cat:");
    decodes("\nY2F0", "cat");
    decodes("YR==", "a");
    decodes("Y2F=", "ca");
    decodes("\n\r\n", "");
}

/* Go's CorruptInputError offsets, case by case of its decodeQuantum. */
static void test_go_error_offsets(void **state)
{
    (void)state;
    refuses("!!!", 0);            /* not in the alphabet */
    refuses("Y2F0!g==", 4);
    refuses("Y2F0Og", 4);         /* no padding: back to the quantum */
    refuses("Y", 0);
    refuses("Y2F0O", 4);
    refuses("Y2F0Og=", 7);        /* one '=' of two, then the end */
    refuses("Y2F0Og=x", 6);       /* one '=' of two, then something else */
    refuses("Y2F0O===", 5);       /* padding after one character */
    refuses("====", 0);
    refuses("Y2F0Og==x", 8);      /* something after the padding */
    refuses("Y2F=Y2F0", 4);
    refuses("Y2F0 Og==", 4);      /* a space is no newline */
}

static void test_random_round_trip(void **state)
{
    (void)state;
    uint64_t s = 0x41u;
    unsigned char in[300], out[300];
    char enc[404];
    for (int round = 0; round < 2000; round++) {
        size_t n = rng_next(&s) % sizeof in;
        for (size_t i = 0; i < n; i++)
            in[i] = (unsigned char)rng_next(&s);
        base64_encode(enc, in, n);
        size_t len, bad;
        assert_true(base64_decoded_max(base64_encoded_len(n)) <= sizeof out);
        assert_int_equal(base64_decode(out, &len, enc, base64_encoded_len(n), &bad), 0);
        assert_int_equal(len, n);
        assert_memory_equal(out, in, n);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rfc4648_vectors),
        cmocka_unit_test(test_go_leniency),
        cmocka_unit_test(test_go_error_offsets),
        cmocka_unit_test(test_random_round_trip),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
