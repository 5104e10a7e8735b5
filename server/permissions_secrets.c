/* permissions_secrets.c: the files dserver never serves, whatever
 * Server.Permissions says. With DTail's default rule `^/.*` and a client
 * that logs in as the user dserver runs as, the rules and the OS check
 * allow everything that user may read: the server's own host keys, the
 * authorized keys it caches, its config, and through /proc its memory map
 * and environment. So these are refused before the rules matter, by path
 * and, once open, by what the file is (its identity, its filesystem), so
 * that no symlink, hard link, bind mount or relative name leads to them. */
#include "server/permissions.h"

#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/magic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statfs.h>
#include <sys/sysmacros.h>
#include <unistd.h>

/* The kernel's trees: every file there is the kernel's, not a log. */
static const char *const kernel_trees[] = {"/proc", "/sys", "/dev"};

void perm_absolute(const char *path, char *out, size_t cap)
{
    char rp[PATH_MAX];
    if (realpath(path, rp)) {
        snprintf(out, cap, "%s", rp);
        return;
    }
    char cwd[PATH_MAX] = "/";
    if (path[0] != '/' && !getcwd(cwd, sizeof cwd))
        snprintf(cwd, sizeof cwd, "/");
    snprintf(out, cap, "%s%s%s", path[0] == '/' ? "" : cwd,
             path[0] == '/' || cwd[strlen(cwd) - 1] == '/' ? "" : "/", path);
}

/* Whether path is dir or inside it. */
static int under(const char *path, const char *dir)
{
    size_t n = strlen(dir);
    if (n == 0 || strncmp(path, dir, n) != 0)
        return 0;
    return path[n] == '\0' || path[n] == '/' || dir[n - 1] == '/';
}

static void add_file(perm_secrets_t *s, const char *path)
{
    struct stat st;
    size_t max = sizeof s->files / sizeof s->files[0];
    if (s->n_files < (int)max && stat(path, &st) == 0)
        s->files[s->n_files++] = (perm_file_id_t){st.st_dev, st.st_ino};
}

/* Filesystems without a disk of their own. Only these are taken from the
 * kernel's trees: a disk filesystem can be mounted there too (a container's
 * /dev/termination-log is a bind mount of a file on the node's disk), and
 * refusing its device would refuse every log on that disk. */
static int memory_fs(const char *type)
{
    static const char *const types[] = {
        "proc", "sysfs", "devtmpfs", "tmpfs", "ramfs", "devpts", "mqueue", "hugetlbfs",
        "cgroup", "cgroup2", "debugfs", "tracefs", "securityfs", "pstore", "bpf",
        "configfs", "fusectl", "efivarfs", "binfmt_misc", "selinuxfs", "autofs",
    };
    for (size_t i = 0; i < sizeof types / sizeof types[0]; i++)
        if (strcmp(type, types[i]) == 0)
            return 1;
    return 0;
}

/* The devices of the memory filesystems mounted at or under the kernel's
 * trees (procfs, sysfs, devtmpfs, /dev/shm's tmpfs, cgroups...): a bind
 * mount of one elsewhere has the same device. */
static void find_kernel_mounts(perm_secrets_t *s)
{
    FILE *f = fopen("/proc/self/mountinfo", "re");
    if (!f)
        return;
    char line[8192];
    size_t max = sizeof s->devs / sizeof s->devs[0];
    while (fgets(line, sizeof line, f) && s->n_devs < (int)max) {
        /* ID PARENT MAJOR:MINOR ROOT MOUNTPOINT OPTIONS [TAGS...] - TYPE ... */
        unsigned maj, min;
        char point[4096], type[64];
        const char *dash = strstr(line, " - ");
        if (!dash || sscanf(line, "%*u %*u %u:%u %*s %4095s", &maj, &min, point) != 3 ||
            sscanf(dash + 3, "%63s", type) != 1 || !memory_fs(type))
            continue;
        for (size_t i = 0; i < sizeof kernel_trees / sizeof kernel_trees[0]; i++)
            if (under(point, kernel_trees[i])) {
                s->devs[s->n_devs++] = makedev(maj, min);
                break;
            }
    }
    fclose(f);
}

