/* test_permissions.c: Server.Permissions rules (deny wins, per-user lists,
 * invalid regexes), the OS mode-bit check for a user, and perm_open: the
 * canonical path, symlinks out of the allowed tree, non-regular files,
 * and a denial that does not reveal whether the file exists. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <fcntl.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <sys/acl.h>

#include "base/config.h"
#include "server/permissions.h"
#include "tests/support/tmpdir.h"

static char dir[256];

static void write_file(const char *path, mode_t mode)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs("hello\n", f);
    fclose(f);
    chmod(path, mode);
}

/* A hard link; the test is skipped where the filesystem has none. */
static int link_or_skip(const char *from, const char *to)
{
    if (link(from, to) < 0) {
        print_message("SKIP: no hard links in %s\n", dir);
        skip();
    }
    return 0;
}

static int setup(void **state)
{
    (void)state;
    assert_int_equal(tmpdir_make(dir, sizeof dir, "test_permissions"), 0);
    char *resolved = realpath(dir, NULL);
    snprintf(dir, sizeof dir, "%s", resolved);
    free(resolved);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    return tmpdir_remove(dir);
}

static perm_rules_t *rules_for(const char *json, const char *user)
{
    config_t c;
    config_defaults(&c);
    snprintf(c.permissions, sizeof c.permissions, "%s", json);
    err_t e;
    perm_rules_t *r = perm_rules_new(&c, user, &e);
    assert_non_null(r);
    return r;
}

static void test_rules(void **state)
{
    (void)state;
    perm_rules_t *r = rules_for("{\"Default\":[\"readfiles:^/var/log/\",\"readfiles:!^/var/log/secret\","
                                "\"^/tmp/.*\\\\.log$\",\"otherkind:^/etc/\"],"
                                "\"Users\":{\"alice\":[\"^/home/alice/\"]}}", "bob");
    assert_true(perm_rules_allow(r, "/var/log/syslog"));
    assert_false(perm_rules_allow(r, "/var/log/secret.log"));   /* deny wins */
    assert_true(perm_rules_allow(r, "/tmp/x.log"));             /* no type: readfiles */
    assert_false(perm_rules_allow(r, "/tmp/x.txt"));
    assert_false(perm_rules_allow(r, "/etc/passwd"));           /* other types are not read rules */
    perm_rules_free(r);
    /* A user with an entry gets that list only (not merged with Default). */
    r = rules_for("{\"Default\":[\"^/var/log/\"],\"Users\":{\"alice\":[\"^/home/alice/\"]}}", "alice");
    assert_true(perm_rules_allow(r, "/home/alice/a.log"));
    assert_false(perm_rules_allow(r, "/var/log/syslog"));
    perm_rules_free(r);
    /* DTail's default allows every absolute path. */
    r = rules_for("", "anyone");
    assert_true(perm_rules_allow(r, "/etc/hostname"));
    perm_rules_free(r);
    /* No rule: deny. */
    r = rules_for("{\"Default\":[]}", "x");
    assert_false(perm_rules_allow(r, "/etc/hostname"));
    perm_rules_free(r);
    /* An invalid regex is an error naming the rule. */
    config_t c;
    config_defaults(&c);
    snprintf(c.permissions, sizeof c.permissions, "{\"Default\":[\"readfiles:^/var/(log\"]}");
    err_t e;
    assert_null(perm_rules_new(&c, "x", &e));
    assert_non_null(strstr(e.msg, "^/var/(log"));
}

/* dserver's start-up check: every list is compiled, Default and each
 * user's, and the first invalid rule is named with its key and place. */
static void test_rules_check(void **state)
{
    (void)state;
    config_t c;
    config_defaults(&c);
    err_t e;
    assert_int_equal(perm_rules_check(&c, &e), 0);   /* DTail's default */
    snprintf(c.permissions, sizeof c.permissions,
             "{\"Default\":[\"^/\",\"otherkind:(\"],\"Users\":{\"a\":[],\"b\":[\"readfiles:!x\"]}}");
    assert_int_equal(perm_rules_check(&c, &e), 0);   /* other kinds are not compiled */
    snprintf(c.permissions, sizeof c.permissions, "{\"Default\":[\"^/\",\"readfiles:^/var/(log\"]}");
    assert_int_equal(perm_rules_check(&c, &e), -1);
    assert_int_equal(e.code, ERR_CONFIG);
    assert_non_null(strstr(e.msg, "config: Server.Permissions.Default, rule 2: rule \"readfiles:^/var/(log\": "
                                  "invalid regex at offset"));
    /* A user whose sessions would all fail, while Default is fine. */
    snprintf(c.permissions, sizeof c.permissions,
             "{\"Default\":[\"^/\"],\"Users\":{\"a\":[\"^/a\"],\"x\":[\"^/x\",\"^/y\",\"!*\"]}}");
    assert_int_equal(perm_rules_check(&c, &e), -1);
    assert_non_null(strstr(e.msg, "Server.Permissions.Users.x, rule 3: rule \"!*\": invalid regex"));
}

