/* permissions_acl.c: "may this user read this file" (and search the
 * directories above it) by its POSIX access ACL, evaluated as the kernel
 * does (acl(5), "Access check algorithm"): the owner entry for the owner;
 * else a named-user entry for the user, limited by the mask; else, if any
 * group entry (owning group or named group) names one of the user's groups,
 * the permission is granted when one of those entries, limited by the mask,
 * grants it; else the other entry. A file without extended entries is
 * decided by its mode bits, which are the ACL. */
#include "server/permissions.h"

#include <acl/libacl.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/acl.h>

/* Whether the entry grants perm (ACL_READ, ACL_EXECUTE). */
static int entry_grants(acl_entry_t en, acl_perm_t perm)
{
    acl_permset_t ps;
    return acl_get_permset(en, &ps) == 0 && acl_get_perm(ps, perm) == 1;
}

/* The entry's user or group id (named entries only). */
static int entry_id(acl_entry_t en, unsigned *id)
{
    void *q = acl_get_qualifier(en);
    if (!q)
        return -1;
    *id = *(unsigned *)q;
    acl_free(q);
    return 0;
}

static int evaluate(const perm_user_t *u, const struct stat *st, acl_t acl, acl_perm_t perm)
{
    int mask_reads = 1;
    int named_user = -1;             /* -1: none for u; else whether it reads */
    int group_matched = 0, group_reads = 0;
    int owner_reads = 0, other_reads = 0;
    acl_entry_t en;
    for (int w = ACL_FIRST_ENTRY; acl_get_entry(acl, w, &en) == 1; w = ACL_NEXT_ENTRY) {
        acl_tag_t tag;
        unsigned id;
        if (acl_get_tag_type(en, &tag) < 0)
            return 0;
        switch (tag) {
        case ACL_USER_OBJ: owner_reads = entry_grants(en, perm); break;
        case ACL_OTHER: other_reads = entry_grants(en, perm); break;
        case ACL_MASK: mask_reads = entry_grants(en, perm); break;
        case ACL_USER:
            if (entry_id(en, &id) == 0 && id == u->uid)
                named_user = entry_grants(en, perm);
            break;
        case ACL_GROUP_OBJ:
            if (perm_user_in_group(u, st->st_gid)) {
                group_matched = 1;
                group_reads |= entry_grants(en, perm);
            }
            break;
        case ACL_GROUP:
            if (entry_id(en, &id) == 0 && perm_user_in_group(u, (gid_t)id)) {
                group_matched = 1;
                group_reads |= entry_grants(en, perm);
            }
            break;
        default:
            break;
        }
    }
    if (st->st_uid == u->uid)
        return owner_reads;
    if (named_user >= 0)
        return named_user && mask_reads;
    if (group_matched)
        return group_reads && mask_reads;
    return other_reads;
}

int perm_os_may_read_fd(const perm_user_t *u, int fd, const struct stat *st)
{
    if (!u->known)
        return 0;
    acl_t acl = acl_get_fd(fd);
    if (!acl)   /* no ACL support here (ENOTSUP): the mode bits decide */
        return perm_os_may_read(u, st);
    int rc = acl_equiv_mode(acl, NULL) == 0 ? perm_os_may_read(u, st) : evaluate(u, st, acl, ACL_READ);
    acl_free(acl);
    return rc;
}

/* Whether u may search the directory dir (by path: dserver may hold no
 * descriptor of a directory it can only search). */
static int may_search(const perm_user_t *u, const char *dir)
{
    struct stat st;
    if (stat(dir, &st) < 0 || !S_ISDIR(st.st_mode))
        return 0;
    acl_t acl = acl_get_file(dir, ACL_TYPE_ACCESS);
    if (!acl)
        return perm_os_mode_allows(u, &st, PERM_WANT_SEARCH);
    int rc = acl_equiv_mode(acl, NULL) == 0 ? perm_os_mode_allows(u, &st, PERM_WANT_SEARCH)
                                             : evaluate(u, &st, acl, ACL_EXECUTE);
    acl_free(acl);
    return rc;
}

int perm_os_may_reach(const perm_user_t *u, const char *canonical, char *why, size_t cap)
{
    if (!u->known) {
        snprintf(why, cap, "unknown user");
        return 0;
    }
    char dir[PATH_MAX];
    snprintf(dir, sizeof dir, "%s", canonical);
    /* "/", then "/a", "/a/b"... up to the file's own directory. */
    for (char *slash = strchr(dir, '/'); slash; slash = strchr(slash + 1, '/')) {
        char keep = slash[slash == dir];
        slash[slash == dir] = '\0';
        int ok = may_search(u, dir);
        if (!ok)
            snprintf(why, cap, "no search permission on %s", dir);
        slash[slash == dir] = keep;
        if (!ok)
            return 0;
    }
    return 1;
}
