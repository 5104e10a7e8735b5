/* parser/lfopts.c: the options after `logformat NAME` (docs/log-formats.md,
 * "Options"): `delimiter ";"`, `timeformat "%d/%b/%Y:%H:%M:%S %z"`,
 * `multiline "^\S"`, and for `logformat pattern` the pattern's text first.
 * The grammar hands them over as a flat list of words; here they are
 * paired, each checked and stored in the plan, in any order, each at most
 * once. */
#include <stdio.h>
#include <string.h>

#include "parser/logpattern.h"
#include "parser/plan_int.h"

/* The strptime-style conversions exec/extract/logtime.c reads
 * (logtime_format_parse); a timeformat is refused here when it uses
 * another, so that a query never fails per line for its spelling. */
static const char time_directives[] = "YmdeHIpMSfzZbhBaAyjsTDFRnt%";

static int check_timeformat(resolve_ctx_t *rc, const ast_expr_t *v)
{
    const char *s = v->text;
    bool date_or_time = false;
    for (uint32_t i = 0; i < v->text_len; i++) {
        if (s[i] != '%')
            continue;
        uint32_t at = v->off + 1 + i;
        if (i + 1 >= v->text_len)
            return parse_error(rc->pc, ERR_QUERY, at,
                               "timeformat ends in a lone %% (write %%%% for a percent sign)");
        char d = s[++i];
        if (!strchr(time_directives, d) || d == '\0')
            return parse_error(rc->pc, ERR_QUERY, at,
                               "timeformat: unknown conversion %%%c (known: %%Y %%m %%d %%e "
                               "%%H %%I %%p %%M %%S %%f %%z %%Z %%b %%B %%a %%y %%j %%s %%T "
                               "%%D %%F %%R %%n %%t %%%%)", d);
        date_or_time |= d != '%' && d != 'n' && d != 't';
    }
    if (!date_or_time)
        return parse_error(rc->pc, ERR_QUERY, v->off,
                           "timeformat has no conversion: it needs %%Y, %%H, ... to read a time");
    return 0;
}

static int set_delimiter(resolve_ctx_t *rc, plan_t *p, const ast_expr_t *v)
{
    const char *f = p->logformat->name;
    if (strcmp(f, "csv") != 0 && strcmp(f, "csvnoheader") != 0 && strcmp(f, "tsv") != 0)
        return parse_error(rc->pc, ERR_QUERY, v->off,
                           "logformat %s takes no delimiter (csv, csvnoheader and tsv do)", f);
    if (v->text_len != 1)
        return parse_error(rc->pc, ERR_QUERY, v->off,
                           "a delimiter is one byte, e.g. delimiter \";\" (got %u bytes)",
                           v->text_len);
    char d = v->text[0];
    if (d == '\n' || d == '\r' || d == '"')
        return parse_error(rc->pc, ERR_QUERY, v->off,
                           "a delimiter cannot be a quote or a line end");
    p->lf_delimiter = d;
    return 0;
}

/* logformat pattern "...": the format whose $variables are the pattern's
 * fields and $time (from $time_local, $time_iso8601 or $msec). */
static int set_pattern(resolve_ctx_t *rc, plan_t *p, const ast_expr_t *v)
{
    if (v->kind != AST_STRING)
        return parse_error(rc->pc, ERR_QUERY, v->off,
                           "logformat pattern needs the pattern as a \"quoted string\"");
    logpattern_t *lp = arena_alloc(rc->pc->arena, sizeof *lp);
    if (!lp)
        return parse_nomem(rc->pc);
    const char *why;
    size_t at;
    if (!logpattern_read(v->text, v->text_len, lp, &why, &at))
        /* The offset is in the decoded text: exact without escapes. */
        return parse_error(rc->pc, ERR_QUERY, v->off + 1 + (uint32_t)(at < v->len ? at : 0),
                           "logformat pattern: %s", why);
    const char **vars = arena_alloc(rc->pc->arena, (lp->n + 2) * sizeof *vars);
    logformat_t *fmt = arena_alloc(rc->pc->arena, sizeof *fmt);
    if (!vars || !fmt)
        return parse_nomem(rc->pc);
    size_t nv = 0;
    for (size_t k = 0; k < lp->n; k++) {
        if (lp->item[k].kind != LOGPATTERN_FIELD)
            continue;
        char *name = arena_strndup(rc->pc->arena, logpattern_text(lp, k), lp->item[k].len);
        if (!name)
            return parse_nomem(rc->pc);
        vars[nv++] = name;
    }
    vars[nv++] = "$time";
    vars[nv] = NULL;
    *fmt = *p->logformat;
    fmt->vars = vars;
    p->logformat = fmt;
    rc->fmt = fmt;
    p->lf_pattern = v->text;
    return 0;
}

int plan_lfopts(resolve_ctx_t *rc, plan_t *p, const ast_clause_t *lf)
{
    const ast_expr_t *o = lf->opts ? lf->opts->head : NULL;
    bool pattern = strcmp(p->logformat->name, "pattern") == 0;
    if (pattern) {
        if (!o)
            return parse_error(rc->pc, ERR_QUERY, lf->word->off + lf->word->len,
                               "logformat pattern needs the pattern: logformat pattern "
                               "\"$remote_addr - [$time_local] \\\"$request\\\" $status\"");
        if (set_pattern(rc, p, o) < 0)
            return -1;
        o = o->next;
    }
    bool given[3] = {false, false, false};
    static const char *const names[] = {"delimiter", "timeformat", "multiline", NULL};
    for (; o; o = o->next->next) {
        int k = 0;
        while (names[k] && !(o->kind == AST_FIELD && strcmp(o->text, names[k]) == 0))
            k++;
        if (!names[k]) {
            const char *s = resolve_suggest(o->text, names);
            return parse_error(rc->pc, ERR_QUERY, o->off,
                               "unknown logformat option '%s'%s%s%s (options: delimiter, "
                               "timeformat, multiline)", o->text, s ? "; did you mean " : "",
                               s ? s : "", s ? "?" : "");
        }
        if (given[k])
            return parse_error(rc->pc, ERR_QUERY, o->off, "logformat option %s given twice",
                               names[k]);
        given[k] = true;
        const ast_expr_t *v = o->next;
        if (!v)
            return parse_error(rc->pc, ERR_QUERY, o->off + o->len,
                               "logformat option %s needs a \"quoted\" value", names[k]);
        int rc2 = 0;
        if (k == 0) {
            rc2 = set_delimiter(rc, p, v);
        } else if (k == 1) {
            if (v->kind != AST_STRING)
                return parse_error(rc->pc, ERR_QUERY, v->off,
                                   "timeformat needs a \"quoted\" layout, e.g. timeformat "
                                   "\"%%d/%%b/%%Y:%%H:%%M:%%S %%z\"");
            rc2 = check_timeformat(rc, v);
            p->lf_timeformat = v->text;
        } else {
            uint32_t ncap;
            rc2 = resolve_pattern(rc, v, "multiline", &ncap);
            p->lf_multiline = v->text;
            p->lf_multiline_offset = v->off;
        }
        if (rc2 < 0)
            return -1;
    }
    return 0;
}
