/* test_health.c: dserver's health verdicts (server/health.h). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "server/health.h"

static health_inputs_t quiet(void)
{
    health_inputs_t in = {.cats = {0, 2, 0, 1000}, .tails = {0, 50, 0, 1000},
                          .sessions_busy = 1, .max_connections = 10, .now_ms = 5000};
    return in;
}

static void verdict(const health_inputs_t *in, const char *want_prefix)
{
    char out[300];
    health_judge(in, out, sizeof out);
    if (strncmp(out, want_prefix, strlen(want_prefix)) != 0)
        fail_msg("verdict \"%s\", want it to start with \"%s\"", out, want_prefix);
}

static void test_verdicts(void **state)
{
    (void)state;
    health_inputs_t in = quiet();
    verdict(&in, "OK");
    in.cats.used = 2;   /* full, nobody waiting: fine */
    verdict(&in, "OK");
    in.cats.waiting = 3;
    verdict(&in, "WARNING|all MaxConcurrentCats=2 read slots taken, 3 requests waiting");
    in.now_ms = in.cats.last_release_ms + HEALTH_WEDGED_MS;
    verdict(&in, "CRITICAL|all MaxConcurrentCats=2 read slots taken, 3 requests waiting, none "
                 "released for 60 s");
    in = quiet();
    in.tails.used = 50;
    in.tails.waiting = 1;
    verdict(&in, "WARNING|all MaxConcurrentTails=50");
    in = quiet();
    in.sessions_busy = 9;   /* the asker and 8 others of 10 */
    verdict(&in, "OK");
    in.sessions_busy = 10;
    verdict(&in, "WARNING|9 of MaxConnections=10 sessions have a request in flight");
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_verdicts)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
