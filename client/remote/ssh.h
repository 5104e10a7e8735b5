/* ssh.h: the client side of the SSH transport (libssh).
 *
 * ssh_client_open connects with a timeout and TCP_NODELAY, checks the host
 * key against known_hosts (DTail's trust prompt on a terminal, or
 * --trustAllHosts; new entries are written as [host]:port, mode 0600),
 * authenticates (a password only for DTail's special users; else --key, or
 * ssh-agent keys then ~/.ssh/id_ed25519, id_ecdsa, id_rsa; --agentKeyIndex
 * narrows the agent to one key, docs/fanout.md "Keys"), opens a session
 * channel with a "shell" request and wraps it as a stream_t.
 *
 * The stream reads with a large count (4 MiB), which is what makes libssh
 * grow the channel window: at 50 ms round trip the default window alone
 * allows 12.5 MB/s. Writes block until the window takes them. */
#ifndef DTAIL_CLIENT_SSH_CLIENT_H
#define DTAIL_CLIENT_SSH_CLIENT_H

#include <stdio.h>

#include "base/err.h"
#include "wire/stream.h"

typedef struct ssh_client_opts {
    const char *user;          /* --user, else $USER / getpwuid */
    const char *key_path;      /* --key; NULL: ssh-agent keys, then ~/.ssh/id_ed25519, ~/.ssh/id_rsa */
    const char *password;      /* only for DTail's special users (dtailhealth: DTAIL-HEALTH) */
    const char *known_hosts;   /* NULL: ~/.ssh/known_hosts */
    int trust_all_hosts;       /* --trustAllHosts */
    int agent_key_pick;        /* --agentKeyIndex + 1: only that ssh-agent key is
                                  offered (client/remote/agent_filter.h); 0: all */
    int connect_timeout_ms;    /* Common.SSHConnectTimeoutMs, default 2000 */
    int no_host_key_check;     /* dtailhealth: DTail's health check trusts any host key
                                  and records none */
    size_t read_max;           /* largest read from the channel, which is also how
                                  far libssh lets the receive window grow: the
                                  client memory one server may fill; 0: 4 MiB */
} ssh_client_opts_t;

/* Connects to host:port, authenticates, opens a session channel with a
 * "shell" request, and wraps it as *out. Errors (here and from the
 * stream) do not name the server: the caller, which knows it, does. */
int ssh_client_open(const char *host, int port, const ssh_client_opts_t *o, stream_t *out, err_t *e);

/* A read of s (from ssh_client_open) that waits past deadline_ms
 * (clock_now_ms) ends as the end of the stream; 0 removes it. */
void ssh_client_read_deadline(stream_t *s, long long deadline_ms);

/* "user@ip:port" of this end of s (from ssh_client_open) as the server
 * sees it: a Go dserver words its messages with it, which in plain mode
 * is all that tells them from the lines. Returns 0, or -1 (buf "") when
 * the address cannot be read. */
int ssh_client_peer_tag(stream_t *s, char *buf, size_t cap);

/* Splits "host[:port]" (port default def_port) into host (cap bytes) and
 * *port; "[v6addr]:port" is accepted too. */
int ssh_client_parse_server(const char *spec, int def_port, char *host, size_t cap, int *port,
                            err_t *e);

/* DTail's trust question for unknown hosts, on prompt_out; the answer is
 * read from answer_in. Returns 1 to trust, 0 not to. "d" shows details
 * (the key's fingerprint) and asks again. */
int ssh_client_ask_trust(const char *hostport, const char *fingerprint, FILE *answer_in,
                         FILE *prompt_out);

#endif
