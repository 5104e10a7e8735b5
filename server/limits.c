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
    while (l->used[k] >= l->max[k]) {
        if (stopping && *stopping) {
            pthread_mutex_unlock(&l->mu);
            return -1;
        }
        /* Wake now and then to notice a shutdown. */
        struct timespec until;
        clock_abs_in(&until, 100);
        pthread_cond_timedwait(&l->cv, &l->mu, &until);
    }
    l->used[k]++;
    pthread_mutex_unlock(&l->mu);
    return 0;
}

void server_limits_release(server_limits_t *l, enum limit_kind k)
{
    pthread_mutex_lock(&l->mu);
    l->used[k]--;
    pthread_cond_signal(&l->cv);
    pthread_mutex_unlock(&l->mu);
}
