/* permissions.h: may this SSH user read this file (shared reference §5.5)?
 *
 * All of these must pass:
 *  - the config rules: Server.Permissions.Users[user] if present, else
 *    Default; each `[readfiles:][!]REGEX` (PCRE2, unanchored unless the rule
 *    anchors itself) matched against the canonical (symlink-resolved,
 *    absolute) path; any matching deny rule rejects, otherwise at least one
 *    allow rule must match;
 *  - it is none of dserver's secrets, whatever the rules say
 *    (permissions_secrets.c): its host keys (and every name that starts
 *    with the RSA key's), its CacheDir, its config file, compared by path
 *    and by the identity (device, inode) of the opened file, so no link
 *    leads there; nothing under /proc, /sys or /dev, by the kernel's path of
 *    the opened file, the filesystems mounted there and the magic of the
 *    file's filesystem (procfs, sysfs, devpts, debugfs... wherever mounted);
 *  - the operating system's answer for that user: search permission on
 *    every directory above the file, as the kernel's path walk asks, and
 *    read permission on the file itself, both by the POSIX access ACL where
 *    there is one (permissions_acl.c), else by the owner, group (the user's
 *    primary and supplementary groups) and other bits. No root override:
 *    dserver answers for the user, whatever its own privileges.
 * Only regular files are served.
 *
 * perm_open does all of it and opens the file so that a symlink swapped in
 * after the check cannot redirect it: the canonical path is opened with
 * O_NOFOLLOW and the kernel's path of the opened descriptor must equal the
 * path that was checked; the OS check runs on the descriptor's own fstat.
 * A device, FIFO or directory is refused before it is opened. The client is
 * never told which check refused a file, nor whether it exists (session.c):
 * the result says it for the server's log only. */
#ifndef DTAIL_SERVER_PERMISSIONS_H
#define DTAIL_SERVER_PERMISSIONS_H

#include <sys/stat.h>
#include <sys/types.h>

#include "base/config.h"
#include "base/err.h"

typedef struct perm_rules perm_rules_t;

/* The files dserver never serves (permissions_secrets.c). */
typedef struct perm_file_id {
    dev_t dev;
    ino_t ino;
} perm_file_id_t;

typedef struct perm_secrets {
    char cache_dir[4096];        /* canonical CacheDir, "" when unset */
    char host_key[4096];         /* canonical RSA host key path: it, and every
                                    path that starts with it (_ed25519, .pub) */
    char config[4096];           /* canonical config file, "" when none */
    perm_file_id_t files[8];     /* the host keys, their .pub, the config */
    int n_files;
    dev_t devs[64];              /* filesystems mounted at or under /proc,
                                    /sys, /dev (mountinfo) */
    int n_devs;
} perm_secrets_t;

/* Finds them for cfg (paths resolved from the working directory). Files
 * that do not exist yet are still refused by path. */
void perm_secrets_init(perm_secrets_t *s, const config_t *cfg);
/* 1 (with why) when the canonical path is one of them, before opening. */
int perm_secret_path(const perm_secrets_t *s, const char *canonical, char *why, size_t cap);
/* 1 (with why) when the open file fd (st: its fstat; canonical: its
 * kernel path) is one of them: by path, filesystem, or identity, also a
 * hard link to a file in CacheDir. */
int perm_secret_fd(const perm_secrets_t *s, int fd, const struct stat *st, const char *canonical,
                   char *why, size_t cap);
/* path made absolute: resolved (realpath) when it exists, else lexically
 * from the working directory. */
void perm_absolute(const char *path, char *out, size_t cap);

/* Compiles the rules that apply to user, and finds cfg's secrets. An
 * invalid rule is an error naming it (DTail: an invalid regex denies);
 * dserver checks every rule at start-up (perm_rules_check), so a session
 * meets only out of memory here. The message holds the rule: it is for the
 * server's log, not a client. */
perm_rules_t *perm_rules_new(const config_t *cfg, const char *user, err_t *e);
/* Rules that allow every path, the secrets still refused: a job of the
 * server's own (server/jobs.h) reads the files its operator configured,
 * as DTail's DTAIL-SCHEDULE and DTAIL-CONTINUOUS users skip the rules.
 * Never for a user who logs in. */
perm_rules_t *perm_rules_new_unchecked(const config_t *cfg, err_t *e);
/* Compiles every rule list of Server.Permissions (Default and each user's)
 * once: an invalid rule is an error naming the key, the rule's position
 * and the file and line (config_where), so dserver refuses to start
 * rather than fail a user's sessions later. */
int perm_rules_check(const config_t *cfg, err_t *e);
void perm_rules_free(perm_rules_t *r);
/* 1 if the rules allow reading canonical_path, else 0. */
int perm_rules_allow(const perm_rules_t *r, const char *canonical_path);

typedef struct perm_user {
    uid_t uid;                /* of the SSH user */
    gid_t gid;                /* primary group */
    gid_t groups[256];        /* supplementary groups (getgrouplist) */
    int n_groups;             /* used */
    int known;                /* the user exists on this host */
} perm_user_t;

/* Looks the user up (getpwnam_r, getgrouplist). An unknown user is not an
 * error: known stays 0 and every OS check denies. */
void perm_user_lookup(const char *user, perm_user_t *u);
/* The user dserver itself runs as (its effective uid, gid and groups):
 * the OS check then asks what the kernel lets dserver read. */
void perm_user_self(perm_user_t *u);
/* Whether g is u's primary or one of its supplementary groups. */
int perm_user_in_group(const perm_user_t *u, gid_t g);
/* Whether u has the permissions want (PERM_WANT_*, as the bits of one
 * class of a mode) on a file with this stat by its mode bits. */
enum { PERM_WANT_SEARCH = 1, PERM_WANT_READ = 4 };
int perm_os_mode_allows(const perm_user_t *u, const struct stat *st, unsigned want);
/* Whether u may read a file with this stat by its mode bits. */
int perm_os_may_read(const perm_user_t *u, const struct stat *st);
/* The same for the open file fd, by its POSIX access ACL where it has
 * extended entries (permissions_acl.c), else by its mode bits. */
int perm_os_may_read_fd(const perm_user_t *u, int fd, const struct stat *st);
/* Whether u may search every directory above the canonical path (by each
 * one's access ACL or mode bits), as the kernel asks before it opens the
 * file for u; else 0 and the first directory it may not search in why. */
int perm_os_may_reach(const perm_user_t *u, const char *canonical, char *why, size_t cap);

/* Why perm_open refused, for the server's log and the tail's follower; the
 * client hears the same for all of them. */
enum perm_result {
    PERM_OK = 0,          /* *fd is open for reading */
    PERM_NOT_FOUND,       /* allowed by rule, but no such file */
    PERM_DENIED,          /* by rule, by the OS check, or a swapped path */
    PERM_NOT_REGULAR,     /* a directory, device, fifo... */
    PERM_SECRET,          /* one of dserver's secrets (perm_secrets_t) */
};

/* Checks and opens `asked` (relative to the server's working directory)
 * for u. On PERM_OK *fd is the open descriptor and canonical (cap bytes)
 * the path checked. detail receives a reason for the server's log; it is
 * never sent to the client. */
enum perm_result perm_open(const perm_rules_t *r, const perm_user_t *u, const char *asked,
                           int *fd, char *canonical, size_t cap, char *detail, size_t detail_cap);

#endif
