/* request.h: the command line as the engine's request, made once
 * per run (and again after an interactive reload changes the flags):
 * serverless it is run here, with servers it goes out as their REQUEST
 * (exec_request_to_wire). */
#ifndef DTAIL_CLIENT_CLIENT_REQUEST_H
#define DTAIL_CLIENT_CLIENT_REQUEST_H

#include "base/config.h"
#include "client/tools/cli.h"
#include "exec/run/plan.h"
#include "exec/run/request.h"

/* The request of o's tool (strings borrowed from o). dcat has no
 * pattern; a dtail with a query folds lines into it and has none either. */
exec_request_t client_request(const cli_opts_t *o, const config_t *cfg);

/* The zone a query's times are written in: --timezone, else this host's
 * (as DTail's $timezone); NULL for UTC, which servers take without being
 * told. */
const char *client_timezone(const cli_opts_t *o);

/* Where a request of o runs serverless, on this host: its limits, all
 * cores, and the config's default log format. A query sent to servers
 * is parsed with the parser's default instead (each server applies its
 * own, as DTail's client assumes). */
exec_env_t client_env(const cli_opts_t *o, const config_t *cfg, const char *host);

/* exec_plan_init, with an invalid query said as "invalid query: " and the
 * query with a caret under the place (ERR_QUERY, exit 2). */
int client_plan(exec_plan_t *p, const exec_request_t *rq, const exec_env_t *env, err_t *e);

#endif
