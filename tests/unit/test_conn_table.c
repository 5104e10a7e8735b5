/* test_conn_table.c: dserver's admission rules (server/conn_table.h). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>

#include "base/config.h"
#include "server/conn_table.h"

static config_t cfg;

static void entry(conn_entry_t *c, const char *source)
{
    memset(c, 0, sizeof *c);
    snprintf(c->source, sizeof c->source, "%s", source);
    c->fd = -1;   /* shutdown(-1) fails harmlessly: only the flag is looked at */
}

static conn_table_t *table(int preauth, int per_source, int sessions)
{
    config_defaults(&cfg);
    cfg.max_preauth_connections = preauth;
    cfg.max_preauth_per_source = per_source;
    cfg.max_connections = sessions;
    conn_table_t *t = conn_table_new(&cfg);
    assert_non_null(t);
    return t;
}

static void test_per_source_displaces_own_oldest(void **state)
{
    (void)state;
    conn_table_t *t = table(100, 2, 10);
    conn_entry_t a[3], other;
    entry(&other, "10.0.0.9");
    conn_table_add_preauth(t, &other);
    for (int i = 0; i < 3; i++) {
        entry(&a[i], "10.0.0.1");
        conn_table_add_preauth(t, &a[i]);
    }
    assert_int_equal(atomic_load(&a[0].drop), CONN_DROP_PREAUTH);
    assert_int_equal(atomic_load(&a[1].drop), CONN_KEEP);
    assert_int_equal(atomic_load(&a[2].drop), CONN_KEEP);
    assert_int_equal(atomic_load(&other.drop), CONN_KEEP);
    conn_table_stats_t st;
    conn_table_stats(t, &st, 1);
    assert_int_equal(st.preauth, 3);
    assert_int_equal(st.dropped_preauth, 1);
    for (int i = 0; i < 3; i++)
        conn_table_remove(t, &a[i]);
    conn_table_remove(t, &other);
    conn_table_free(t);
}

static void test_silent_ones_go_first(void **state)
{
    (void)state;
    conn_table_t *t = table(100, 2, 10);
    conn_entry_t talker, silent, newcomer;
    entry(&talker, "10.0.0.1");
    conn_table_add_preauth(t, &talker);
    atomic_store(&talker.spoke, 1);   /* a client in its key exchange */
    entry(&silent, "10.0.0.1");
    conn_table_add_preauth(t, &silent);
    entry(&newcomer, "10.0.0.1");
    conn_table_add_preauth(t, &newcomer);
    assert_int_equal(atomic_load(&talker.drop), CONN_KEEP);
    assert_int_equal(atomic_load(&silent.drop), CONN_DROP_PREAUTH);
    conn_table_remove(t, &talker);
    conn_table_remove(t, &silent);
    conn_table_remove(t, &newcomer);
    conn_table_free(t);
}

static void test_full_budget_drops_busiest_source(void **state)
{
    (void)state;
    conn_table_t *t = table(4, 3, 10);
    conn_entry_t legit, atk[3], newcomer;
    entry(&legit, "10.0.0.2");
    conn_table_add_preauth(t, &legit);
    for (int i = 0; i < 3; i++) {
        entry(&atk[i], "10.0.0.1");
        conn_table_add_preauth(t, &atk[i]);
    }
    entry(&newcomer, "10.0.0.3");
    conn_table_add_preauth(t, &newcomer);
    /* legit is the oldest of all, but its address holds one: the
     * attacker's oldest goes. */
    assert_int_equal(atomic_load(&legit.drop), CONN_KEEP);
    assert_int_equal(atomic_load(&atk[0].drop), CONN_DROP_PREAUTH);
    assert_int_equal(atomic_load(&newcomer.drop), CONN_KEEP);
    conn_table_remove(t, &legit);
    conn_table_remove(t, &newcomer);
    for (int i = 0; i < 3; i++)
        conn_table_remove(t, &atk[i]);
    conn_table_free(t);
}

