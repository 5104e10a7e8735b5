/* test_limits.c: fair turns for read slots (server/limits.h). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <pthread.h>
#include <stdatomic.h>
#include <unistd.h>

#include "base/clock.h"
#include "base/config.h"
#include "server/limits.h"

typedef struct taker {
    server_limits_t *l;
    const char *owner;
    atomic_int got;
    pthread_t th;
} taker_t;

static void *take(void *arg)
{
    taker_t *t = arg;
    if (server_limits_acquire(t->l, LIMIT_CAT, t->owner, NULL, 0) == 0)
        atomic_store(&t->got, 1);
    return NULL;
}

static void wait_waiting(server_limits_t *l, int n)
{
    limit_state_t st;
    for (int i = 0; i < 3000; i++) {   /* 30 s: a guard against a hang */
        server_limits_state(l, LIMIT_CAT, &st);
        if (st.waiting == n)
            return;
        usleep(10000);
    }
    fail_msg("%d waiting, want %d", st.waiting, n);
}

static void wait_got(taker_t *t)
{
    for (int i = 0; i < 3000 && !atomic_load(&t->got); i++)
        usleep(10000);
    assert_true(atomic_load(&t->got));
}

/* Limits with n read slots. */
static server_limits_t *cats(int n)
{
    config_t cfg;
    config_defaults(&cfg);
    cfg.max_concurrent_cats = n;
    err_t e;
    server_limits_t *l = server_limits_create(&cfg, &e);
    assert_non_null(l);
    return l;
}

/* Starts t taking a slot, and waits until it is the n-th waiter. */
static void start_taker(taker_t *t, int n)
{
    pthread_create(&t->th, NULL, take, t);
    wait_waiting(t->l, n);
}

static void test_freed_slot_goes_to_the_user_holding_fewest(void **state)
{
    (void)state;
    server_limits_t *l = cats(2);
    assert_int_equal(server_limits_acquire(l, LIMIT_CAT, "alice", NULL, 0), 0);
    assert_int_equal(server_limits_acquire(l, LIMIT_CAT, "alice", NULL, 0), 0);
    taker_t a3 = {.l = l, .owner = "alice"}, b1 = {.l = l, .owner = "bob"};
    start_taker(&a3, 1);
    start_taker(&b1, 2);
    /* alice waited first, but holds one slot still; bob holds none. */
    server_limits_release(l, LIMIT_CAT, "alice");
    wait_got(&b1);
    usleep(100000);
    assert_false(atomic_load(&a3.got));
    server_limits_release(l, LIMIT_CAT, "bob");
    wait_got(&a3);
    pthread_join(a3.th, NULL);
    pthread_join(b1.th, NULL);
    server_limits_release(l, LIMIT_CAT, "alice");
    server_limits_release(l, LIMIT_CAT, "alice");
    limit_state_t st;
    server_limits_state(l, LIMIT_CAT, &st);
    assert_int_equal(st.used, 0);
    assert_int_equal(st.waiting, 0);
    server_limits_free(l);
}

static void test_equal_holders_go_in_arrival_order(void **state)
{
    (void)state;
    server_limits_t *l = cats(1);
    assert_int_equal(server_limits_acquire(l, LIMIT_CAT, "carol", NULL, 0), 0);
    taker_t first = {.l = l, .owner = "alice"}, second = {.l = l, .owner = "bob"};
    start_taker(&first, 1);
    start_taker(&second, 2);
    server_limits_release(l, LIMIT_CAT, "carol");
    wait_got(&first);
    usleep(100000);
    assert_false(atomic_load(&second.got));
    server_limits_release(l, LIMIT_CAT, "alice");
    wait_got(&second);
    pthread_join(first.th, NULL);
    pthread_join(second.th, NULL);
    server_limits_release(l, LIMIT_CAT, "bob");
    server_limits_free(l);
}

static void test_deadline_ends_the_wait(void **state)
{
    (void)state;
    server_limits_t *l = cats(1);
    assert_int_equal(server_limits_acquire(l, LIMIT_CAT, "a", NULL, 0), 0);
    long long t0 = clock_now_ms();
    assert_int_equal(server_limits_acquire(l, LIMIT_CAT, "b", NULL, t0 + 200), -2);
    assert_true(clock_now_ms() - t0 >= 200);
    limit_state_t st;
    server_limits_state(l, LIMIT_CAT, &st);
    assert_int_equal(st.waiting, 0);
    assert_int_equal(st.used, 1);
    server_limits_release(l, LIMIT_CAT, "a");
    server_limits_free(l);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_freed_slot_goes_to_the_user_holding_fewest),
        cmocka_unit_test(test_equal_holders_go_in_arrival_order),
        cmocka_unit_test(test_deadline_ends_the_wait),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
