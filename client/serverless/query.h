/* query.h: dtail --query: the mapreduce plan over followed files
 * (serverless), or the deltas servers send (client/remote/query.c),
 * reported every interval (shared reference §2.11): each
 * report holds only that interval's lines, unless the query writes an
 * outfile, which is cumulative (rewritten, or appended to with `outfile
 * append`, each interval). */
#ifndef DTAIL_CLIENT_DTAIL_QUERY_H
#define DTAIL_CLIENT_DTAIL_QUERY_H

#include "base/config.h"
#include "base/err.h"
#include "client/tools/cli.h"
#include "client/tools/common.h"
#include "exec/mapscan.h"
#include "exec/scan/input.h"

typedef struct dtail_query dtail_query_t;

/* Parses o->query and starts the reporter; stop ends it. Query errors are
 * usage errors (exit 2) with the caret. */
int dtail_query_open(dtail_query_t **out, const cli_opts_t *o, const config_t *cfg,
                     const char *host, const volatile int *stop, err_t *e);
/* A scan of the query's plan whose tables the reports take (one per
 * followed file, stepped by a follow run); q owns it. */
mapscan_t *dtail_query_scan(dtail_query_t *q, err_t *e);
/* Folds one input until it ends (a piped stdin). */
int dtail_query_follow(dtail_query_t *q, input_t *in, const char *name, const char *source_id,
                       err_t *e);
/* Adds a server's delta (a serialized table: what its followed files gave
 * since its previous one, docs/protocol.md "Tail") to the next report, as
 * if the lines had been read here. Safe from one thread per server. */
int dtail_query_add_delta(dtail_query_t *q, const unsigned char *p, size_t len, err_t *e);
/* Stops the reporter after a last report, and frees q. */
void dtail_query_close(dtail_query_t *q, client_run_t *rs);

#endif
