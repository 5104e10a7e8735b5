/* auth.h: who may log in to dserver (shared reference §5.3).
 *
 * Public keys: the key must be listed in <CacheDir>/<user>.authorized_keys,
 * else in ~<user>/.ssh/authorized_keys (home from the user database).
 * Lines in OpenSSH's format: optional options, key type, base64, comment;
 * blank lines, comments and lines that do not parse are skipped. Options
 * (from=, command=, ...) are not honoured: a line with options is skipped
 * rather than granting more than it says.
 *
 * Passwords: refused, except DTail's health user DTAIL-HEALTH whose
 * password is DTAIL-HEALTH (compared in constant time); it may only run
 * the health check. */
#ifndef DTAIL_SERVER_AUTH_H
#define DTAIL_SERVER_AUTH_H

#include <stddef.h>

#include <libssh/libssh.h>

#include "base/err.h"

#define AUTH_HEALTH_USER "DTAIL-HEALTH"

/* Whether user is a name that may appear in a file name: no '/', not
 * empty, not starting with '.', printable ASCII, at most 255 bytes. */
int auth_user_name_ok(const char *user);

/* 1 when key is listed in the authorized_keys text (len bytes), else 0. */
int auth_keys_text_has(const char *text, size_t len, ssh_key key);

/* 1 when key is authorized for user, 0 when not (why in e, for the log). */
int auth_key_authorized(const char *cache_dir, const char *user, ssh_key key, err_t *e);

/* 1 when user/password is DTail's health login. */
int auth_password_ok(const char *user, const char *password);

#endif