static void test_os_bits(void **state)
{
    (void)state;
    perm_user_t u = {.uid = 1000, .gid = 100, .groups = {100, 20}, .n_groups = 2, .known = 1};
    struct stat st = {.st_uid = 1000, .st_gid = 5, .st_mode = S_IFREG | 0400};
    assert_true(perm_os_may_read(&u, &st));
    st.st_mode = S_IFREG | 0044;   /* the owner class decides for the owner */
    assert_false(perm_os_may_read(&u, &st));
    st.st_uid = 1;
    st.st_gid = 20;                /* a supplementary group */
    st.st_mode = S_IFREG | 0040;
    assert_true(perm_os_may_read(&u, &st));
    st.st_mode = S_IFREG | 0004;   /* member of the group class: other bits do not apply */
    assert_false(perm_os_may_read(&u, &st));
    st.st_gid = 7;
    assert_true(perm_os_may_read(&u, &st));
    st.st_mode = S_IFREG | 0660;
    assert_false(perm_os_may_read(&u, &st));
    u.known = 0;                   /* an unknown user reads nothing */
    st.st_mode = S_IFREG | 0444;
    assert_false(perm_os_may_read(&u, &st));
}

/* Sets the access ACL text on path; 0, or -1 when the file system takes none. */
static int set_acl(const char *path, const char *text)
{
    acl_t acl = acl_from_text(text);
    assert_non_null(acl);
    int rc = acl_set_file(path, ACL_TYPE_ACCESS, acl);
    acl_free(acl);
    return rc;
}

/* ACL text applied to a fresh file owned by the test's user; returns the
 * answer for u, or -1 when the file system takes no ACLs. */
static int acl_case(const perm_user_t *u, const char *text)
{
    char path[512];
    snprintf(path, sizeof path, "%s/acl.log", dir);
    write_file(path, 0600);
    if (set_acl(path, text) < 0)
        return -1;
    int fd = open(path, O_RDONLY);
    assert_true(fd >= 0);
    struct stat st;
    assert_int_equal(fstat(fd, &st), 0);
    int rc = perm_os_may_read_fd(u, fd, &st);
    close(fd);
    unlink(path);
    return rc;
}

/* POSIX ACLs decide where a file has extended entries: a named user or
 * group entry grants what its mode bits would not, the mask limits it, and
 * a group entry that matches without read denies (other does not apply). */
static void test_os_acl(void **state)
{
    (void)state;
    perm_user_t u = {.uid = 4242, .gid = 4242, .groups = {4242, 77}, .n_groups = 2, .known = 1};
    int rc = acl_case(&u, "u::rw-,u:4242:r--,g::---,m::r--,o::---");
    if (rc < 0)
        skip();   /* no ACLs on this file system */
    assert_int_equal(rc, 1);
    assert_int_equal(acl_case(&u, "u::rw-,u:4242:r--,g::---,m::---,o::r--"), 0);
    assert_int_equal(acl_case(&u, "u::rw-,u:4243:r--,g::---,g:77:r--,m::r--,o::---"), 1);
    assert_int_equal(acl_case(&u, "u::rw-,u:4243:r--,g::---,g:77:---,m::r--,o::r--"), 0);
    assert_int_equal(acl_case(&u, "u::rw-,u:4243:r--,g::---,g:78:r--,m::r--,o::r--"), 1);
    /* Without extended entries the mode bits decide (0600, not the owner). */
    assert_int_equal(acl_case(&u, "u::rw-,g::---,o::---"), 0);
    assert_int_equal(acl_case(&u, "u::rw-,g::---,o::r--"), 1);
}

static enum perm_result try_open(const perm_rules_t *r, const perm_user_t *u, const char *path,
                                 char *detail)
{
    char canonical[4096];
    int fd = -1;
    enum perm_result pr = perm_open(r, u, path, &fd, canonical, sizeof canonical, detail, 1024);
    if (pr == PERM_OK) {
        assert_true(fd >= 0);
        close(fd);
    } else {
        assert_int_equal(fd, -1);
    }
    return pr;
}

/* The user running the test, as the SSH user; returns its name. */
static const char *me(perm_user_t *u)
{
    static char name[256];
    struct passwd *pw = getpwuid(getuid());
    assert_non_null(pw);
    snprintf(name, sizeof name, "%s", pw->pw_name);
    perm_user_lookup(name, u);
    assert_true(u->known);
    return name;
}

