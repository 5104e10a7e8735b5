/* auth.c: authorized_keys lookup and the special password users. */
#include "server/auth.h"

#include <errno.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/grow.h"
#include "base/log.h"

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

/* One authorized_keys line (NUL-terminated, modified in place). */
static int line_has(char *line, ssh_key key)
{
    char *save = NULL;
    char *type = strtok_r(line, " \t\r", &save);
    if (!type || type[0] == '#')
        return 0;
    enum ssh_keytypes_e kt = ssh_key_type_from_name(type);
    if (kt == SSH_KEYTYPE_UNKNOWN)
        return 0;   /* options first, or garbage: skipped (see auth.h) */
    char *b64 = strtok_r(NULL, " \t\r", &save);
    if (!b64)
        return 0;
    ssh_key k = NULL;
    if (ssh_pki_import_pubkey_base64(b64, kt, &k) != SSH_OK)
        return 0;
    int same = ssh_key_cmp(k, key, SSH_KEY_CMP_PUBLIC) == 0;
    ssh_key_free(k);
    return same;
}

int auth_keys_text_has(const char *text, size_t len, ssh_key key)
{
    char line[16384];
    size_t i = 0;
    while (i < len) {
        const char *nl = memchr(text + i, '\n', len - i);
        size_t n = nl ? (size_t)(nl - (text + i)) : len - i;
        if (n < sizeof line) {
            memcpy(line, text + i, n);
            line[n] = '\0';
            if (line_has(line, key))
                return 1;
        }
        i += n + 1;
    }
    return 0;
}

/* -1: file missing or unreadable; 0: not listed; 1: listed. */
static int file_has(const char *path, ssh_key key)
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
    int has = auth_keys_text_has(text, len, key);
    free(text);
    return has;
}

int auth_key_authorized(const char *cache_dir, const char *user, ssh_key key, err_t *e)
{
    /* The messages are log records (LOG_MSG): the name is escaped in them. */
    char esc[1024];
    if (!auth_user_name_ok(user)) {
        err_set(e, ERR_INPUT, "%s|user name not allowed", log_escape(user, esc, sizeof esc));
        return 0;
    }
    char path[4096];
    snprintf(path, sizeof path, "%s/%s.authorized_keys", cache_dir, user);
    int r1 = file_has(path, key);
    if (r1 == 1)
        return 1;
    int r2 = -1;
    struct passwd pw, *res = NULL;
    char pwbuf[4096];
    if (getpwnam_r(user, &pw, pwbuf, sizeof pwbuf, &res) == 0 && res && res->pw_dir) {
        snprintf(path, sizeof path, "%s/.ssh/authorized_keys", res->pw_dir);
        r2 = file_has(path, key);
        if (r2 == 1)
            return 1;
    }
    if (r1 < 0 && r2 < 0)
        err_set(e, ERR_INPUT, "%s|unable to find any authorized keys file",
                log_escape(user, esc, sizeof esc));
    else
        err_set(e, ERR_INPUT, "%s|public key of user not authorized",
                log_escape(user, esc, sizeof esc));
    return 0;
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
