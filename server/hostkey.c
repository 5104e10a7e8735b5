/* hostkey.c: load or generate the host keys. */
#include "server/hostkey.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/log.h"

static int write_new_key(const char *path, ssh_key key, err_t *e)
{
    char tmp[1200];
    snprintf(tmp, sizeof tmp, "%s.tmp.%d", path, (int)getpid());
    /* Create the file 0600 first: libssh's export opens it with fopen and
     * would otherwise create it with the umask's mode. */
    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (fd < 0)
        return err_set(e, ERR_IO, "cannot create host key file %s: %s", tmp, strerror(errno));
    if (fchmod(fd, 0600) < 0) {
        int err = errno;
        close(fd);
        unlink(tmp);
        return err_set(e, ERR_IO, "cannot chmod host key file %s: %s", tmp, strerror(err));
    }
    close(fd);
    if (ssh_pki_export_privkey_file(key, NULL, NULL, NULL, tmp) != SSH_OK) {
        unlink(tmp);
        return err_set(e, ERR_IO, "cannot write host key file %s", tmp);
    }
    if (rename(tmp, path) < 0) {
        int err = errno;
        unlink(tmp);
        return err_set(e, ERR_IO, "cannot rename %s to %s: %s", tmp, path, strerror(err));
    }
    return 0;
}

/* Loads path, or generates a key of type/bits there. *out owned by caller. */
static int hostkey_load_or_create(const char *path, enum ssh_keytypes_e type, int bits,
                                  ssh_key *out, err_t *e)
{
    *out = NULL;
    struct stat st;
    if (stat(path, &st) == 0) {
        if (st.st_mode & 077)
            return err_set(e, ERR_CONFIG,
                           "host key file %s has mode %04o: it must not be readable by group or "
                           "others (chmod 600 it)",
                           path, (unsigned)(st.st_mode & 07777));
        LOG_INFO("Reading private server host key from file|%s", path);
        if (ssh_pki_import_privkey_file(path, NULL, NULL, NULL, out) != SSH_OK)
            return err_set(e, ERR_CONFIG, "cannot read host key file %s: not a private key", path);
        enum ssh_keytypes_e got = ssh_key_type(*out);
        if (got != type) {
            ssh_key_free(*out);
            *out = NULL;
            return err_set(e, ERR_CONFIG, "host key file %s holds a %s key, want %s", path,
                           ssh_key_type_to_char(got), ssh_key_type_to_char(type));
        }
        return 0;
    }
    if (errno != ENOENT)
        return err_set(e, ERR_IO, "cannot stat host key file %s: %s", path, strerror(errno));
    LOG_INFO("Generating private server %s host key|%s", ssh_key_type_to_char(type), path);
    if (ssh_pki_generate(type, bits, out) != SSH_OK)
        return err_set(e, ERR_IO, "cannot generate a %s host key", ssh_key_type_to_char(type));
    if (write_new_key(path, *out, e) < 0) {
        ssh_key_free(*out);
        *out = NULL;
        return -1;
    }
    return 0;
}

int hostkey_setup(ssh_bind bind, const config_t *cfg, err_t *e)
{
    char rsa_path[1100], ed_path[1200];
    if (cfg->host_key_file[0]) {
        snprintf(rsa_path, sizeof rsa_path, "%s", cfg->host_key_file);
    } else {
        if (mkdir(cfg->cache_dir, 0755) < 0 && errno != EEXIST)
            return err_set(e, ERR_IO, "cannot create cache directory %s: %s", cfg->cache_dir,
                           strerror(errno));
        snprintf(rsa_path, sizeof rsa_path, "%s/ssh_host_key", cfg->cache_dir);
    }
    snprintf(ed_path, sizeof ed_path, "%s_ed25519", rsa_path);
    ssh_key ed = NULL, rsa = NULL;
    if (hostkey_load_or_create(ed_path, SSH_KEYTYPE_ED25519, 0, &ed, e) < 0)
        return -1;
    if (ssh_bind_options_set(bind, SSH_BIND_OPTIONS_IMPORT_KEY, ed) != SSH_OK) {
        ssh_key_free(ed);
        return err_set(e, ERR_IO, "libssh refused the ed25519 host key %s", ed_path);
    }
    if (hostkey_load_or_create(rsa_path, SSH_KEYTYPE_RSA, cfg->host_key_bits, &rsa, e) < 0)
        return -1;
    if (ssh_bind_options_set(bind, SSH_BIND_OPTIONS_IMPORT_KEY, rsa) != SSH_OK) {
        ssh_key_free(rsa);
        return err_set(e, ERR_IO, "libssh refused the RSA host key %s", rsa_path);
    }
    return 0;
}
