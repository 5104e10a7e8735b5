/* remote_scan.c: dcat and dgrep through a server. The server renders the
 * lines in the format this client would use locally, so output is byte
 * for byte the serverless output but for the host name. */
#include <stdlib.h>
#include <unistd.h>

#include "client/remote.h"

#define OUTPUT_BLOCK (1024 * 1024)

int remote_scan_main(const cli_opts_t *o, enum cli_tool tool, const config_t *cfg,
                     client_run_t *rs)
{
    err_t e;
    err_clear(&e);
    char *files = remote_files(o, -1, &e);
    if (!files)
        return client_usage_error(rs->tool, &e);
    wire_request_t rq = {
        .kind = tool == CLI_DGREP ? WIRE_KIND_GREP : WIRE_KIND_CAT,
        .render = o->plain ? WIRE_RENDER_PLAIN
                           : client_colors(o, cfg) ? WIRE_RENDER_COLOR : WIRE_RENDER_REMOTE,
        .flags = (o->invert ? WIRE_REQ_INVERT : 0) | (o->quiet ? WIRE_REQ_QUIET : 0),
        .before = (uint64_t)o->before,
        .after = (uint64_t)o->after,
        .max = (uint64_t)o->max,
        .files = files,
        .regex = (char *)(tool == CLI_DGREP && o->regex ? o->regex : ""),
        .query = "",
    };
    outbuf_t out;
    remote_conn_t c;
    if (outbuf_init(&out, STDOUT_FILENO, OUTPUT_BLOCK, &e) < 0 ||
        remote_connect(&c, o, cfg, &e) < 0) {
        client_report(rs, &e);
        if (rs->status < 1)
            rs->status = 1;
        free(out.data);
        free(files);
        return rs->status;
    }
    if (remote_request(&c, &rq, &out, NULL, rs, &e) < 0) {
        outbuf_flush(&out);
        client_report(rs, &e);
        if (rs->status < 1)
            rs->status = 1;
    }
    outbuf_flush(&out);
    remote_close(&c);
    outbuf_free(&out);
    free(files);
    return rs->status;
}