static void test_open(void **state)
{
    (void)state;
    perm_user_t u;
    const char *name = me(&u);
    char allowed[512], outside[512], path[1024], json[1024], detail[1024];
    snprintf(allowed, sizeof allowed, "%s/allowed", dir);
    snprintf(outside, sizeof outside, "%s/outside", dir);
    mkdir(allowed, 0755);
    mkdir(outside, 0755);
    snprintf(json, sizeof json, "{\"Default\":[\"^%s/\"]}", allowed);
    perm_rules_t *r = rules_for(json, name);

    snprintf(path, sizeof path, "%s/ok.log", allowed);
    write_file(path, 0644);
    assert_int_equal(try_open(r, &u, path, detail), PERM_OK);
    /* Mode bits: the owner may not read. */
    snprintf(path, sizeof path, "%s/wo.log", allowed);
    write_file(path, 0200);
    assert_int_equal(try_open(r, &u, path, detail), PERM_DENIED);
    assert_non_null(strstr(detail, "may not read"));
    /* A file of another owner without read for others. */
    snprintf(path, sizeof path, "%s/other.log", allowed);
    write_file(path, 0640);
    if (chown(path, 54321, 54321) == 0)
        assert_int_equal(try_open(r, &u, path, detail), PERM_DENIED);
    /* Outside the rules: denied whether or not it exists. */
    char secret[1024];
    snprintf(secret, sizeof secret, "%s/secret.log", outside);
    write_file(secret, 0644);
    assert_int_equal(try_open(r, &u, secret, detail), PERM_DENIED);
    snprintf(path, sizeof path, "%s/missing.log", outside);
    assert_int_equal(try_open(r, &u, path, detail), PERM_DENIED);
    /* Inside the rules, missing: not found. */
    snprintf(path, sizeof path, "%s/missing.log", allowed);
    assert_int_equal(try_open(r, &u, path, detail), PERM_NOT_FOUND);
    /* A symlink in the allowed tree pointing out of it. */
    snprintf(path, sizeof path, "%s/link.log", allowed);
    assert_int_equal(symlink(secret, path), 0);
    assert_int_equal(try_open(r, &u, path, detail), PERM_DENIED);
    /* A directory symlink pointing out of it. */
    snprintf(path, sizeof path, "%s/dirlink", allowed);
    assert_int_equal(symlink(outside, path), 0);
    snprintf(path, sizeof path, "%s/dirlink/secret.log", allowed);
    assert_int_equal(try_open(r, &u, path, detail), PERM_DENIED);
    /* A symlink inside the tree to a file inside it is fine. */
    snprintf(path, sizeof path, "%s/good.link", allowed);
    snprintf(secret, sizeof secret, "%s/ok.log", allowed);
    assert_int_equal(symlink(secret, path), 0);
    assert_int_equal(try_open(r, &u, path, detail), PERM_OK);
    /* Not a regular file. */
    snprintf(path, sizeof path, "%s/sub", allowed);
    mkdir(path, 0755);
    assert_int_equal(try_open(r, &u, path, detail), PERM_NOT_REGULAR);
    /* A relative name resolves from the working directory. */
    char cwd[1024];
    assert_non_null(getcwd(cwd, sizeof cwd));
    assert_int_equal(chdir(allowed), 0);
    assert_int_equal(try_open(r, &u, "ok.log", detail), PERM_OK);
    assert_int_equal(chdir(cwd), 0);
    perm_rules_free(r);
    /* A user unknown to the system reads nothing. */
    perm_user_t nobody;
    perm_user_lookup("no-such-user-dtail-test", &nobody);
    r = rules_for("", "x");
    snprintf(path, sizeof path, "%s/ok.log", allowed);
    assert_int_equal(try_open(r, &nobody, path, detail), PERM_DENIED);
    perm_rules_free(r);
}

/* Search permission on the directories above a file, by mode bits and by
 * ACL: a named user entry lets in whom the bits would not, the mask limits
 * it. */
static void test_reach(void **state)
{
    (void)state;
    perm_user_t u = {.uid = 4242, .gid = 4242, .groups = {4242}, .n_groups = 1, .known = 1};
    char sub[512], file[600], why[1024];
    snprintf(sub, sizeof sub, "%s/reach", dir);
    snprintf(file, sizeof file, "%s/x.log", sub);
    assert_int_equal(mkdir(sub, 0711), 0);
    struct stat top;
    assert_int_equal(stat(dir, &top), 0);
    assert_int_equal(chmod(dir, 0711), 0);
    assert_true(perm_os_may_reach(&u, file, why, sizeof why));
    assert_int_equal(chmod(sub, 0700), 0);
    assert_false(perm_os_may_reach(&u, file, why, sizeof why));
    assert_non_null(strstr(why, sub));
    if (set_acl(sub, "u::rwx,u:4242:--x,g::---,m::--x,o::---") == 0) {
        assert_true(perm_os_may_reach(&u, file, why, sizeof why));
        assert_int_equal(set_acl(sub, "u::rwx,u:4242:--x,g::---,m::---,o::---"), 0);
        assert_false(perm_os_may_reach(&u, file, why, sizeof why));
    } else {
        print_message("no ACLs in %s: the ACL cases are not run\n", dir);
    }
    assert_int_equal(chmod(dir, top.st_mode & 07777), 0);
    assert_int_equal(rmdir(sub), 0);
}

