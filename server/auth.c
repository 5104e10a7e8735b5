/* auth.c: authorized_keys lookup and the special password users. */
#include "server/auth.h"

#include <errno.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "base/base64.h"
#include "base/clock.h"
#include "base/grow.h"
#include "base/log.h"
#include "server/auth_options.h"
#include "wire/frame.h"

int auth_user_name_ok(const char *user)
{
    size_t n = strlen(user);
    if (n == 0 || n > 255 || user[0] == '.' || user[0] == '-')
        return 0;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)user[i];
        if (c <= ' ' || c >= 127 || c == '/')
            return 0;
    }
    return 1;
}

/* One authorized_keys line (NUL-terminated, modified in place): 1 when
 * it lists key and its options let peer in, 0 when it does not list key,
 * -1 when it does but refuses (why says so). */
static int line_has(char *line, ssh_key key, const char *peer, char *why, size_t cap)
{
    line += strspn(line, " \t");
    if (!line[0] || line[0] == '#')
        return 0;
    char *opts = NULL;
    size_t opts_len = 0;
    char *end = line + strcspn(line, " \t\r");
    char saved = *end;
    *end = '\0';
    int typed = ssh_key_type_from_name(line) != SSH_KEYTYPE_UNKNOWN;
    *end = saved;
    if (!typed) {   /* options first */
        long n = auth_options_len(line, strlen(line));
        if (n <= 0 || !line[n])
            return 0;
        opts = line;
        opts_len = (size_t)n;
        line += n;
    }
    char *save = NULL;
    char *type = strtok_r(line, " \t\r", &save);
    enum ssh_keytypes_e kt = type ? ssh_key_type_from_name(type) : SSH_KEYTYPE_UNKNOWN;
    if (kt == SSH_KEYTYPE_UNKNOWN)
        return 0;   /* garbage: skipped */
    char *b64 = strtok_r(NULL, " \t\r", &save);
    if (!b64)
        return 0;
    ssh_key k = NULL;
    if (ssh_pki_import_pubkey_base64(b64, kt, &k) != SSH_OK)
        return 0;
    int same = ssh_key_cmp(k, key, SSH_KEY_CMP_PUBLIC) == 0;
    ssh_key_free(k);
    if (!same || !opts)
        return same;
    return auth_options_check(opts, opts_len, peer, time(NULL), why, cap) == 1 ? 1 : -1;
}

int auth_keys_text_has(const char *text, size_t len, ssh_key key, const char *peer, char *why,
                       size_t cap)
{
    char line[16384];
    size_t i = 0;
    int refused = 0;
    while (i < len) {
        const char *nl = memchr(text + i, '\n', len - i);
        size_t n = nl ? (size_t)(nl - (text + i)) : len - i;
        if (n < sizeof line) {
            memcpy(line, text + i, n);
            line[n] = '\0';
            char w[512];
            int r = line_has(line, key, peer, w, sizeof w);
            if (r == 1)
                return 1;
            if (r < 0 && !refused) {   /* the first refusal says why */
                refused = 1;
                snprintf(why, cap, "%s", w);
            }
        }
        i += n + 1;
    }
    return 0;
}

/* -1: file missing or unreadable; 0: not listed; 1: listed. */
static int file_has(const char *path, ssh_key key, const char *peer, char *why, size_t why_cap)
{
    FILE *f = fopen(path, "re");
    if (!f)
        return -1;
    char *text = NULL;
    size_t cap = 0, len = 0;
    for (;;) {
        /* Read 4 KiB or more at a time; a key file over 16 MiB is refused. */
        if (GROW_ARRAY(text, cap, len + 4096, 16384) < 0 || cap > 16 * 1024 * 1024) {
            free(text);
            fclose(f);
            return -1;
        }
        size_t r = fread(text + len, 1, cap - len, f);
        len += r;
        if (r == 0)
            break;
    }
    fclose(f);
    int has = auth_keys_text_has(text, len, key, peer, why, why_cap);
    free(text);
    return has;
}

