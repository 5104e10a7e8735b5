/* authlog.c: a small table of addresses with failures this interval. */
#include "server/authlog.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/clock.h"
#include "base/log.h"

#define AUTHLOG_SLOTS 256   /* addresses tracked at once; more share one line */

typedef struct auth_source {
    char source[64];            /* "" = free slot */
    long long since_ms;         /* start of its interval */
    unsigned long long more;    /* failures after the first in the interval */
    char last_user[64];         /* user of the last failure */
    char last_reason[160];      /* and its reason */
} auth_source_t;

struct authlog {
    pthread_mutex_t mu;
    auth_source_t slot[AUTHLOG_SLOTS];
    unsigned long long overflow;   /* failures from addresses with no slot */
    long long overflow_since_ms;
};

authlog_t *authlog_new(void)
{
    authlog_t *a = calloc(1, sizeof *a);
    if (a)
        pthread_mutex_init(&a->mu, NULL);
    return a;
}

void authlog_free(authlog_t *a)
{
    if (!a)
        return;
    pthread_mutex_destroy(&a->mu);
    free(a);
}

static void summarize(auth_source_t *s)
{
    if (s->more)
        LOG_WARN("Authentication failures|%s|%llu more in %d s|last %s|%s", s->source, s->more,
                 AUTHLOG_INTERVAL_MS / 1000, s->last_user, s->last_reason);
    s->source[0] = '\0';
    s->more = 0;
}

void authlog_failure(authlog_t *a, const char *source, const char *user, const char *reason)
{
    long long now = clock_now_ms();
    pthread_mutex_lock(&a->mu);
    auth_source_t *hit = NULL, *free_slot = NULL;
    for (int i = 0; i < AUTHLOG_SLOTS; i++) {
        auth_source_t *s = &a->slot[i];
        if (s->source[0] && now - s->since_ms >= AUTHLOG_INTERVAL_MS)
            summarize(s);
        if (!s->source[0]) {
            if (!free_slot)
                free_slot = s;
        } else if (strcmp(s->source, source) == 0) {
            hit = s;
        }
    }
    if (hit) {
        hit->more++;
        snprintf(hit->last_user, sizeof hit->last_user, "%s", user);
        snprintf(hit->last_reason, sizeof hit->last_reason, "%s", reason);
    } else if (free_slot) {
        snprintf(free_slot->source, sizeof free_slot->source, "%s", source);
        snprintf(free_slot->last_user, sizeof free_slot->last_user, "%s", user);
        free_slot->since_ms = now;
        LOG_WARN("Authentication failed|%s|%s|%s", source, user, reason);
    } else {
        if (!a->overflow)
            a->overflow_since_ms = now;
        a->overflow++;
    }
    pthread_mutex_unlock(&a->mu);
}

void authlog_flush(authlog_t *a, long long now_ms, int all)
{
    pthread_mutex_lock(&a->mu);
    for (int i = 0; i < AUTHLOG_SLOTS; i++) {
        auth_source_t *s = &a->slot[i];
        if (s->source[0] && (all || now_ms - s->since_ms >= AUTHLOG_INTERVAL_MS))
            summarize(s);
    }
    if (a->overflow && (all || now_ms - a->overflow_since_ms >= AUTHLOG_INTERVAL_MS)) {
        LOG_WARN("Authentication failures|other addresses|%llu in %d s", a->overflow,
                 AUTHLOG_INTERVAL_MS / 1000);
        a->overflow = 0;
    }
    pthread_mutex_unlock(&a->mu);
}
