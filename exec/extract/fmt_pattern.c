/* fmt_pattern.c: the `pattern` log format: lines laid out by a custom
 * nginx `log_format` or Apache `LogFormat` line, `logformat pattern
 * "$remote_addr - $remote_user [$time_local] \"$request\" $status"` (the
 * pattern is read by parser/logpattern.c; Apache's directives are named as
 * the nginx variables that write the same: %h is $remote_addr).
 *
 * A line is matched item by item: a literal must be there as written; a
 * field's value runs to where the next literal starts (the first place
 * it occurs), or to the end of the line for a last field. A field between
 * two '"' (`"$request"`) ends at the first '"' no backslash escapes, and
 * its escapes (nginx's \xHH, Apache's \" \\) are read, into scratch only
 * then. Values are as written ("-" stays "-"), except Apache's %b, whose
 * "-" (an empty body) is "0", as $body_bytes_sent. $time is the first of
 * $time_local, $time_iso8601 and $msec the pattern has, as an instant.
 *
 * EXTRACT_ERROR: a literal that is not where the pattern has it, text
 * after the last item, a quoted field without its closing quote
 * (`pattern line rejected: ' "' expected at byte 14`). */
#include <stdlib.h>

#include "exec/extract/extract_int.h"
#include "exec/extract/xcur.h"
#include "parser/logpattern.h"

static const char zero[] = "0";

typedef struct pattern_state {
    logpattern_t lp;
    uint32_t col[LOGPATTERN_ITEMS];   /* a field's column, or EXTRACT_NONE */
    bool quoted[LOGPATTERN_ITEMS];    /* a field between two '"' */
} pattern_state_t;

static const char *const pattern_time_keys[] = {"$time_local", "$time_iso8601", "$msec", NULL};

static bool pattern_plan_var(const char *name, field_plan_t *fp)
{
    if (strcmp(name, "$time") != 0)
        return false;
    fp->kind = FIELD_TIME;
    return true;
}

int extract_pattern_plan(extractor_t *x, const char *pattern, err_t *e)
{
    if (!pattern)
        return err_set(e, ERR_QUERY, "log format \"pattern\" needs a pattern");
    pattern_state_t *s = calloc(1, sizeof *s);
    if (!s)
        return err_set(e, ERR_NOMEM, "out of memory planning the log pattern");
    x->fmt_state = s;
    const char *why;
    size_t at;
    if (!logpattern_read(pattern, strlen(pattern), &s->lp, &why, &at))
        return err_set(e, ERR_QUERY, "logformat pattern: %s at byte %zu", why, at);
    const logpattern_t *lp = &s->lp;
    for (size_t k = 0; k < lp->n; k++) {
        s->col[k] = EXTRACT_NONE;
        if (lp->item[k].kind != LOGPATTERN_FIELD)
            continue;
        s->col[k] = extract_dyn_field(x, logpattern_text(lp, k), lp->item[k].len);
        s->quoted[k] = k > 0 && k + 1 < lp->n && lp->item[k - 1].kind == LOGPATTERN_LITERAL &&
                       logpattern_text(lp, k - 1)[lp->item[k - 1].len - 1] == '"' &&
                       logpattern_text(lp, k + 1)[0] == '"';
    }
    return 0;
}

/* The first place [lit, lit+ll) occurs in [p+from, p+n), or n. */
static uint32_t find_literal(const char *p, uint32_t n, uint32_t from, const char *lit,
                             uint32_t ll)
{
    for (uint32_t q = from; q + ll <= n;) {
        const char *hit = memchr(p + q, lit[0], n - q - ll + 1);
        if (!hit)
            return n;
        q = (uint32_t)(hit - p);
        if (memcmp(hit, lit, ll) == 0)
            return q;
        q++;
    }
    return n;
}

static bool pattern_line(xcur_t *c)
{
    const pattern_state_t *s = c->x->fmt_state;
    const logpattern_t *lp = &s->lp;
    for (size_t k = 0; k < lp->n; k++) {
        const logpattern_item_t *it = &lp->item[k];
        const char *t = logpattern_text(lp, k);
        if (it->kind == LOGPATTERN_LITERAL) {
            if (c->n - c->pos < it->len || memcmp(c->p + c->pos, t, it->len) != 0) {
                c->why = k == 0 ? "the pattern's first text expected" : "the pattern's text expected";
                return false;
            }
            c->pos += it->len;
            continue;
        }
        uint32_t end;
        if (k + 1 == lp->n)
            end = c->n;
        else if (s->quoted[k] && (end = xcur_quote_end(c->p, c->n, c->pos)) >= c->n)
            return xcur_fail(c, "unterminated quoted field");
        else if (!s->quoted[k])
            end = find_literal(c->p, c->n, c->pos, logpattern_text(lp, k + 1), lp->item[k + 1].len);
        if (end >= c->n && k + 1 < lp->n)
            return xcur_fail(c, "the text after a field expected");
        uint32_t col = s->col[k];
        if (col != EXTRACT_NONE) {
            const char *v = c->p + c->pos;
            uint32_t len = end - c->pos;
            if (it->zero_dash && len == 1 && v[0] == '-')
                v = zero;
            else if (s->quoted[k] && !xcur_unescape(c, &v, &len))
                return false;
            c->cols[col][c->i].p = v;
            c->cols[col][c->i].len = len;
        }
        c->pos = end;
    }
    return c->pos == c->n || xcur_fail(c, "text after the pattern's end");
}

static uint8_t pattern_parse(extractor_t *x, size_t i, const char *p, uint32_t len,
                             sv_t *const *cols)
{
    return xcur_line(x, i, p, len, cols, pattern_line);
}

static void pattern_batch(extractor_t *x, const char *const *line, const uint32_t *len, size_t n,
                          sv_t *const *cols, uint8_t *status)
{
    extract_each_line(x, line, len, n, cols, status, pattern_parse);
}

const extract_format_t extract_format_pattern = {
    .name = "pattern", .dynamic = true, .plan_var = pattern_plan_var, .batch = pattern_batch,
    .time_keys = pattern_time_keys, .consts = zero, .consts_len = sizeof zero,
};