void perm_secrets_init(perm_secrets_t *s, const config_t *cfg)
{
    memset(s, 0, sizeof *s);
    char key[PATH_MAX + 32];
    if (cfg->host_key_file[0])
        snprintf(key, sizeof key, "%s", cfg->host_key_file);
    else
        snprintf(key, sizeof key, "%s/ssh_host_key", cfg->cache_dir);   /* as hostkey.c */
    perm_absolute(key, s->host_key, sizeof s->host_key);
    if (cfg->cache_dir[0])
        perm_absolute(cfg->cache_dir, s->cache_dir, sizeof s->cache_dir);
    if (cfg->path[0])
        perm_absolute(cfg->path, s->config, sizeof s->config);
    /* The names hostkey.c uses (hostkey.h), and the .pub ssh-keygen leaves. */
    static const char *const suffixes[] = {"", ".pub", "_ed25519", "_ed25519.pub"};
    for (size_t i = 0; i < sizeof suffixes / sizeof suffixes[0]; i++) {
        char p[PATH_MAX + 64];
        snprintf(p, sizeof p, "%s%s", s->host_key, suffixes[i]);
        add_file(s, p);
    }
    if (s->config[0])
        add_file(s, s->config);
    find_kernel_mounts(s);
}

int perm_secret_path(const perm_secrets_t *s, const char *canonical, char *why, size_t cap)
{
    for (size_t i = 0; i < sizeof kernel_trees / sizeof kernel_trees[0]; i++)
        if (under(canonical, kernel_trees[i])) {
            snprintf(why, cap, "%s is under %s, which dserver never serves", canonical,
                     kernel_trees[i]);
            return 1;
        }
    if (s->host_key[0] && strncmp(canonical, s->host_key, strlen(s->host_key)) == 0) {
        snprintf(why, cap, "%s is a host key file of dserver", canonical);
        return 1;
    }
    if (under(canonical, s->cache_dir)) {
        snprintf(why, cap, "%s is in dserver's CacheDir", canonical);
        return 1;
    }
    if (s->config[0] && strcmp(canonical, s->config) == 0) {
        snprintf(why, cap, "%s is dserver's config file", canonical);
        return 1;
    }
    return 0;
}

/* Kernel filesystems, wherever they are mounted. */
static int kernel_fs(long type)
{
    static const long magics[] = {
        PROC_SUPER_MAGIC, SYSFS_MAGIC, DEVPTS_SUPER_MAGIC, DEBUGFS_MAGIC, SECURITYFS_MAGIC,
        CGROUP_SUPER_MAGIC, CGROUP2_SUPER_MAGIC, BPF_FS_MAGIC, PSTOREFS_MAGIC, NSFS_MAGIC,
        SELINUX_MAGIC, SMACK_MAGIC, BINFMTFS_MAGIC, EFIVARFS_MAGIC,
#ifdef TRACEFS_MAGIC
        TRACEFS_MAGIC,
#endif
    };
    for (size_t i = 0; i < sizeof magics / sizeof magics[0]; i++)
        if (type == magics[i])
            return 1;
    return 0;
}

/* A hard link to a file of CacheDir (which holds users' authorized keys)
 * has another name; only files with more than one name are looked for. */
static int cache_link(const perm_secrets_t *s, const struct stat *st, char *why, size_t cap)
{
    if (st->st_nlink < 2 || !s->cache_dir[0])
        return 0;
    DIR *d = opendir(s->cache_dir);
    if (!d)
        return 0;
    int found = 0;
    struct dirent *en;
    while (!found && (en = readdir(d))) {
        struct stat cs;
        if (fstatat(dirfd(d), en->d_name, &cs, AT_SYMLINK_NOFOLLOW) == 0 &&
            cs.st_dev == st->st_dev && cs.st_ino == st->st_ino) {
            snprintf(why, cap, "a hard link to %s/%s in dserver's CacheDir", s->cache_dir, en->d_name);
            found = 1;
        }
    }
    closedir(d);
    return found;
}

int perm_secret_fd(const perm_secrets_t *s, int fd, const struct stat *st, const char *canonical,
                   char *why, size_t cap)
{
    if (perm_secret_path(s, canonical, why, cap))
        return 1;
    struct statfs fs;
    if (fstatfs(fd, &fs) < 0) {
        snprintf(why, cap, "%s: its filesystem is unknown (fstatfs failed)", canonical);
        return 1;
    }
    if (kernel_fs((long)fs.f_type)) {
        snprintf(why, cap, "%s is on a kernel filesystem (magic 0x%lx)", canonical, (long)fs.f_type);
        return 1;
    }
    for (int i = 0; i < s->n_devs; i++)
        if (st->st_dev == s->devs[i]) {
            snprintf(why, cap, "%s is on a filesystem mounted under /proc, /sys or /dev", canonical);
            return 1;
        }
    for (int i = 0; i < s->n_files; i++)
        if (st->st_dev == s->files[i].dev && st->st_ino == s->files[i].ino) {
            snprintf(why, cap, "%s is dserver's config or host key file (another name of it)",
                     canonical);
            return 1;
        }
    return cache_link(s, st, why, cap);
}
