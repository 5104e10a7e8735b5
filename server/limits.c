/* limits.c: two counting semaphores under one mutex. */
#include "server/limits.h"

#include <pthread.h>
#include <stdlib.h>
#include <time.h>

#include "base/clock.h"

struct server_limits {
    pthread_mutex_t mu;    /* guards used */
    pthread_cond_t cv;     /* a slot was released */
    int max[2];            /* per enum limit_kind */
    int used[2];           /* taken now */
    int waiting[2];        /* waiting for a slot */
    long long last_release_ms[2];
};

server_limits_t *server_limits_create(const config_t *cfg, err_t *e)
{
    server_limits_t *l = calloc(1, sizeof *l);
    if (!l) {
        err_set(e, ERR_NOMEM, "out of memory for server limits");
        return NULL;
    }
    pthread_mutex_init(&l->mu, NULL);
    pthread_cond_init(&l->cv, NULL);
    l->max[LIMIT_CAT] = cfg && cfg->max_concurrent_cats > 0 ? cfg->max_concurrent_cats : 2;
    l->max[LIMIT_TAIL] = cfg && cfg->max_concurrent_tails > 0 ? cfg->max_concurrent_tails : 50;
    /* "None released for a while" counts from the start. */
    l->last_release_ms[LIMIT_CAT] = l->last_release_ms[LIMIT_TAIL] = clock_now_ms();
    return l;
}

void server_limits_free(server_limits_t *l)
{
    if (!l)
        return;
    pthread_mutex_destroy(&l->mu);
    pthread_cond_destroy(&l->cv);
    free(l);
}

int server_limits_acquire(server_limits_t *l, enum limit_kind k, const volatile int *stopping)
{
    pthread_mutex_lock(&l->mu);
    l->waiting[k]++;
    while (l->used[k] >= l->max[k]) {
        if (stopping && *stopping) {
            l->waiting[k]--;
            pthread_mutex_unlock(&l->mu);
            return -1;
        }
        /* Wake now and then to notice a shutdown. */
        struct timespec until;
        clock_abs_in(&until, 100);
        pthread_cond_timedwait(&l->cv, &l->mu, &until);
    }
    l->waiting[k]--;
    l->used[k]++;
    pthread_mutex_unlock(&l->mu);
    return 0;
}

void server_limits_release(server_limits_t *l, enum limit_kind k)
{
    pthread_mutex_lock(&l->mu);
    l->used[k]--;
    l->last_release_ms[k] = clock_now_ms();
    pthread_cond_signal(&l->cv);
    pthread_mutex_unlock(&l->mu);
}

void server_limits_state(server_limits_t *l, enum limit_kind k, limit_state_t *st)
{
    pthread_mutex_lock(&l->mu);
    st->used = l->used[k];
    st->max = l->max[k];
    st->waiting = l->waiting[k];
    st->last_release_ms = l->last_release_ms[k];
    pthread_mutex_unlock(&l->mu);
}
