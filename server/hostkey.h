/* hostkey.h: dserver's SSH host keys.
 *
 * Two keys: ed25519 (what current clients pick) and RSA (HostKeyBits, for
 * old clients, as DTail's only key). The RSA key lives at Server.HostKeyFile
 * (default <CacheDir>/ssh_host_key, DTail's path), the ed25519 key beside it
 * with the suffix _ed25519. A missing key is generated and written with mode
 * 0600 through a temporary file and a rename, so a crash never leaves a
 * half-written key; an existing key is reused. A key file readable by group
 * or others is refused: a host key anyone can read is no host key. */
#ifndef DTAIL_SERVER_HOSTKEY_H
#define DTAIL_SERVER_HOSTKEY_H

#include <libssh/libssh.h>
#include <libssh/server.h>

#include "base/config.h"
#include "base/err.h"

/* Loads or generates both keys and hands them to bind (which owns them). */
int hostkey_setup(ssh_bind bind, const config_t *cfg, err_t *e);

#endif
