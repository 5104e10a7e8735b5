/* health.h: the answer to a HEALTH request: "OK", or "WARNING|why" when a
 * limit is saturated (every other session busy, every read or follow slot
 * taken with requests waiting), or "CRITICAL|why" when the server looks
 * wedged (read slots all taken, requests waiting, and none released for
 * HEALTH_WEDGED_MS). dtailhealth maps these to its exit codes 0, 1, 2. */
#ifndef DTAIL_SERVER_HEALTH_H
#define DTAIL_SERVER_HEALTH_H

#include <stddef.h>

#include "server/conn_table.h"
#include "server/limits.h"

#define HEALTH_WEDGED_MS 60000

typedef struct health_inputs {
    limit_state_t cats, tails;   /* MaxConcurrentCats, MaxConcurrentTails */
    int sessions_busy;           /* with a request in flight, the asking one included */
    int max_connections;
    long long now_ms;
} health_inputs_t;

/* The verdict for in, into out (cap bytes). */
void health_judge(const health_inputs_t *in, char *out, size_t cap);
/* Gathers the inputs from the live server (either may be NULL). */
void health_gather(server_limits_t *l, conn_table_t *conns, int max_connections,
                   health_inputs_t *in);

#endif
