/* auth_options.h: the options of an authorized_keys line, as dserver
 * applies them (OpenSSH's sshd(8), "AUTHORIZED_KEYS FILE FORMAT"):
 *
 *   from="pattern-list"  enforced: the client's address must match (below)
 *   expiry-time="YYYYMMDD[HHMM[SS]][Z]"  enforced: refused from then on
 *                        (local time, UTC with Z)
 *   restrict, no-pty, no-port-forwarding, no-agent-forwarding,
 *   no-X11-forwarding, no-user-rc, and their positive forms pty,
 *   port-forwarding, agent-forwarding, X11-forwarding, user-rc
 *                        accepted: dserver offers none of these anyway
 *   anything else (command=, permitopen=, environment=, cert-authority,
 *   principals=, tunnel=, ...)  the line is not used: it asks for a
 *                        restriction dserver cannot apply, and using the
 *                        key without it would grant more than it says
 *
 * A from= pattern list is OpenSSH's: comma-separated patterns, each an
 * address with * and ? wildcards or an address/prefix (CIDR), IPv4 or
 * IPv6, optionally negated with '!'. A negated match refuses, else any
 * match allows, else refused. Host-name patterns never match: dserver
 * does not resolve the client's name (as sshd with UseDNS no). */
#ifndef DTAIL_SERVER_AUTH_OPTIONS_H
#define DTAIL_SERVER_AUTH_OPTIONS_H

#include <stddef.h>
#include <time.h>

/* The length of the options at the start of line (up to the first
 * space or tab outside double quotes), or -1 when a quote is not closed. */
long auth_options_len(const char *line, size_t len);

/* Whether the options opts (len bytes, no key) let a client at peer
 * (a numeric address; "::ffff:a.b.c.d" counts as a.b.c.d) log in at
 * now: 1 yes; 0 no, -1 the line is not usable; why says what, for the
 * log, in both cases. */
int auth_options_check(const char *opts, size_t len, const char *peer, time_t now, char *why,
                       size_t cap);

/* Whether peer matches an OpenSSH pattern list (from= above): 1, 0, or
 * -1 when the list is malformed. */
int auth_addr_match_list(const char *peer, const char *list, size_t len);

#endif
