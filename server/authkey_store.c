/* authkey_store.c: one flat array of registrations under one mutex.
 *
 * A store holds a few thousand keys at most and is looked at once per
 * login attempt, so a scan of the array is cheaper than keeping an index
 * right; the order of registrations is a sequence number, so moving a key
 * to the newest place is one store. */
#include "server/authkey_store.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

typedef struct authkey_entry {
    char *user;                  /* NULL: a free slot; else user, NUL, then the blob */
    size_t user_len;             /* strlen(user) */
    size_t blob_len;             /* bytes of the blob after the user's NUL */
    long long registered_ms;     /* the last registration's now_ms */
    unsigned long long seq;      /* its order: higher is newer */
} authkey_entry_t;

struct authkey_store {
    authkey_store_cfg_t cfg;     /* as given, max_keys filled in */
    pthread_mutex_t mu;          /* guards everything below */
    authkey_entry_t *slots;      /* cfg.max_keys of them */
    unsigned long long next_seq; /* the next registration's seq */
};

authkey_store_t *authkey_store_new(const authkey_store_cfg_t *cfg, err_t *e)
{
    authkey_store_t *st = calloc(1, sizeof *st);
    if (st) {
        st->cfg = *cfg;
        if (st->cfg.max_keys <= 0)
            st->cfg.max_keys = AUTHKEY_STORE_MAX_KEYS;
        st->slots = calloc((size_t)st->cfg.max_keys, sizeof *st->slots);
    }
    if (!st || !st->slots) {
        free(st);
        err_set(e, ERR_NOMEM, "out of memory for the auth-key store");
        return NULL;
    }
    pthread_mutex_init(&st->mu, NULL);
    st->next_seq = 1;
    return st;
}

static void entry_clear(authkey_entry_t *en)
{
    free(en->user);
    memset(en, 0, sizeof *en);
}

void authkey_store_free(authkey_store_t *st)
{
    if (!st)
        return;
    for (int i = 0; i < st->cfg.max_keys; i++)
        entry_clear(&st->slots[i]);
    free(st->slots);
    pthread_mutex_destroy(&st->mu);
    free(st);
}

int authkey_store_enabled(const authkey_store_t *st)
{
    return st && st->cfg.enabled;
}

/* Go's rule: a key registered at t is gone from t + TTL on. */
static int expired(const authkey_store_t *st, const authkey_entry_t *en, long long now_ms)
{
    return en->registered_ms + st->cfg.ttl_ms <= now_ms;
}

static int is_users(const authkey_entry_t *en, const char *user, size_t user_len)
{
    return en->user && en->user_len == user_len && memcmp(en->user, user, user_len) == 0;
}

static int is_key(const authkey_entry_t *en, const void *blob, size_t n)
{
    return en->blob_len == n && memcmp(en->user + en->user_len + 1, blob, n) == 0;
}

/* Drops the expired keys of user, or of everyone when user is NULL.
 * Called with mu held. */
static void prune_locked(authkey_store_t *st, const char *user, size_t user_len, long long now_ms)
{
    for (int i = 0; i < st->cfg.max_keys; i++) {
        authkey_entry_t *en = &st->slots[i];
        if (en->user && (!user || is_users(en, user, user_len)) && expired(st, en, now_ms))
            entry_clear(en);
    }
}

/* The oldest registration of user (or of anyone when user is NULL), and
 * how many user has; a free slot in *free_slot when there is one. */
static authkey_entry_t *oldest_locked(authkey_store_t *st, const char *user, size_t user_len,
                                      int *count, authkey_entry_t **free_slot)
{
    authkey_entry_t *old = NULL;
    *count = 0;
    *free_slot = NULL;
    for (int i = 0; i < st->cfg.max_keys; i++) {
        authkey_entry_t *en = &st->slots[i];
        if (!en->user) {
            if (!*free_slot)
                *free_slot = en;
            continue;
        }
        if (user && !is_users(en, user, user_len))
            continue;
        (*count)++;
        if (!old || en->seq < old->seq)
            old = en;
    }
    return old;
}

static authkey_entry_t *find_locked(authkey_store_t *st, const char *user, size_t user_len,
                                    const void *blob, size_t n)
{
    for (int i = 0; i < st->cfg.max_keys; i++)
        if (is_users(&st->slots[i], user, user_len) && is_key(&st->slots[i], blob, n))
            return &st->slots[i];
    return NULL;
}

/* A slot for a new key of user: the oldest of user's when user has the
 * most allowed, else a free one, else (expired keys dropped first) the
 * oldest of anyone's. Called with mu held. */
static authkey_entry_t *slot_for_locked(authkey_store_t *st, const char *user, size_t user_len,
                                        long long now_ms)
{
    int count;
    authkey_entry_t *free_slot;
    authkey_entry_t *old = oldest_locked(st, user, user_len, &count, &free_slot);
    if (old && count >= st->cfg.max_per_user) {
        entry_clear(old);
        return old;
    }
    if (free_slot)
        return free_slot;
    prune_locked(st, NULL, 0, now_ms);
    old = oldest_locked(st, NULL, 0, &count, &free_slot);
    if (free_slot)
        return free_slot;
    entry_clear(old);
    return old;
}

int authkey_store_add(authkey_store_t *st, const char *user, const void *blob, size_t n,
                      long long now_ms, err_t *e)
{
    if (!authkey_store_enabled(st))
        return err_set(e, ERR_INPUT, "the auth-key store is disabled (Server.AuthKeyEnabled)");
    size_t user_len = user ? strlen(user) : 0;
    if (user_len == 0 || user_len > 255 || n == 0 || n > AUTHKEY_BLOB_MAX)
        return err_set(e, ERR_INPUT, "auth key of %zu bytes for a user name of %zu not stored", n,
                       user_len);
    pthread_mutex_lock(&st->mu);
    prune_locked(st, user, user_len, now_ms);
    authkey_entry_t *en = find_locked(st, user, user_len, blob, n);
    if (!en) {
        char *data = malloc(user_len + 1 + n);
        if (!data) {
            pthread_mutex_unlock(&st->mu);
            return err_set(e, ERR_NOMEM, "out of memory storing an auth key");
        }
        memcpy(data, user, user_len + 1);
        memcpy(data + user_len + 1, blob, n);
        en = slot_for_locked(st, user, user_len, now_ms);
        *en = (authkey_entry_t){.user = data, .user_len = user_len, .blob_len = n};
    }
    en->registered_ms = now_ms;
    en->seq = st->next_seq++;
    pthread_mutex_unlock(&st->mu);
    return 0;
}

int authkey_store_has(authkey_store_t *st, const char *user, const void *blob, size_t n,
                      long long now_ms)
{
    if (!authkey_store_enabled(st) || !user || n == 0)
        return 0;
    size_t user_len = strlen(user);
    pthread_mutex_lock(&st->mu);
    prune_locked(st, user, user_len, now_ms);
    int has = find_locked(st, user, user_len, blob, n) != NULL;
    pthread_mutex_unlock(&st->mu);
    return has;
}

int authkey_store_count(authkey_store_t *st, const char *user, long long now_ms)
{
    if (!st || !user)
        return 0;
    size_t user_len = strlen(user);
    pthread_mutex_lock(&st->mu);
    prune_locked(st, user, user_len, now_ms);
    int count;
    authkey_entry_t *free_slot;
    oldest_locked(st, user, user_len, &count, &free_slot);
    pthread_mutex_unlock(&st->mu);
    return count;
}
