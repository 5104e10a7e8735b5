/* test_authkey_store.c: the in-memory auth-key store (server/authkey_store.h):
 * expiry on the caller's clock, the per-user bound and its order,
 * re-registering, the bound of the whole store, disabled, threads. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "server/authkey_store.h"

#define TTL_MS 1000

static authkey_store_t *store(int enabled, int max_per_user, int max_keys)
{
    err_t e;
    authkey_store_t *st = authkey_store_new(&(authkey_store_cfg_t){.enabled = enabled,
                                                                   .ttl_ms = TTL_MS,
                                                                   .max_per_user = max_per_user,
                                                                   .max_keys = max_keys},
                                            &e);
    assert_non_null(st);
    return st;
}

static void add(authkey_store_t *st, const char *user, const char *key, long long now)
{
    err_t e;
    err_clear(&e);
    assert_int_equal(authkey_store_add(st, user, key, strlen(key), now, &e), 0);
}

static int has(authkey_store_t *st, const char *user, const char *key, long long now)
{
    return authkey_store_has(st, user, key, strlen(key), now);
}

/* A key is good from its registration until TTL later, not at TTL. */
static void test_ttl(void **state)
{
    (void)state;
    authkey_store_t *st = store(1, 5, 0);
    add(st, "alice", "key-a", 100);
    assert_true(has(st, "alice", "key-a", 100));
    assert_true(has(st, "alice", "key-a", 100 + TTL_MS - 1));
    assert_false(has(st, "alice", "key-a", 100 + TTL_MS));
    /* expired keys are gone, not only hidden */
    assert_int_equal(authkey_store_count(st, "alice", 100), 0);
    authkey_store_free(st);
}

/* Keys are the user's: another user does not get in with them; the blob
 * compares whole. */
static void test_per_user(void **state)
{
    (void)state;
    authkey_store_t *st = store(1, 5, 0);
    add(st, "alice", "key-a", 0);
    assert_false(has(st, "bob", "key-a", 0));
    assert_false(has(st, "alic", "key-a", 0));
    assert_false(has(st, "alice", "key-", 0));
    assert_false(has(st, "alice", "key-ab", 0));
    assert_true(has(st, "alice", "key-a", 0));
    authkey_store_free(st);
}

/* At most max_per_user keys: the oldest registration goes first. */
static void test_max_per_user_drops_oldest(void **state)
{
    (void)state;
    authkey_store_t *st = store(1, 2, 0);
    add(st, "alice", "k1", 0);
    add(st, "alice", "k2", 1);
    add(st, "bob", "b1", 2);
    add(st, "alice", "k3", 3);
    assert_false(has(st, "alice", "k1", 4));
    assert_true(has(st, "alice", "k2", 4));
    assert_true(has(st, "alice", "k3", 4));
    assert_true(has(st, "bob", "b1", 4));   /* another user's keys do not count */
    assert_int_equal(authkey_store_count(st, "alice", 4), 2);
    authkey_store_free(st);
}

/* Registering a key again makes it the newest (it survives the next
 * drop) and restarts its TTL; it is not kept twice. */
static void test_reregister_moves_to_newest(void **state)
{
    (void)state;
    authkey_store_t *st = store(1, 2, 0);
    add(st, "alice", "k1", 0);
    add(st, "alice", "k2", 1);
    add(st, "alice", "k1", 500);
    assert_int_equal(authkey_store_count(st, "alice", 500), 2);
    add(st, "alice", "k3", 600);
    assert_true(has(st, "alice", "k1", 600));
    assert_false(has(st, "alice", "k2", 600));
    assert_true(has(st, "alice", "k3", 600));
    assert_true(has(st, "alice", "k1", 500 + TTL_MS - 1));
    assert_false(has(st, "alice", "k1", 500 + TTL_MS));
    authkey_store_free(st);
}

/* The whole store is bounded: expired keys make room first, then the
 * oldest registration of anyone goes. */
