/* limits.c: two counting semaphores under one mutex, granted fairly: a
 * freed slot goes to the waiter whose user holds the fewest slots of that
 * kind, the longest waiting among equals. */
#include "server/limits.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/clock.h"

/* Slots one user holds; entries live while the user holds or waits. */
typedef struct owner {
    char name[64];
    int held[2];
    int refs;             /* holders and waiters */
    struct owner *next;
} owner_t;

typedef struct waiter {
    owner_t *owner;
    unsigned long long seq;   /* arrival order */
    struct waiter *next;
} waiter_t;

struct server_limits {
    pthread_mutex_t mu;    /* guards everything below */
    pthread_cond_t cv;     /* a slot was released */
    int max[2];            /* per enum limit_kind */
    int used[2];           /* taken now */
    long long last_release_ms[2];
    waiter_t *waiters[2];  /* unordered; seq orders them */
    owner_t *owners;
    unsigned long long next_seq;
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
    while (l->owners) {
        owner_t *o = l->owners;
        l->owners = o->next;
        free(o);
    }
    pthread_mutex_destroy(&l->mu);
    pthread_cond_destroy(&l->cv);
    free(l);
}

/* Under mu. NULL when out of memory (the caller then goes unranked). */
static owner_t *owner_ref(server_limits_t *l, const char *name)
{
    if (!name)
        name = "";
    for (owner_t *o = l->owners; o; o = o->next) {
        if (strcmp(o->name, name) == 0) {
            o->refs++;
            return o;
        }
    }
    owner_t *o = calloc(1, sizeof *o);
    if (!o)
        return NULL;
    snprintf(o->name, sizeof o->name, "%s", name);
    o->refs = 1;
    o->next = l->owners;
    l->owners = o;
    return o;
}

static void owner_unref(server_limits_t *l, owner_t *o)
{
    if (!o || --o->refs > 0)
        return;
    for (owner_t **pp = &l->owners; *pp; pp = &(*pp)->next) {
        if (*pp == o) {
            *pp = o->next;
            free(o);
            return;
        }
    }
}

static int held(const owner_t *o, enum limit_kind k)
{
    return o ? o->held[k] : 0;
}

/* Whether w is the waiter a free slot goes to next. */
static int is_next(const server_limits_t *l, enum limit_kind k, const waiter_t *w)
{
    for (const waiter_t *x = l->waiters[k]; x; x = x->next) {
        if (x == w)
            continue;
        int hx = held(x->owner, k), hw = held(w->owner, k);
        if (hx < hw || (hx == hw && x->seq < w->seq))
            return 0;
    }
    return 1;
}

static void unlink_waiter(server_limits_t *l, enum limit_kind k, waiter_t *w)
{
    for (waiter_t **pp = &l->waiters[k]; *pp; pp = &(*pp)->next) {
        if (*pp == w) {
            *pp = w->next;
            return;
        }
    }
}

int server_limits_acquire(server_limits_t *l, enum limit_kind k, const char *owner,
                          const volatile int *stopping, long long deadline_ms)
{
    pthread_mutex_lock(&l->mu);
    waiter_t w = {.owner = owner_ref(l, owner), .seq = l->next_seq++};
    w.next = l->waiters[k];
    l->waiters[k] = &w;
    while (l->used[k] >= l->max[k] || !is_next(l, k, &w)) {
        int stop = stopping && *stopping;
        if (stop || (deadline_ms > 0 && clock_now_ms() >= deadline_ms)) {
            unlink_waiter(l, k, &w);
            owner_unref(l, w.owner);
            pthread_cond_broadcast(&l->cv);   /* the next one may be another now */
            pthread_mutex_unlock(&l->mu);
            return stop ? -1 : -2;
        }
        /* Wake now and then to notice a shutdown. */
        struct timespec until;
        clock_abs_in(&until, 100);
        pthread_cond_timedwait(&l->cv, &l->mu, &until);
    }
    unlink_waiter(l, k, &w);
    l->used[k]++;
    if (w.owner)
        w.owner->held[k]++;   /* its reference now stands for the slot */
    if (l->used[k] < l->max[k])
        pthread_cond_broadcast(&l->cv);   /* more free: the next may go too */
    pthread_mutex_unlock(&l->mu);
    return 0;
}

void server_limits_release(server_limits_t *l, enum limit_kind k, const char *owner)
{
    pthread_mutex_lock(&l->mu);
    l->used[k]--;
    l->last_release_ms[k] = clock_now_ms();
    if (!owner)
        owner = "";
    for (owner_t *o = l->owners; o; o = o->next) {
        if (strcmp(o->name, owner) == 0 && o->held[k] > 0) {
            o->held[k]--;
            owner_unref(l, o);
            break;
        }
    }
    pthread_cond_broadcast(&l->cv);
    pthread_mutex_unlock(&l->mu);
}

void server_limits_state(server_limits_t *l, enum limit_kind k, limit_state_t *st)
{
    pthread_mutex_lock(&l->mu);
    st->used = l->used[k];
    st->max = l->max[k];
    st->waiting = 0;
    for (const waiter_t *w = l->waiters[k]; w; w = w->next)
        st->waiting++;
    st->last_release_ms = l->last_release_ms[k];
    pthread_mutex_unlock(&l->mu);
}
