/* test_grow.c: grow_array and grow_capacity: the first capacity from 0 and
 * min_cap, doubling until the need fits and no further, the contents kept,
 * the element size taken from the pointer's type, and a size that would
 * overflow refused with the array and its capacity untouched. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <malloc.h>
#include <stdlib.h>
#include <string.h>

#include "base/grow.h"

/* ASan aborts on an allocation it cannot give unless told to return NULL,
 * which is what test_out_of_memory_leaves_the_array needs. */
const char *__asan_default_options(void);
const char *__asan_default_options(void)
{
    return "allocator_may_return_null=1";
}

typedef struct wide {
    uint64_t a, b, c;
} wide_t;

static void test_from_zero_takes_min_cap(void **state)
{
    (void)state;
    int *v = NULL;
    size_t cap = 0;
    assert_int_equal(GROW_ARRAY(v, cap, 1, 16), 0);
    assert_non_null(v);
    assert_int_equal(cap, 16);
    for (int i = 0; i < 16; i++)
        v[i] = i;
    free(v);
}

static void test_from_zero_without_min_cap(void **state)
{
    (void)state;
    char *v = NULL;
    size_t cap = 0;
    assert_int_equal(GROW_ARRAY(v, cap, 5, 0), 0);
    assert_int_equal(cap, 8);   /* 1, 2, 4, 8 */
    free(v);
}

static void test_need_above_min_cap_doubles_it(void **state)
{
    (void)state;
    int *v = NULL;
    size_t cap = 0;
    assert_int_equal(GROW_ARRAY(v, cap, 17, 16), 0);
    assert_int_equal(cap, 32);
    free(v);
}

static void test_exact_need_keeps_the_array(void **state)
{
    (void)state;
    int *v = NULL;
    size_t cap = 0;
    assert_int_equal(GROW_ARRAY(v, cap, 16, 16), 0);
    int *before = v;
    assert_int_equal(GROW_ARRAY(v, cap, 16, 16), 0);
    assert_ptr_equal(v, before);
    assert_int_equal(cap, 16);
    assert_int_equal(GROW_ARRAY(v, cap, 0, 16), 0);
    assert_int_equal(cap, 16);
    free(v);
}

static void test_growth_doubles_and_keeps_contents(void **state)
{
    (void)state;
    int *v = NULL;
    size_t cap = 0;
    for (int i = 0; i < 1000; i++) {
        size_t had = cap;
        assert_int_equal(GROW_ARRAY(v, cap, (size_t)i + 1, 16), 0);
        assert_true(cap == had || cap == (had ? had * 2 : 16));
        v[i] = i * 7;
    }
    assert_int_equal(cap, 1024);
    for (int i = 0; i < 1000; i++)
        assert_int_equal(v[i], i * 7);
    /* A need far past the capacity doubles as often as it takes. */
    assert_int_equal(GROW_ARRAY(v, cap, 5000, 16), 0);
    assert_int_equal(cap, 8192);
    assert_int_equal(v[999], 999 * 7);
    free(v);
}

static void test_element_size_from_the_type(void **state)
{
    (void)state;
    wide_t *v = NULL;
    size_t cap = 0;
    assert_int_equal(GROW_ARRAY(v, cap, 3, 4), 0);
    assert_int_equal(cap, 4);
    assert_true(malloc_usable_size(v) >= 4 * sizeof *v);
    for (size_t i = 0; i < cap; i++)
        v[i] = (wide_t){i, i, i};
    free(v);
}

static void test_min_cap_above_a_small_cap(void **state)
{
    (void)state;
    assert_int_equal(grow_capacity(2, 3, 1, 16), 16);
    assert_int_equal(grow_capacity(24, 25, 1, 16), 48);   /* not a power of two: kept */
    assert_int_equal(grow_capacity(64, 65, 8, 64), 128);
}

static void test_overflow_refused_array_untouched(void **state)
{
    (void)state;
    uint64_t *v = NULL;
    size_t cap = 0;
    assert_int_equal(GROW_ARRAY(v, cap, 4, 4), 0);
    v[0] = 42;
    uint64_t *before = v;
    /* need * 8 overflows a size_t */
    assert_int_equal(GROW_ARRAY(v, cap, SIZE_MAX / 8 + 1, 4), -1);
    assert_ptr_equal(v, before);
    assert_int_equal(cap, 4);
    assert_int_equal(grow_capacity(0, SIZE_MAX / 8 + 1, 8, 4), 0);
    assert_int_equal(grow_capacity(0, SIZE_MAX, 1, 16), 0);
    /* need fits, but doubling the capacity to reach it would not */
    size_t big = (SIZE_MAX / 8) / 2 + 1;
    assert_int_equal(grow_capacity(big, big + 1, 8, 4), 0);
    size_t lie = big;   /* no realloc is tried: the size is refused first */
    assert_int_equal(grow_array(&v, &lie, big + 1, sizeof *v, 4), -1);
    assert_ptr_equal(v, before);
    assert_int_equal(lie, big);
    assert_int_equal(v[0], 42);
    free(v);
}

static void test_out_of_memory_leaves_the_array(void **state)
{
    (void)state;
    char *v = NULL;
    size_t cap = 0;
    assert_int_equal(GROW_ARRAY(v, cap, 8, 8), 0);
    memcpy(v, "kept", 5);
    char *before = v;
    /* A size_t that fits but no allocator can give. */
    assert_int_equal(GROW_ARRAY(v, cap, SIZE_MAX / 2 + 1, 8), -1);
    assert_ptr_equal(v, before);
    assert_int_equal(cap, 8);
    assert_string_equal(v, "kept");
    free(v);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_from_zero_takes_min_cap),
        cmocka_unit_test(test_from_zero_without_min_cap),
        cmocka_unit_test(test_need_above_min_cap_doubles_it),
        cmocka_unit_test(test_exact_need_keeps_the_array),
        cmocka_unit_test(test_growth_doubles_and_keeps_contents),
        cmocka_unit_test(test_element_size_from_the_type),
        cmocka_unit_test(test_min_cap_above_a_small_cap),
        cmocka_unit_test(test_overflow_refused_array_untouched),
        cmocka_unit_test(test_out_of_memory_leaves_the_array),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
