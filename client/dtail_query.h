/* dtail_query.h: dtail --query, serverless: the mapreduce plan over
 * followed files, reported every interval (shared reference §2.11): each
 * report holds only that interval's lines, unless the query writes an
 * outfile, which is cumulative (rewritten, or appended to with `outfile
 * append`, each interval). */
#ifndef DTAIL_CLIENT_DTAIL_QUERY_H
#define DTAIL_CLIENT_DTAIL_QUERY_H

#include "base/config.h"
#include "base/err.h"
#include "client/cli.h"
#include "client/client_common.h"
#include "exec/scan/input.h"

typedef struct dtail_query dtail_query_t;

/* Parses o->query and starts the reporter; stop ends it. Query errors are
 * usage errors (exit 2) with the caret. */
int dtail_query_open(dtail_query_t **out, const cli_opts_t *o, const config_t *cfg,
                     const char *host, const volatile int *stop, err_t *e);
/* Folds one input until it ends (a followed file ends when the run stops).
 * Safe to call from one thread per input. */
int dtail_query_follow(dtail_query_t *q, input_t *in, const char *name, const char *source_id,
                       err_t *e);
/* Stops the reporter after a last report, and frees q. */
void dtail_query_close(dtail_query_t *q, client_run_t *rs);

#endif