static void test_store_bound(void **state)
{
    (void)state;
    authkey_store_t *st = store(1, 5, 3);
    add(st, "a", "k", 0);
    add(st, "b", "k", 500);
    add(st, "c", "k", 600);
    add(st, "d", "k", TTL_MS + 1);   /* a's key has expired: it makes room */
    assert_true(has(st, "b", "k", TTL_MS + 1));
    assert_true(has(st, "c", "k", TTL_MS + 1));
    assert_true(has(st, "d", "k", TTL_MS + 1));
    add(st, "e", "k", TTL_MS + 2);   /* none expired: b's, the oldest, goes */
    assert_false(has(st, "b", "k", TTL_MS + 2));
    assert_true(has(st, "c", "k", TTL_MS + 2));
    assert_true(has(st, "e", "k", TTL_MS + 2));
    authkey_store_free(st);
}

/* Disabled: nothing is registered, nothing accepted. */
static void test_disabled(void **state)
{
    (void)state;
    authkey_store_t *st = store(0, 5, 0);
    assert_false(authkey_store_enabled(st));
    err_t e;
    err_clear(&e);
    assert_int_equal(authkey_store_add(st, "alice", "k", 1, 0, &e), -1);
    assert_non_null(strstr(e.msg, "AuthKeyEnabled"));
    assert_false(has(st, "alice", "k", 0));
    assert_false(authkey_store_enabled(NULL));
    assert_false(authkey_store_has(NULL, "alice", "k", 1, 0));
    authkey_store_free(st);
}

/* Empty and oversize blobs and user names are refused. */
static void test_refused(void **state)
{
    (void)state;
    authkey_store_t *st = store(1, 5, 0);
    static char big[AUTHKEY_BLOB_MAX + 1];
    char long_user[300];
    memset(long_user, 'u', sizeof long_user - 1);
    long_user[sizeof long_user - 1] = '\0';
    err_t e;
    assert_int_equal(authkey_store_add(st, "alice", "k", 0, 0, &e), -1);
    assert_int_equal(authkey_store_add(st, "alice", big, sizeof big, 0, &e), -1);
    assert_int_equal(authkey_store_add(st, "", "k", 1, 0, &e), -1);
    assert_int_equal(authkey_store_add(st, long_user, "k", 1, 0, &e), -1);
    assert_int_equal(authkey_store_add(st, "alice", big, AUTHKEY_BLOB_MAX, 0, &e), 0);
    authkey_store_free(st);
}

typedef struct worker {
    authkey_store_t *st;
    char user[16];
    int ok;
} worker_t;

static void *register_many(void *arg)
{
    worker_t *w = arg;
    w->ok = 1;
    for (int i = 0; i < 2000; i++) {
        char key[32];
        snprintf(key, sizeof key, "key%d", i % 7);
        err_t e;
        if (authkey_store_add(w->st, w->user, key, strlen(key), i, &e) < 0 ||
            !authkey_store_has(w->st, w->user, key, strlen(key), i) ||
            authkey_store_count(w->st, w->user, i) > 3)
            w->ok = 0;
    }
    return NULL;
}

/* Sessions register and logins look up from many threads at once. The
 * store has room for every user's keys: a full store would drop one
 * thread's key for another's between its add and its lookup. */
static void test_threads(void **state)
{
    (void)state;
    authkey_store_t *st = store(1, 3, 12);
    worker_t w[4];
    pthread_t th[4];
    for (int i = 0; i < 4; i++) {
        w[i].st = st;
        snprintf(w[i].user, sizeof w[i].user, "user%d", i);
        assert_int_equal(pthread_create(&th[i], NULL, register_many, &w[i]), 0);
    }
    for (int i = 0; i < 4; i++) {
        pthread_join(th[i], NULL);
        assert_true(w[i].ok);
    }
    authkey_store_free(st);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ttl),
        cmocka_unit_test(test_per_user),
        cmocka_unit_test(test_max_per_user_drops_oldest),
        cmocka_unit_test(test_reregister_moves_to_newest),
        cmocka_unit_test(test_store_bound),
        cmocka_unit_test(test_disabled),
        cmocka_unit_test(test_refused),
        cmocka_unit_test(test_threads),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
