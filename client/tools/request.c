/* request.c: the command line as the engine's request. */
#include "client/tools/request.h"

#include "client/tools/common.h"

static enum exec_kind kind_of(enum cli_tool tool)
{
    switch (tool) {
    case CLI_DCAT: return EXEC_CAT;
    case CLI_DGREP: return EXEC_GREP;
    case CLI_DTAIL: return EXEC_TAIL;
    default: return EXEC_MAP;
    }
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
    };
}
