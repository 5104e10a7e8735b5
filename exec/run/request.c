/* request.c: a request from the wire and back. */
#include "exec/run/request.h"

#include <stdio.h>
#include <string.h>

#include "exec/filter/matcher.h"
#include "parser/logformat.h"

_Static_assert((int)EXEC_CAT == (int)WIRE_KIND_CAT && (int)EXEC_GREP == (int)WIRE_KIND_GREP &&
                   (int)EXEC_TAIL == (int)WIRE_KIND_TAIL && (int)EXEC_MAP == (int)WIRE_KIND_MAP,
               "request kinds are the wire's numbers");

int exec_request_from_wire(const wire_request_t *w, exec_request_t *rq, palette_t *palette,
                           err_t *e)
{
    if (w->kind < WIRE_KIND_CAT || w->kind > WIRE_KIND_MAP)
        return err_set(e, ERR_INPUT, "a %s request is not run by the engine", wire_kind_name(w->kind));
    *rq = (exec_request_t){
        .kind = (enum exec_kind)w->kind,
        .flags = ((w->flags & WIRE_REQ_INVERT) ? EXEC_REQ_INVERT : 0) |
                 ((w->flags & WIRE_REQ_QUIET) ? EXEC_REQ_QUIET : 0) |
                 ((w->flags & WIRE_REQ_ICASE) ? EXEC_REQ_ICASE : 0),
        .files = w->files,
        .regex = w->regex,
        .query = w->query,
        .before = w->before,
        .after = w->after,
        .max = w->max,
        .timeout_s = w->timeout_s,
        .render = line_format_of_render(w->render),
        .multiline = (w->flags & WIRE_REQ_MULTILINE) && w->multiline ? w->multiline : "",
    };
    wire_request_palette(w, palette);
    rq->palette = palette;
    rq->timezone = (w->flags & WIRE_REQ_TIMEZONE) ? w->timezone : NULL;
    return 0;
}

wire_request_t exec_request_to_wire(const exec_request_t *rq, char *files)
{
    wire_request_t w = {
        .kind = (uint8_t)rq->kind,
        .render = (uint8_t)line_format_render(rq->render),
        .flags = ((rq->flags & EXEC_REQ_INVERT) ? WIRE_REQ_INVERT : 0) |
                 ((rq->flags & EXEC_REQ_QUIET) ? WIRE_REQ_QUIET : 0) |
                 ((rq->flags & EXEC_REQ_ICASE) ? WIRE_REQ_ICASE : 0),
        .before = rq->before,
        .after = rq->after,
        .max = rq->max,
        .timeout_s = rq->timeout_s > 0 ? (uint32_t)rq->timeout_s : 0,
        .files = files,
        .regex = (char *)rq->regex,
        .query = (char *)rq->query,
    };
    /* DTail's paint needs no field; another goes with the request, and an
     * older server refuses the flag rather than paint with its own. */
    if (rq->render == LINE_COLOR && rq->palette && !palette_remote_is_default(rq->palette)) {
        w.flags |= WIRE_REQ_PALETTE;
        palette_encode(rq->palette, w.palette);
    }
    /* The client's zone decides how servers write times; an older server
     * refuses the flag rather than write them in UTC. */
    if (rq->timezone) {
        w.flags |= WIRE_REQ_TIMEZONE;
        w.timezone = (char *)rq->timezone;
    }
    if (rq->multiline && *rq->multiline) {
        w.flags |= WIRE_REQ_MULTILINE;
        w.multiline = (char *)rq->multiline;
    }
    return w;
}

int exec_request_set_multiline(exec_request_t *rq, const char *pattern, err_t *e)
{
    if (pattern && *pattern) {
        matcher_t m;
        if (matcher_init(&m, pattern, e) < 0)
            return -1;
        matcher_free(&m);
    }
    rq->multiline = pattern ? pattern : "";
    return 0;
}

const char *exec_default_logformat(const config_t *cfg)
{
    return cfg && cfg->mapreduce_log_format[0] ? cfg->mapreduce_log_format : NULL;
}

int exec_config_check(const config_t *cfg, err_t *e)
{
    const char *name = exec_default_logformat(cfg);
    /* pattern needs its layout, which only a query gives: no default */
    if (!name || (logformat_find(name) && strcmp(name, "pattern") != 0))
        return 0;
    char where[4200];
    config_where(cfg, (const char *const[]){"Server", "MapreduceLogFormat", NULL}, where,
                 sizeof where);
    char known[256] = "";
    size_t k = 0;
    for (size_t i = 0; logformat_all[i]; i++)
        if (strcmp(logformat_all[i]->name, "pattern") != 0)
            k += (size_t)snprintf(known + k, k < sizeof known ? sizeof known - k : 0, "%s%s",
                                  i ? " " : "", logformat_all[i]->name);
    return err_set(e, ERR_CONFIG, "%s: Server.MapreduceLogFormat: unknown log format '%s' "
                                  "(known: %s)", where, name, known);
}
