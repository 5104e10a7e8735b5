/* sshlogin.c: one public-key login over libssh as a user name given
 * verbatim, for tests of what dserver does with names real clients refuse
 * to send (OpenSSH and libssh's own user option reject control bytes):
 *
 *   sshlogin HOST PORT USER KEY
 *
 * The name goes into the userauth requests as it is (libssh's userauth
 * calls take it as an argument). The host key is not checked: a test
 * helper against its own server. Exit status: 0 authenticated, 1 refused,
 * 2 could not connect or load the key. */
#include <stdio.h>
#include <stdlib.h>

#include <libssh/libssh.h>

int main(int argc, char **argv)
{
    if (argc != 5) {
        fprintf(stderr, "usage: sshlogin HOST PORT USER KEY\n");
        return 2;
    }
    const char *user = argv[3];
    ssh_key priv = NULL, pub = NULL;
    if (ssh_pki_import_privkey_file(argv[4], NULL, NULL, NULL, &priv) != SSH_OK ||
        ssh_pki_export_privkey_to_pubkey(priv, &pub) != SSH_OK) {
        fprintf(stderr, "sshlogin: cannot load key %s\n", argv[4]);
        return 2;
    }
    ssh_session s = ssh_new();
    unsigned int port = (unsigned int)atoi(argv[2]);
    long timeout = 30;
    ssh_options_set(s, SSH_OPTIONS_HOST, argv[1]);
    ssh_options_set(s, SSH_OPTIONS_PORT, &port);
    ssh_options_set(s, SSH_OPTIONS_TIMEOUT, &timeout);
    int rc = 2;
    if (ssh_connect(s) != SSH_OK) {
        fprintf(stderr, "sshlogin: connect: %s\n", ssh_get_error(s));
        goto out;
    }
    /* The probe, then the signed attempt: dserver checks both. */
    int r = ssh_userauth_try_publickey(s, user, pub);
    if (r == SSH_AUTH_SUCCESS)
        r = ssh_userauth_publickey(s, user, priv);
    rc = r == SSH_AUTH_SUCCESS ? 0 : r == SSH_AUTH_ERROR ? 2 : 1;
    printf("%s\n", rc == 0 ? "authenticated" : rc == 1 ? "refused" : ssh_get_error(s));
out:
    ssh_disconnect(s);
    ssh_free(s);
    ssh_key_free(pub);
    ssh_key_free(priv);
    return rc;
}
