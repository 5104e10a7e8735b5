/* lazy_lib.h: libssh and libedit, loaded by the clients when first needed.
 *
 * Linked at start, the two and what they pull in (libcrypto, Kerberos,
 * libtinfo, libbsd, ...) cost every client run about 2 ms of dynamic
 * loading and symbol binding: most of a serverless dgrep over a small file,
 * and 7 % of a 100 MB dmap. Only fan-out (--servers) and the interactive
 * query use them. Their headers still come from pkg-config and the sonames
 * are those of the libraries pkg-config found (client/CMakeLists.txt).
 *
 * Calls go through the tables, by the library's own names:
 * ssh_api.ssh_new(), edit_api.el_init(). */
#ifndef DTAIL_CLIENT_LAZY_LIB_H
#define DTAIL_CLIENT_LAZY_LIB_H

#include <stdio.h>

#include <histedit.h>
#include <libssh/libssh.h>

#include "base/dynlib.h"
#include "base/err.h"

#define SSH_API_FUNCS(X)                                                                    \
    X(ssh_channel_close) X(ssh_channel_free) X(ssh_channel_is_closed) X(ssh_channel_is_eof) \
    X(ssh_channel_is_open) X(ssh_channel_new) X(ssh_channel_open_session)                   \
    X(ssh_channel_read_timeout) X(ssh_channel_request_shell) X(ssh_channel_send_eof)        \
    X(ssh_channel_write) X(ssh_clean_pubkey_hash) X(ssh_connect) X(ssh_disconnect)          \
    X(ssh_free) X(ssh_get_error) X(ssh_get_fd) X(ssh_get_fingerprint_hash)                  \
    X(ssh_get_publickey_hash) X(ssh_get_server_publickey) X(ssh_key_free) X(ssh_new)        \
    X(ssh_options_set) X(ssh_pki_import_privkey_file) X(ssh_service_request)                \
    X(ssh_session_is_known_server) X(ssh_session_update_known_hosts) X(ssh_set_agent_socket)  \
    X(ssh_set_blocking) X(ssh_string_free_char)                                                                 \
    X(ssh_userauth_password) X(ssh_userauth_publickey) X(ssh_userauth_publickey_auto)

#define EDIT_API_FUNCS(X)                                                                   \
    X(el_deletestr) X(el_end) X(el_get) X(el_gets) X(el_init) X(el_insertstr) X(el_line)    \
    X(el_reset) X(el_resize) X(el_set) X(el_wset) X(history) X(history_end)                 \
    X(history_init)

typedef struct ssh_api {
    SSH_API_FUNCS(DYNLIB_SLOT)
} ssh_api_t;
typedef struct edit_api {
    EDIT_API_FUNCS(DYNLIB_SLOT)
} edit_api_t;

extern ssh_api_t ssh_api;
extern edit_api_t edit_api;

/* Load the library and fill its table, once for the process
 * (base/dynlib.h): 0, or -1 with e naming the library and what went
 * wrong (later calls give the same error). */
int ssh_api_load(err_t *e);
int edit_api_load(err_t *e);

#endif
