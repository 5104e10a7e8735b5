/* authkey_store.h: DTail's in-memory auth-key store (shared reference
 * §5.4): public keys a logged-in user registered with AUTHKEY, accepted
 * for that user's next logins until they expire, even when authorized_keys
 * no longer lists them.
 *
 * A key is bytes compared whole: the callers (server/auth.c) keep a key's
 * public blob in libssh's base64, one spelling per key. A key lives
 * Server.AuthKeyTTLSeconds from its last registration; expiry is checked
 * lazily, when the user's keys are looked at. A user keeps at most
 * Server.AuthKeyMaxPerUser keys: registering one more drops that user's
 * oldest, and registering a key again makes it the newest. The store as a
 * whole holds at most max_keys keys (Go's has no bound): when full,
 * expired keys go first, then the oldest registration of anyone. Nothing
 * is written to disk: a restart forgets every key. All functions are safe
 * to call from any thread. */
#ifndef DTAIL_SERVER_AUTHKEY_STORE_H
#define DTAIL_SERVER_AUTHKEY_STORE_H

#include <stddef.h>

#include "base/err.h"

/* The most bytes one key takes: an RSA-16384 key's blob is about 2 KiB,
 * 2.8 KiB in base64; certificates somewhat more. */
#define AUTHKEY_BLOB_MAX 8192
/* Keys kept for all users together unless the config says otherwise. */
#define AUTHKEY_STORE_MAX_KEYS 4096

typedef struct authkey_store authkey_store_t;

typedef struct authkey_store_cfg {
    int enabled;                 /* Server.AuthKeyEnabled: 0 = register nothing, accept nothing */
    long long ttl_ms;            /* Server.AuthKeyTTLSeconds in ms, > 0 */
    int max_per_user;            /* Server.AuthKeyMaxPerUser, > 0 */
    int max_keys;                /* all users together; 0 = AUTHKEY_STORE_MAX_KEYS */
} authkey_store_cfg_t;

/* NULL with e set when memory is short. */
authkey_store_t *authkey_store_new(const authkey_store_cfg_t *cfg, err_t *e);
void authkey_store_free(authkey_store_t *st);

/* Whether the store takes and accepts keys (Server.AuthKeyEnabled). */
int authkey_store_enabled(const authkey_store_t *st);

/* Registers blob (n bytes) for user at now_ms (any clock that does not go
 * back, the same for every call: clock_now_ms). Returns 0, or -1 with e
 * set: disabled, an empty or oversize blob or user, out of memory. */
int authkey_store_add(authkey_store_t *st, const char *user, const void *blob, size_t n,
                      long long now_ms, err_t *e);

/* 1 when blob is a key of user's that has not expired at now_ms, else 0
 * (always 0 when disabled). */
int authkey_store_has(authkey_store_t *st, const char *user, const void *blob, size_t n,
                      long long now_ms);

/* The number of user's keys that have not expired at now_ms. */
int authkey_store_count(authkey_store_t *st, const char *user, long long now_ms);

#endif
