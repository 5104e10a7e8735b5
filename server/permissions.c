/* permissions.c: rule lists (PCRE2), the mode-bit check, the safe open. */
#include "server/permissions.h"

#define PCRE2_CODE_UNIT_WIDTH 8
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <jansson.h>
#include <limits.h>
#include <pcre2.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct perm_rule {
    pcre2_code *re;        /* compiled pattern */
    int deny;              /* a `!` rule */
} perm_rule_t;

struct perm_rules {
    perm_rule_t *rules;    /* in config order */
    size_t n;              /* count */
    int unchecked;         /* every path passes (perm_rules_new_unchecked) */
    perm_secrets_t secrets; /* refused whatever the rules say */
};

static void rules_clear(perm_rules_t *r)
{
    for (size_t i = 0; i < r->n; i++)
        pcre2_code_free(r->rules[i].re);
    free(r->rules);
}

void perm_rules_free(perm_rules_t *r)
{
    if (!r)
        return;
    rules_clear(r);
    free(r);
}

/* Adds one `[type:][!]REGEX` rule; rules of other types than readfiles
 * are not about reading and are skipped. */
static int add_rule(perm_rules_t *r, const char *text, err_t *e)
{
    const char *re = text;
    if (strncmp(re, "readfiles:", 10) == 0) {
        re += 10;
    } else {
        size_t word = strspn(re, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ");
        if (word > 0 && re[word] == ':')
            return 0;
    }
    int deny = 0;
    if (*re == '!') {
        deny = 1;
        re++;
    }
    int code;
    PCRE2_SIZE off;
    pcre2_code *c = pcre2_compile((PCRE2_SPTR)re, PCRE2_ZERO_TERMINATED, 0, &code, &off, NULL);
    if (!c) {
        PCRE2_UCHAR msg[256];
        pcre2_get_error_message(code, msg, sizeof msg);
        return err_set(e, ERR_CONFIG, "rule \"%s\": invalid regex at offset %zu: %s", text,
                       (size_t)off, (const char *)msg);
    }
    r->rules[r->n++] = (perm_rule_t){c, deny};
    return 0;
}

perm_rules_t *perm_rules_new(const config_t *cfg, const char *user, err_t *e)
{
    perm_rules_t *r = calloc(1, sizeof *r);
    if (!r) {
        err_set(e, ERR_NOMEM, "out of memory for permissions");
        return NULL;
    }
    const char *text = cfg->permissions[0] ? cfg->permissions : "{\"Default\":[\"^/.*\"]}";
    json_error_t je;
    json_t *root = json_loads(text, 0, &je);
    json_t *list = json_object_get(json_object_get(root, "Users"), user ? user : "");
    if (!list)
        list = json_object_get(root, "Default");
    size_t n = json_array_size(list);
    r->rules = calloc(n ? n : 1, sizeof *r->rules);
    if (!root || !r->rules) {
        err_set(e, root ? ERR_NOMEM : ERR_CONFIG, "Server.Permissions: %s",
                root ? "out of memory" : je.text);
        goto fail;
    }
    for (size_t i = 0; i < n; i++) {
        const char *s = json_string_value(json_array_get(list, i));
        if (!s) {
            err_set(e, ERR_CONFIG, "Server.Permissions: rule %zu is not a string", i + 1);
            goto fail;
        }
        if (add_rule(r, s, e) < 0) {
            char why[sizeof e->msg];
            snprintf(why, sizeof why, "%s", e->msg);
            err_set(e, ERR_CONFIG, "Server.Permissions %s", why);
            goto fail;
        }
    }
    json_decref(root);
    perm_secrets_init(&r->secrets, cfg);
    return r;
fail:
    json_decref(root);
    perm_rules_free(r);
    return NULL;
}

perm_rules_t *perm_rules_new_unchecked(const config_t *cfg, err_t *e)
{
    perm_rules_t *r = calloc(1, sizeof *r);
    if (!r) {
        err_set(e, ERR_NOMEM, "out of memory for permissions");
        return NULL;
    }
    r->unchecked = 1;
    perm_secrets_init(&r->secrets, cfg);
    return r;
}

/* Compiles one rule list (Default when user is NULL) and drops it; an
 * invalid rule is an error naming the key, the rule and where it is. */
static int check_list(const config_t *cfg, json_t *list, const char *user, err_t *e)
{
    size_t n = json_array_size(list);
    perm_rules_t r = {.rules = calloc(n ? n : 1, sizeof *r.rules)};   /* compiles only: opens nothing */
    if (!r.rules)
        return err_set(e, ERR_NOMEM, "out of memory checking Server.Permissions");
    int rc = 0;
    for (size_t i = 0; i < n && rc == 0; i++) {
        err_t why;
        err_clear(&why);
        const char *text = json_string_value(json_array_get(list, i));
        if (!text) {
            err_set(&why, ERR_CONFIG, "is not a string");
        } else if (add_rule(&r, text, &why) == 0) {
            continue;
        }
        const char *keys[] = {"Server", "Permissions", user ? "Users" : "Default", user, NULL};
        char where[4200];
        config_where(cfg, keys, where, sizeof where);
        rc = err_set(e, why.code == ERR_NOMEM ? ERR_NOMEM : ERR_CONFIG,
                     "%s: Server.Permissions.%s%s, rule %zu: %s", where, user ? "Users." : "Default",
                     user ? user : "", i + 1, why.msg);
    }
    rules_clear(&r);
    return rc;
}

int perm_rules_check(const config_t *cfg, err_t *e)
{
    if (!cfg->permissions[0])
        return 0;   /* DTail's default, valid */
    json_error_t je;
    json_t *root = json_loads(cfg->permissions, 0, &je);
    if (!root)
        return err_set(e, ERR_CONFIG, "Server.Permissions: %s", je.text);
    int rc = 0;
    json_t *list = json_object_get(root, "Default");
    if (list)
        rc = check_list(cfg, list, NULL, e);
    const char *user;
    json_object_foreach(json_object_get(root, "Users"), user, list) {
        if (rc == 0)
            rc = check_list(cfg, list, user, e);
    }
    json_decref(root);
    return rc;
}

/* Match data is made per call (once per file opened, not per line), so
 * the rules may be shared by threads that open files at once (tail's
 * followers) without a lock. */
int perm_rules_allow(const perm_rules_t *r, const char *path)
{
    if (r->unchecked)
        return 1;
    pcre2_match_data *md = pcre2_match_data_create(1, NULL);
    if (!md)
        return 0;   /* out of memory: deny */
    int allowed = 0;
    for (size_t i = 0; i < r->n; i++) {
        int rc = pcre2_match(r->rules[i].re, (PCRE2_SPTR)path, strlen(path), 0, 0, md, NULL);
        if (rc < 0)
            continue;
        if (r->rules[i].deny) {
            allowed = 0;   /* deny wins */
            break;
        }
        allowed = 1;
    }
    pcre2_match_data_free(md);
    return allowed;
}

void perm_user_lookup(const char *user, perm_user_t *u)
{
    memset(u, 0, sizeof *u);
    struct passwd pw, *res = NULL;
    char buf[16384];
    if (!user || getpwnam_r(user, &pw, buf, sizeof buf, &res) != 0 || !res)
        return;
    u->uid = pw.pw_uid;
    u->gid = pw.pw_gid;
    int n = (int)(sizeof u->groups / sizeof u->groups[0]);
    if (getgrouplist(user, pw.pw_gid, u->groups, &n) < 0)
        n = (int)(sizeof u->groups / sizeof u->groups[0]);   /* the first 256 */
    u->n_groups = n;
    u->known = 1;
}

void perm_user_self(perm_user_t *u)
{
    memset(u, 0, sizeof *u);
    u->uid = geteuid();
    u->gid = getegid();
    int n = getgroups((int)(sizeof u->groups / sizeof u->groups[0]), u->groups);
    u->n_groups = n > 0 ? n : 0;
    u->known = 1;
}

int perm_user_in_group(const perm_user_t *u, gid_t g)
{
    if (u->gid == g)
        return 1;
    for (int i = 0; i < u->n_groups; i++)
        if (u->groups[i] == g)
            return 1;
    return 0;
}

int perm_os_mode_allows(const perm_user_t *u, const struct stat *st, unsigned want)
{
    if (!u->known)
        return 0;
    /* As the kernel: the owner class decides for the owner, the group
     * class for members, other for the rest (no root override: dserver
     * answers for the user, whatever its own privileges). */
    if (st->st_uid == u->uid)
        return ((st->st_mode >> 6) & want) == want;
    if (perm_user_in_group(u, st->st_gid))
        return ((st->st_mode >> 3) & want) == want;
    return (st->st_mode & want) == want;
}

int perm_os_may_read(const perm_user_t *u, const struct stat *st)
{
    return perm_os_mode_allows(u, st, PERM_WANT_READ);
}

enum perm_result perm_open(const perm_rules_t *r, const perm_user_t *u, const char *asked,
                           int *fd, char *canonical, size_t cap, char *detail, size_t detail_cap)
{
    *fd = -1;
    char rp[PATH_MAX], why[PATH_MAX + 256];
    if (!realpath(asked, rp)) {
        int err = errno;
        perm_absolute(asked, canonical, cap);
        snprintf(detail, detail_cap, "%s: %s", asked, strerror(err));
        if (err == ENOENT || err == ENOTDIR)
            return perm_rules_allow(r, canonical) ? PERM_NOT_FOUND : PERM_DENIED;
        return PERM_DENIED;
    }
    snprintf(canonical, cap, "%s", rp);
    if (!perm_rules_allow(r, rp)) {
        snprintf(detail, detail_cap, "%s: no rule of Server.Permissions allows %s", asked, rp);
        return PERM_DENIED;
    }
    if (perm_secret_path(&r->secrets, rp, why, sizeof why)) {
        snprintf(detail, detail_cap, "%s: %s", asked, why);
        return PERM_SECRET;
    }
    /* Opening a device can do something (a tape rewinds, a watchdog
     * starts): what is not a regular file now is not opened at all. */
    struct stat st;
    if (stat(rp, &st) == 0 && !S_ISREG(st.st_mode)) {
        snprintf(detail, detail_cap, "%s: %s is not a regular file", asked, rp);
        return PERM_NOT_REGULAR;
    }
    int f = open(rp, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
    if (f < 0) {
        int err = errno;
        snprintf(detail, detail_cap, "%s: opening %s: %s", asked, rp, strerror(err));
        return err == ENOENT ? PERM_NOT_FOUND : PERM_DENIED;
    }
    /* The descriptor must be the file that was checked: a directory
     * component swapped for a symlink since realpath shows up here. */
    char link[64], actual[PATH_MAX];
    snprintf(link, sizeof link, "/proc/self/fd/%d", f);
    ssize_t n = readlink(link, actual, sizeof actual - 1);
    if (n < 0 || (actual[n] = '\0', strcmp(actual, rp) != 0)) {
        snprintf(detail, detail_cap, "%s: %s changed while it was opened", asked, rp);
        close(f);
        return PERM_DENIED;
    }
    if (fstat(f, &st) < 0) {
        snprintf(detail, detail_cap, "%s: fstat %s: %s", asked, rp, strerror(errno));
        close(f);
        return PERM_DENIED;
    }
    if (perm_secret_fd(&r->secrets, f, &st, actual, why, sizeof why)) {
        snprintf(detail, detail_cap, "%s: %s", asked, why);
        close(f);
        return PERM_SECRET;
    }
    if (!perm_os_may_reach(u, rp, why, sizeof why)) {
        snprintf(detail, detail_cap, "%s: the user may not reach %s: %s", asked, rp, why);
        close(f);
        return PERM_DENIED;
    }
    if (!perm_os_may_read_fd(u, f, &st)) {
        snprintf(detail, detail_cap, "%s: the user may not read %s (mode %04o and its ACL)",
                 asked, rp, (unsigned)(st.st_mode & 07777));
        close(f);
        return PERM_DENIED;
    }
    if (!S_ISREG(st.st_mode)) {
        snprintf(detail, detail_cap, "%s: not a regular file", asked);
        close(f);
        return PERM_NOT_REGULAR;
    }
    /* Reading goes on in blocking mode. */
    fcntl(f, F_SETFL, fcntl(f, F_GETFL) & ~O_NONBLOCK);
    *fd = f;
    return PERM_OK;
}
