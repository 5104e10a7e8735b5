/* request.c: the command line as the engine's request. */
#include "client/tools/request.h"

#include <stdio.h>
#include <string.h>

#include "client/remote/session.h"
#include "client/tools/common.h"
#include "exec/extract/logzone.h"
#include "exec/mapscan.h"

static enum exec_kind kind_of(enum cli_tool tool)
{
    switch (tool) {
    case CLI_DCAT: return EXEC_CAT;
    case CLI_DGREP: return EXEC_GREP;
    case CLI_DTAIL: return EXEC_TAIL;
    default: return EXEC_MAP;
    }
}

const char *client_timezone(const cli_opts_t *o)
{
    static char local[LOGZONE_NAME_MAX];
    if (o->timezone)
        return o->timezone;
    if (!local[0])
        logzone_local_spec(local, sizeof local);
    return strcmp(local, "UTC") == 0 ? NULL : local;
}

exec_request_t client_request(const cli_opts_t *o, const config_t *cfg)
{
    enum exec_kind kind = kind_of(o->tool);
    const char *query = o->query ? o->query : "";
    int pattern = kind == EXEC_GREP || (kind == EXEC_TAIL && !*query);
    return (exec_request_t){
        .kind = kind,
        .flags = (o->invert ? EXEC_REQ_INVERT : 0) | (o->quiet ? EXEC_REQ_QUIET : 0) |
                 (o->ignore_case ? EXEC_REQ_ICASE : 0),
        .files = o->files ? o->files : "",
        .regex = pattern && o->regex ? o->regex : "",
        .query = query,
        .before = o->before > 0 ? (unsigned long long)o->before : 0,
        .after = o->after > 0 ? (unsigned long long)o->after : 0,
        .max = o->max > 0 ? (unsigned long long)o->max : 0,
        .timeout_s = o->timeout > 0 ? o->timeout : 0,
        .render = client_line_format(o, cfg),
        .palette = &cfg->palette,
        .timezone = kind == EXEC_MAP || *query ? client_timezone(o) : NULL,
        .multiline = o->multiline ? o->multiline : "",
    };
}

exec_env_t client_env(const cli_opts_t *o, const config_t *cfg, const char *host)
{
    return (exec_env_t){
        .host = host,
        .max_line_len = cfg->max_line_len,
        .memory_limit = o->memory_limit_bytes ? (size_t)o->memory_limit_bytes
                                              : mapscan_default_memory_limit(),
        .n_threads = client_cpu_count(),
        .default_logformat = remote_wanted(o) ? NULL : exec_default_logformat(cfg),
        .rescan_ms = cfg->glob_retry_ms,
    };
}

int client_plan(exec_plan_t *p, const exec_request_t *rq, const exec_env_t *env, err_t *e)
{
    if (exec_plan_init(p, rq, env, e) == 0)
        return 0;
    if (e->code == ERR_QUERY) {
        char caret[sizeof e->msg - 32];
        exec_plan_error(rq, e, caret, sizeof caret);
        err_set(e, ERR_QUERY, "invalid query: %s", caret);
    }
    return -1;
}