int auth_key_authorized(const char *cache_dir, const char *user, ssh_key key, const char *peer,
                        err_t *e)
{
    /* The messages are log records (LOG_MSG): the name is escaped in them. */
    char esc[1024];
    if (!auth_user_name_ok(user)) {
        err_set(e, ERR_INPUT, "%s|user name not allowed", log_escape(user, esc, sizeof esc));
        return 0;
    }
    char path[4096];
    snprintf(path, sizeof path, "%s/%s.authorized_keys", cache_dir, user);
    char why[512] = "";
    int r1 = file_has(path, key, peer, why, sizeof why);
    if (r1 == 1)
        return 1;
    int r2 = -1;
    struct passwd pw, *res = NULL;
    char pwbuf[4096];
    if (getpwnam_r(user, &pw, pwbuf, sizeof pwbuf, &res) == 0 && res && res->pw_dir) {
        snprintf(path, sizeof path, "%s/.ssh/authorized_keys", res->pw_dir);
        r2 = file_has(path, key, peer, why, sizeof why);
        if (r2 == 1)
            return 1;
    }
    if (r1 < 0 && r2 < 0)
        err_set(e, ERR_INPUT, "%s|unable to find any authorized keys file",
                log_escape(user, esc, sizeof esc));
    else if (why[0])
        err_set(e, ERR_INPUT, "%s|public key of user not authorized (%s)",
                log_escape(user, esc, sizeof esc), why);
    else
        err_set(e, ERR_INPUT, "%s|public key of user not authorized",
                log_escape(user, esc, sizeof esc));
    return 0;
}

/* The store keeps keys as libssh's base64 of their public blob: one
 * spelling for a key however a client encoded it. */
int auth_key_stored(authkey_store_t *store, const char *user, ssh_key key)
{
    if (!authkey_store_enabled(store))
        return 0;
    char *b64 = NULL;
    if (ssh_pki_export_pubkey_base64(key, &b64) != SSH_OK)
        return 0;
    int has = authkey_store_has(store, user, b64, strlen(b64), clock_now_ms());
    ssh_string_free_char(b64);
    return has;
}

/* The key type a public key blob names: its first field, a string. */
static enum ssh_keytypes_e blob_key_type(const unsigned char *blob, size_t n)
{
    if (n < 4)
        return SSH_KEYTYPE_UNKNOWN;
    size_t len = wire_be32_get(blob);
    char name[64];
    if (len == 0 || len >= sizeof name || len > n - 4)
        return SSH_KEYTYPE_UNKNOWN;
    memcpy(name, blob + 4, len);
    name[len] = '\0';
    return ssh_key_type_from_name(name);
}

/* The largest public key blob taken: its base64 fits the store. */
#define AUTH_KEY_BLOB_MAX (AUTHKEY_BLOB_MAX / 4 * 3)

/* A public key blob as libssh's base64 of it (free with
 * ssh_string_free_char), or NULL when libssh does not read it as a key.
 * Going through libssh's key rather than keeping the client's bytes is
 * Go's ParsePublicKey check. */
static char *blob_canonical_base64(const void *blob, size_t n)
{
    enum ssh_keytypes_e type = blob_key_type(blob, n);
    if (type == SSH_KEYTYPE_UNKNOWN || n > AUTH_KEY_BLOB_MAX)
        return NULL;
    char b64[AUTHKEY_BLOB_MAX + 1];
    base64_encode(b64, blob, n);
    b64[base64_encoded_len(n)] = '\0';
    ssh_key key = NULL;
    char *canonical = NULL;
    if (ssh_pki_import_pubkey_base64(b64, type, &key) != SSH_OK ||
        ssh_pki_export_pubkey_base64(key, &canonical) != SSH_OK)
        canonical = NULL;
    ssh_key_free(key);
    return canonical;
}

int auth_key_register(authkey_store_t *store, const char *user, const void *blob, size_t n,
                      err_t *e)
{
    char *canonical = blob_canonical_base64(blob, n);
    if (!canonical)
        return err_set(e, ERR_INPUT, "not a public key");
    int rc = store ? authkey_store_add(store, user, canonical, strlen(canonical), clock_now_ms(), e)
                   : err_set(e, ERR_IO, "no auth-key store");
    ssh_string_free_char(canonical);
    if (rc < 0)
        e->code = ERR_IO;
    return rc;
}

/* Compares without an early exit, so timing tells nothing about where a
 * guess first differs. */
static int const_time_eq(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);
    unsigned char diff = (unsigned char)(la != lb);
    for (size_t i = 0; i < la; i++)
        diff |= (unsigned char)a[i] ^ (unsigned char)b[i % (lb ? lb : 1)];
    return diff == 0;
}

int auth_password_ok(const char *user, const char *password)
{
    int user_ok = const_time_eq(user, AUTH_HEALTH_USER);
    int pass_ok = const_time_eq(password, AUTH_HEALTH_USER);
    return user_ok & pass_ok;
}
