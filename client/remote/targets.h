/* targets.h: which servers a run talks to (shared reference §6.1).
 *
 * --servers is a comma list of host[:port], or the name of an existing
 * file with one server per line (blank lines and `#` comments ignored).
 * --discovery MODULE[:OPTIONS] names the source explicitly: COMMA (the
 * list is OPTIONS, else --servers) or FILE (the file is OPTIONS, else
 * --servers). A --servers value of the form /regex/ then filters the
 * module's list (a server is kept when the regex matches its host:port);
 * without a module there is nothing to filter, which is a usage error here
 * (DTail silently yields no server).
 *
 * IPv6 literals are written in brackets: [::1]:2222. The port defaults to
 * def_port. The list is de-duplicated by host and port (first occurrence
 * kept) and keeps its order (DTail shuffles it). */
#ifndef DTAIL_CLIENT_FANOUT_TARGETS_H
#define DTAIL_CLIENT_FANOUT_TARGETS_H

#include <stddef.h>

#include "base/err.h"

typedef struct fanout_target {
    char host[256];       /* name or address, without brackets */
    int port;             /* 1..65535 */
    char name[300];       /* host:port ([v6]:port) for messages */
    size_t read_max;      /* largest read from its channel: what one server may
                             buffer in the client (0: the transport's default) */
} fanout_target_t;

typedef struct fanout_targets {
    fanout_target_t *items;
    size_t n;
    size_t cap;
} fanout_targets_t;

/* Fills out from --servers and --discovery (either may be NULL). Errors
 * (unknown module, unreadable file, a bad entry naming its line, an
 * invalid regex, an empty result) are ERR_USAGE. */
int fanout_targets_parse(fanout_targets_t *out, const char *servers, const char *discovery,
                         int def_port, err_t *e);
void fanout_targets_free(fanout_targets_t *t);

#endif
