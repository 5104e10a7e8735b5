/* fmt_k8s.c: the `k8s` log format: a container's log line as Docker's
 * json-file driver (and so Kubernetes' /var/log/containers on Docker)
 * writes it, the application's own JSON line carried as a string:
 *
 *   {"log":"{\"level\":\"info\",\"req\":{\"ms\":12}}\n","stream":"stdout","time":"2024-05-01T10:00:00.123456789Z"}
 *
 * The application's keys are the fields, named as in the json format
 * (barewords, nested as a.b, array members as a.0); the runtime's are
 * $variables: $log (the application's line, unescaped, without its final
 * newline), $stream and $time (the runtime's time as an instant; the
 * application's own time key, if any, is a bareword like the others).
 *
 * EXTRACT_ERROR: a line that is not one JSON object, one without a "log"
 * string, and one whose log is not itself one JSON object (a container
 * that printed plain text: read those with `logformat json` and $log's
 * key `log`). The outer object is scanned by the json format's scanner
 * taking only its three strings; the log is unescaped into scratch and
 * scanned again for the requested names. */
#include "exec/extract/extract_int.h"

enum k8s_slot { KS_LOG = 1, KS_STREAM, KS_TIME, KS_SLOTS };

static bool k8s_plan_var(const char *name, field_plan_t *fp)
{
    if (strcmp(name, "$time") == 0) {
        fp->kind = FIELD_TIME;
        return true;
    }
    static const char *const vars[KS_SLOTS] = {[KS_LOG] = "$log", [KS_STREAM] = "$stream"};
    for (int s = KS_LOG; s <= KS_STREAM; s++)
        if (strcmp(name, vars[s]) == 0) {
            fp->kind = FIELD_SLOT;
            fp->pos = (uint8_t)s;
            return true;
        }
    return false;
}

/* A string of the outer object as its value: unescaped into scratch when
 * it holds escapes. False when out of scratch. */
static bool k8s_string(extractor_t *x, sv_t raw, bool esc, sv_t *out)
{
    *out = raw;
    if (!esc || raw.len == SV_MISSING)
        return true;
    char *o = extract_scratch(x, raw.len ? raw.len : 1);
    if (!o)
        return false;
    out->p = o;
    out->len = extract_json_unescape(raw.p, raw.len, o);
    return true;
}

static void k8s_set(const extractor_t *x, int slot, size_t i, sv_t *const *cols, sv_t v)
{
    uint32_t c = x->slot_col[slot];
    if (c != EXTRACT_NONE)
        cols[c][i] = v;
}

static uint8_t k8s_line(extractor_t *x, size_t i, const char *p, uint32_t len, sv_t *const *cols)
{
    extract_json_outer_t o = {{"log", "stream", "time"}, {{NULL, SV_MISSING}, {NULL, SV_MISSING},
                                                          {NULL, SV_MISSING}}, {0}};
    const char *why;
    size_t at;
    if (!extract_json_object(x, i, p, len, cols, &o, &why, &at)) {
        extract_error(x, "k8s line rejected: %s at byte %zu", why, at);
        return EXTRACT_ERROR;
    }
    if (o.val[0].len == SV_MISSING) {
        extract_error(x, "k8s line rejected: no \"log\" string");
        return EXTRACT_ERROR;
    }
    sv_t log, stream, time;
    if (!k8s_string(x, o.val[0], o.esc[0], &log) || !k8s_string(x, o.val[1], o.esc[1], &stream) ||
        !k8s_string(x, o.val[2], o.esc[2], &time)) {
        extract_error(x, "k8s line rejected: out of memory");
        return EXTRACT_ERROR;
    }
    /* The newline the runtime keeps at the end, and other JSON space. */
    uint32_t l = log.len;
    while (l && (log.p[l - 1] == '\n' || log.p[l - 1] == '\r' || log.p[l - 1] == ' ' ||
                 log.p[l - 1] == '\t'))
        l--;
    log.len = l;
    k8s_set(x, KS_LOG, i, cols, log);
    k8s_set(x, KS_STREAM, i, cols, stream);
    k8s_set(x, KS_TIME, i, cols, time);
    uint32_t s = 0;
    while (s < l && (log.p[s] == ' ' || log.p[s] == '\t' || log.p[s] == '\n' || log.p[s] == '\r'))
        s++;
    if (!extract_json_object(x, i, log.p + s, l - s, cols, NULL, &why, &at)) {
        extract_error(x, "k8s line rejected: its log is no JSON object: %s at byte %zu of the log",
                      why, at + s);
        return EXTRACT_ERROR;
    }
    return EXTRACT_OK;
}

static void k8s_batch(extractor_t *x, const char *const *line, const uint32_t *len, size_t n,
                      sv_t *const *cols, uint8_t *status)
{
    extract_each_line(x, line, len, n, cols, status, k8s_line);
}

const extract_format_t extract_format_k8s = {
    .name = "k8s", .dynamic = true, .plan_var = k8s_plan_var, .batch = k8s_batch,
    .time_slot = KS_TIME,
};