static void test_idle_session_yields(void **state)
{
    (void)state;
    conn_table_t *t = table(100, 10, 2);
    conn_entry_t s1, s2, s3, s4;
    char why[200];
    entry(&s1, "a");
    entry(&s2, "a");
    entry(&s3, "a");
    entry(&s4, "a");
    conn_table_add_preauth(t, &s1);
    assert_int_equal(conn_table_promote(t, &s1, 0, why, sizeof why), 0);
    conn_table_add_preauth(t, &s2);
    assert_int_equal(conn_table_promote(t, &s2, 0, why, sizeof why), 0);
    conn_entry_busy(&s2, 1);
    /* Full: the idle one (s1) yields, not the busy one. */
    conn_table_add_preauth(t, &s3);
    assert_int_equal(conn_table_promote(t, &s3, 0, why, sizeof why), 0);
    assert_int_equal(atomic_load(&s1.drop), CONN_DROP_IDLE_YIELD);
    assert_int_equal(atomic_load(&s2.drop), CONN_KEEP);
    /* Full of busy sessions: refused, in words that name the limit. */
    conn_entry_busy(&s3, 1);
    conn_table_add_preauth(t, &s4);
    assert_int_equal(conn_table_promote(t, &s4, 0, why, sizeof why), -1);
    assert_non_null(strstr(why, "MaxConnections=2"));
    conn_table_remove(t, &s1);
    conn_table_remove(t, &s2);
    conn_table_remove(t, &s3);
    conn_table_remove(t, &s4);
    conn_table_free(t);
}

static void test_health_has_its_own_cap(void **state)
{
    (void)state;
    conn_table_t *t = table(100, 10, 10);
    conn_entry_t h[3];
    char why[200];
    for (int i = 0; i < 3; i++) {
        entry(&h[i], "a");
        conn_table_add_preauth(t, &h[i]);
        assert_int_equal(conn_table_promote(t, &h[i], 1, why, sizeof why), 0);
    }
    assert_int_equal(atomic_load(&h[0].drop), CONN_DROP_HEALTH);
    assert_int_equal(atomic_load(&h[1].drop), CONN_KEEP);
    assert_int_equal(atomic_load(&h[2].drop), CONN_KEEP);
    conn_table_stats_t st;
    conn_table_stats(t, &st, 0);
    assert_int_equal(st.health, CONN_MAX_HEALTH);
    for (int i = 0; i < 3; i++)
        conn_table_remove(t, &h[i]);
    conn_table_free(t);
}

static void test_idle_timeout(void **state)
{
    (void)state;
    conn_table_t *t = table(100, 10, 10);
    cfg.idle_timeout_s = 1;
    conn_table_free(t);
    t = conn_table_new(&cfg);
    conn_entry_t idle, busy;
    char why[200];
    entry(&idle, "a");
    entry(&busy, "a");
    conn_table_add_preauth(t, &idle);
    conn_table_promote(t, &idle, 0, why, sizeof why);
    conn_table_add_preauth(t, &busy);
    conn_table_promote(t, &busy, 0, why, sizeof why);
    conn_entry_busy(&busy, 1);
    atomic_store(&idle.idle_since_ms, atomic_load(&idle.idle_since_ms) - 2000);
    atomic_store(&busy.idle_since_ms, atomic_load(&busy.idle_since_ms) - 2000);
    conn_table_sweep(t);
    assert_int_equal(atomic_load(&idle.drop), CONN_DROP_IDLE);
    assert_int_equal(atomic_load(&busy.drop), CONN_KEEP);
    conn_table_remove(t, &idle);
    conn_table_remove(t, &busy);
    conn_table_free(t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_per_source_displaces_own_oldest),
        cmocka_unit_test(test_silent_ones_go_first),
        cmocka_unit_test(test_full_budget_drops_busiest_source),
        cmocka_unit_test(test_idle_session_yields),
        cmocka_unit_test(test_health_has_its_own_cap),
        cmocka_unit_test(test_idle_timeout),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
