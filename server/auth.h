/* auth.h: who may log in to dserver (shared reference §5.3).
 *
 * Public keys: the key must be listed in <CacheDir>/<user>.authorized_keys,
 * else in ~<user>/.ssh/authorized_keys (home from the user database).
 * Lines in OpenSSH's format: optional options, key type, base64, comment;
 * blank lines, comments and lines that do not parse are skipped. Options
 * are applied as server/auth_options.h says: from= and expiry-time=
 * enforced, a line with an option dserver cannot apply (command=, ...)
 * not used.
 *
 * Keys a user registered with DTail's AUTHKEY (server/authkey_store.h)
 * are accepted for that user too, until they expire, whatever
 * authorized_keys says by then; ssh_conn.c asks the store first, as DTail.
 *
 * Passwords: refused, except DTail's health user DTAIL-HEALTH whose
 * password is DTAIL-HEALTH (compared in constant time); it may only run
 * the health check. */
#ifndef DTAIL_SERVER_AUTH_H
#define DTAIL_SERVER_AUTH_H

#include <stddef.h>

#include <libssh/libssh.h>

#include "base/err.h"
#include "server/authkey_store.h"

#define AUTH_HEALTH_USER "DTAIL-HEALTH"

/* Whether user is a name that may appear in a file name: no '/', not
 * empty, not starting with '.', printable ASCII, at most 255 bytes. */
int auth_user_name_ok(const char *user);

/* 1 when key is listed in the authorized_keys text (len bytes) on a line
 * whose options let a client at address peer in, else 0; when a line
 * listed it but refused, why says why (for the log). */
int auth_keys_text_has(const char *text, size_t len, ssh_key key, const char *peer, char *why,
                       size_t cap);

/* 1 when key is authorized for user connecting from address peer, 0 when
 * not (why in e, for the log). */
int auth_key_authorized(const char *cache_dir, const char *user, ssh_key key, const char *peer,
                        err_t *e);

/* 1 when key is one that user registered in store and that has not
 * expired; 0 otherwise, also when store is NULL or disabled. */
int auth_key_stored(authkey_store_t *store, const char *user, ssh_key key);

/* Registers for user the public key blob (n bytes, SSH wire format) a
 * client sent with AUTHKEY: 0, or -1 with e set: ERR_INPUT when the blob
 * is not a public key libssh reads, ERR_IO when the store is NULL or does
 * not take it. */
int auth_key_register(authkey_store_t *store, const char *user, const void *blob, size_t n,
                      err_t *e);

/* 1 when user/password is DTail's health login. */
int auth_password_ok(const char *user, const char *password);

#endif
