/* tail.c: dtail through servers. Each server follows the files
 * (TAIL request, docs/protocol.md "Tail") and sends the selected lines as
 * they are written; they go to stdout by whole frames. A server that
 * cannot be reached, breaks the connection or restarts is connected again
 * with backoff (2 s doubling to 60 s, ±20 %) until the run ends at
 * --timeout / --shutdownAfter (default 86400 s) or a signal. With --query
 * see query.c. */
#include "client/tools/request.h"
#include "client/remote/fanout.h"
#include "client/remote/session.h"

int remote_tail_main(const cli_opts_t *o, const config_t *cfg, client_run_t *rs)
{
    if (o->interactive)
        return interactive_remote_main(o, cfg, rs);
    if (o->query && *o->query)
        return remote_query_main(o, cfg, rs);
    exec_request_t rq = client_request(o, cfg);
    return remote_lines_run(o, &rq, cfg, client_follow_limit_s(o), 1, rs);
}