/* dserver's own files and the kernel's, whatever the rules say (here
 * "^/": everything), by path, through links, and by what the open file is;
 * and the search permission on the directories above a file. */
static void test_secrets_and_reach(void **state)
{
    (void)state;
    perm_user_t u;
    const char *name = me(&u);
    char cache[512], key[600], cfgp[600], path[1024], link[1024], detail[1024];
    snprintf(cache, sizeof cache, "%s/cache", dir);
    mkdir(cache, 0755);
    snprintf(key, sizeof key, "%s/ssh_host_key", cache);
    write_file(key, 0600);
    snprintf(path, sizeof path, "%s_ed25519", key);
    write_file(path, 0600);
    snprintf(cfgp, sizeof cfgp, "%s/dtail.json", dir);
    write_file(cfgp, 0644);
    config_t c;
    config_defaults(&c);
    snprintf(c.cache_dir, sizeof c.cache_dir, "%s", cache);
    snprintf(c.path, sizeof c.path, "%s", cfgp);
    snprintf(c.permissions, sizeof c.permissions, "{\"Default\":[\"^/\"]}");
    err_t e;
    perm_rules_t *r = perm_rules_new(&c, name, &e);
    assert_non_null(r);
    assert_int_equal(try_open(r, &u, key, detail), PERM_SECRET);
    assert_int_equal(try_open(r, &u, path, detail), PERM_SECRET);
    assert_int_equal(try_open(r, &u, cfgp, detail), PERM_SECRET);
    snprintf(path, sizeof path, "%s/%s.authorized_keys", cache, name);
    write_file(path, 0644);
    assert_int_equal(try_open(r, &u, path, detail), PERM_SECRET);
    /* Through another name: a symlink, hard links. */
    snprintf(link, sizeof link, "%s/key.link", dir);
    assert_int_equal(symlink(key, link), 0);
    assert_int_equal(try_open(r, &u, link, detail), PERM_SECRET);
    snprintf(link, sizeof link, "%s/key.hard", dir);
    assert_int_equal(link_or_skip(key, link), 0);
    assert_int_equal(try_open(r, &u, link, detail), PERM_SECRET);
    assert_non_null(strstr(detail, "another name"));
    snprintf(link, sizeof link, "%s/keys.hard", dir);
    assert_int_equal(link_or_skip(path, link), 0);
    assert_int_equal(try_open(r, &u, link, detail), PERM_SECRET);
    assert_non_null(strstr(detail, "hard link"));
    snprintf(link, sizeof link, "%s/cfg.hard", dir);
    assert_int_equal(link_or_skip(cfgp, link), 0);
    assert_int_equal(try_open(r, &u, link, detail), PERM_SECRET);
    /* The kernel's trees. */
    assert_int_equal(try_open(r, &u, "/proc/self/status", detail), PERM_SECRET);
    assert_int_equal(try_open(r, &u, "/dev/null", detail), PERM_SECRET);
    /* An ordinary file beside them is served. */
    snprintf(path, sizeof path, "%s/plain.log", dir);
    write_file(path, 0644);
    assert_int_equal(try_open(r, &u, path, detail), PERM_OK);
    /* No search permission on a directory above it: as the kernel, no. */
    snprintf(path, sizeof path, "%s/closed", dir);
    mkdir(path, 0755);
    snprintf(link, sizeof link, "%s/closed/in.log", dir);
    write_file(link, 0644);
    assert_int_equal(chmod(path, 0600), 0);
    assert_int_equal(try_open(r, &u, link, detail), PERM_DENIED);
    if (getuid() == 0)   /* dserver (root here) opens it; the check refuses */
        assert_non_null(strstr(detail, "no search permission on"));
    assert_int_equal(chmod(path, 0755), 0);
    assert_int_equal(try_open(r, &u, link, detail), PERM_OK);
    perm_rules_free(r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rules),
        cmocka_unit_test(test_rules_check),
        cmocka_unit_test(test_os_bits),
        cmocka_unit_test(test_os_acl),
        cmocka_unit_test(test_open),
        cmocka_unit_test(test_secrets_and_reach),
        cmocka_unit_test(test_reach),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
