/* ssh_conn.h: one accepted connection of server/ssh_server.h, from key
 * exchange to goodbye, run on its own thread. Internal to the SSH layer. */
#ifndef DTAIL_SERVER_SSH_CONN_H
#define DTAIL_SERVER_SSH_CONN_H

#include <libssh/libssh.h>
#include <libssh/server.h>

#include "server/authlog.h"
#include "server/conn_table.h"
#include "server/ssh_server.h"

/* Takes over sess (already bound to the accepted socket by
 * ssh_bind_accept_fd) and runs the connection to its end. The caller has
 * counted it as a pre-auth connection; ssh_conn_run moves it to
 * authenticated and uncounts it at the end, calling o->changed each time.
 * entry is in table as pre-auth; it is promoted or removed, and removed
 * before return. Failed authentications go to authlog. */
void ssh_conn_run(ssh_session sess, const ssh_server_opts_t *o, conn_table_t *table,
                  conn_entry_t *entry, authlog_t *authlog);

#endif
