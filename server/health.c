/* health.c: a dserver's answer to "how are you". */
#include "server/health.h"

#include <stdio.h>
#include <string.h>

#include "base/clock.h"

static int saturated(const limit_state_t *s)
{
    return s->max > 0 && s->used >= s->max && s->waiting > 0;
}

void health_judge(const health_inputs_t *in, char *out, size_t cap)
{
    const limit_state_t *c = &in->cats;
    if (saturated(c) && in->now_ms - c->last_release_ms >= HEALTH_WEDGED_MS) {
        snprintf(out, cap, "CRITICAL|all MaxConcurrentCats=%d read slots taken, %d requests "
                           "waiting, none released for %lld s",
                 c->max, c->waiting, (in->now_ms - c->last_release_ms) / 1000);
        return;
    }
    if (saturated(c)) {
        snprintf(out, cap, "WARNING|all MaxConcurrentCats=%d read slots taken, %d requests waiting",
                 c->max, c->waiting);
        return;
    }
    if (saturated(&in->tails)) {
        snprintf(out, cap, "WARNING|all MaxConcurrentTails=%d follow slots taken, %d follow requests waiting",
                 in->tails.max, in->tails.waiting);
        return;
    }
    /* The asking session holds a slot of its own: the others are full when
     * they alone take every remaining one. */
    int others = in->sessions_busy - 1;
    if (in->max_connections > 1 && others >= in->max_connections - 1) {
        snprintf(out, cap, "WARNING|%d of MaxConnections=%d sessions have a request in flight",
                 others, in->max_connections);
        return;
    }
    snprintf(out, cap, "OK");
}

void health_gather(server_limits_t *l, conn_table_t *conns, int max_connections,
                   health_inputs_t *in)
{
    memset(in, 0, sizeof *in);
    in->now_ms = clock_now_ms();
    in->max_connections = max_connections;
    if (l) {
        server_limits_state(l, LIMIT_CAT, &in->cats);
        server_limits_state(l, LIMIT_TAIL, &in->tails);
    }
    if (conns) {
        conn_table_stats_t st;
        conn_table_stats(conns, &st, 0);
        in->sessions_busy = st.busy;
    }
}
