/* parser/resolve.c: names -> meanings (see resolve.h).
 *
 * The rules for fields follow DTail (dtail-behaviour.md §2.9): a $name is a
 * variable the log format provides (or the set clause creates), a bareword
 * is a named field of the line (key=value, CSV column, JSON key), and a
 * `backticked` name is taken literally. Unlike DTail, an unknown $variable is
 * an error with a suggestion instead of a silently empty column. */
#include "parser/resolve.h"

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>
#include <stdlib.h>
#include <string.h>

#include "base/grow.h"

static const resolve_fn_t functions[] = {
    {"count", true, PLAN_AGG_COUNT, 0, 1, 1, "count(field)"},
    {"sum", true, PLAN_AGG_SUM, 0, 1, 1, "sum(field)"},
    {"min", true, PLAN_AGG_MIN, 0, 1, 1, "min(field)"},
    {"max", true, PLAN_AGG_MAX, 0, 1, 1, "max(field)"},
    {"avg", true, PLAN_AGG_AVG, 0, 1, 1, "avg(field)"},
    {"last", true, PLAN_AGG_LAST, 0, 1, 1, "last(field)"},
    {"len", true, PLAN_AGG_LEN, 0, 1, 1, "len(field)"},
    {"percentage", true, PLAN_AGG_PERCENTAGE, 0, 1, 1, "percentage(field)"},
    {"percentile", true, PLAN_AGG_PERCENTILE, 0, 1, 1, "percentile(field)"},
    {"quantile", true, PLAN_AGG_QUANTILE, 0, 2, 2, "quantile(field, 0.95)"},
    {"top", true, PLAN_AGG_TOP, 0, 2, 2, "top(field, 10)"},
    {"md5sum", false, 0, PLAN_FN_MD5SUM, 1, 1, "md5sum(value)"},
    {"maskdigits", false, 0, PLAN_FN_MASKDIGITS, 1, 1, "maskdigits(value)"},
    {"bucket", false, 0, PLAN_FN_BUCKET, 2, 2, "bucket($time, 5m)"},
    {"regex", false, 0, PLAN_FN_REGEX, 2, 3, "regex(value, \"pattern\", group)"},
    {"json", false, 0, PLAN_FN_JSON, 1, 1, "json(field).path"},
};
#define N_FUNCTIONS (sizeof functions / sizeof functions[0])

static const resolve_fn_t fn_pnn = {
    "pNN", true, PLAN_AGG_QUANTILE, 0, 1, 1, "p95(field)",
};

/* p50, p95, p99.9: a quantile in percent, from p0 (the minimum) to p100
 * (the maximum). */
static bool parse_pnn(const char *name, double *q)
{
    if (name[0] != 'p' || name[1] < '0' || name[1] > '9')
        return false;
    const char *s = name + 1;
    size_t n = strlen(s);
    if (!query_is_number(s, n) || strchr(s, 'e') || strchr(s, 'E') ||
        s[n - 1] == '.')
        return false;
    double v = strtod(s, NULL);
    if (!(v >= 0.0 && v <= 100.0))
        return false;
    *q = v / 100.0;
    return true;
}

const resolve_fn_t *resolve_fn_find(const char *name, double *quantile)
{
    for (size_t i = 0; i < N_FUNCTIONS; i++)
        if (strcmp(functions[i].name, name) == 0)
            return &functions[i];
    if (parse_pnn(name, quantile))
        return &fn_pnn;
    return NULL;
}

int resolve_distance(const char *a, size_t na, const char *b, size_t nb)
{
    enum { MAX = 32 };
    if (na >= MAX || nb >= MAX)
        return MAX;
    int d[MAX][MAX];
    for (size_t i = 0; i <= na; i++)
        d[i][0] = (int)i;
    for (size_t j = 0; j <= nb; j++)
        d[0][j] = (int)j;
    for (size_t i = 1; i <= na; i++) {
        for (size_t j = 1; j <= nb; j++) {
            int cost = a[i - 1] == b[j - 1] ? 0 : 1;
            int best = d[i - 1][j] + 1;
            if (d[i][j - 1] + 1 < best)
                best = d[i][j - 1] + 1;
            if (d[i - 1][j - 1] + cost < best)
                best = d[i - 1][j - 1] + cost;
            if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
                d[i - 2][j - 2] + 1 < best)
                best = d[i - 2][j - 2] + 1;
            d[i][j] = best;
        }
    }
    return d[na][nb];
}

/* True if `a` is `b` with letters left out (cnt, count), ignoring a
 * leading '$' on both. */
static bool is_abbreviation(const char *a, const char *b)
{
    a += *a == '$';
    b += *b == '$';
    if (*a != *b)
        return false;
    for (; *a && *b; b++)
        if (*a == *b)
            a++;
    return *a == '\0';
}

const char *resolve_suggest(const char *word, const char *const *cands)
{
    size_t nw = strlen(word);
    const char *best = NULL;
    int best_d = 3;
    for (size_t i = 0; cands[i]; i++) {
        int d = resolve_distance(word, nw, cands[i], strlen(cands[i]));
        if (d < best_d) {
            best_d = d;
            best = cands[i];
        }
    }
    /* One edit in a two-letter word is a different word, not a typo; two
     * edits are plausible in a longer word, or in an abbreviation that keeps
     * its letters in order (cnt -> count). */
    if (best && !((best_d == 1 && nw >= 3) ||
                  (best_d == 2 && (nw >= 6 || (nw >= 3 && is_abbreviation(word, best))))))
        return NULL;
    return best;
}

long long resolve_duration(const char *s, size_t n)
{
    if (n == 0)
        return -1;
    long long total = 0;
    size_t i = 0;
    while (i < n) {
        long long v = 0;
        size_t start = i;
        while (i < n && s[i] >= '0' && s[i] <= '9') {
            v = v * 10 + (s[i] - '0');
            if (v > 1000000000LL)
                return -1;
            i++;
        }
        if (i == start)
            return -1;
        long long unit = 1;
        if (i < n) {
            switch (s[i]) {
            case 's': unit = 1; break;
            case 'm': unit = 60; break;
            case 'h': unit = 3600; break;
            case 'd': unit = 86400; break;
            default: return -1;
            }
            i++;
        } else if (start != 0) {
            return -1; /* "1h30" : a trailing number needs a unit */
        }
        total += v * unit;
        if (total > 100LL * 365 * 86400)
            return -1;
    }
    return total;
}

/* ------------------------------------------------------------ set vars */

static size_t hash_str(const char *s)
{
    size_t h = 1469598103934665603ULL;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211ULL;
    return h;
}

int resolve_vars_get(const resolve_vars_t *v, const char *key)
{
    if (!v->cap)
        return -1;
    for (size_t i = hash_str(key) & (v->cap - 1);; i = (i + 1) & (v->cap - 1)) {
        if (!v->keys[i])
            return -1;
        if (strcmp(v->keys[i], key) == 0)
            return v->vals[i];
    }
}

int resolve_vars_put(resolve_ctx_t *rc, resolve_vars_t *v, const char *key, int val)
{
    if ((v->n + 1) * 2 > v->cap) {
        /* Sized once for the expected number of keys; half full at most. */
        size_t want = v->n + 1 > v->hint ? v->n + 1 : v->hint;
        size_t cap = grow_capacity(v->cap, want * 2, sizeof *v->keys, 16);
        const char **keys = cap ? arena_alloc(rc->pc->arena, cap * sizeof *keys) : NULL;
        int *vals = cap ? arena_alloc(rc->pc->arena, cap * sizeof *vals) : NULL;
        if (!keys || !vals)
            return parse_nomem(rc->pc);
        for (size_t i = 0; i < v->cap; i++) {
            if (!v->keys[i])
                continue;
            size_t j = hash_str(v->keys[i]) & (cap - 1);
            while (keys[j])
                j = (j + 1) & (cap - 1);
            keys[j] = v->keys[i];
            vals[j] = v->vals[i];
        }
        v->keys = keys;
        v->vals = vals;
        v->cap = cap;
    }
    size_t i = hash_str(key) & (v->cap - 1);
    while (v->keys[i] && strcmp(v->keys[i], key) != 0)
        i = (i + 1) & (v->cap - 1);
    if (!v->keys[i]) {
        v->keys[i] = key;
        v->n++;
    }
    v->vals[i] = val;
    return 0;
}

/* ------------------------------------------------------------- fields */

plan_value_t *resolve_value_new(resolve_ctx_t *rc, enum plan_value_kind kind,
                                const ast_expr_t *e)
{
    plan_value_t *v = arena_alloc(rc->pc->arena, sizeof *v);
    if (!v) {
        parse_nomem(rc->pc);
        return NULL;
    }
    v->kind = kind;
    v->offset = e->off;
    v->text = e->text;
    v->len = e->text_len;
    v->set_index = -1;
    return v;
}

/* True if the set clause assigns `name` at all (for error messages). */
static bool set_assigns(const resolve_ctx_t *rc, const char *name)
{
    if (!rc->set_list)
        return false;
    for (const ast_expr_t *c = rc->set_list->head; c; c = c->next)
        if (strcmp(c->lhs->text, name) == 0)
            return true;
    return false;
}

static int unknown_variable(resolve_ctx_t *rc, const ast_expr_t *e,
                            enum resolve_where where)
{
    const char *name = e->text;
    if (set_assigns(rc, name)) {
        if (where == RESOLVE_WHERE)
            return parse_error(rc->pc, ERR_QUERY, e->off,
                               "%s is assigned by set, which runs after where; "
                               "where can only test fields of the line", name);
        return parse_error(rc->pc, ERR_QUERY, e->off,
                           "%s is used before set assigns it", name);
    }
    /* Closest $variable of this format, else the bareword of the same name. */
    const char *cands[64];
    size_t n = 0;
    for (size_t i = 0; logformat_common_vars[i] && n < 63; i++)
        cands[n++] = logformat_common_vars[i];
    for (size_t i = 0; rc->fmt->vars[i] && n < 63; i++)
        cands[n++] = rc->fmt->vars[i];
    cands[n] = NULL;
    const char *s = resolve_suggest(name, cands);
    if (s)
        return parse_error(rc->pc, ERR_QUERY, e->off,
                           "unknown variable %s for log format \"%s\"; did you mean %s?",
                           name, rc->fmt->name, s);
    if (rc->fmt->dynamic)
        return parse_error(rc->pc, ERR_QUERY, e->off,
                           "unknown variable %s for log format \"%s\"; "
                           "did you mean bareword %s?", name, rc->fmt->name, name + 1);
    return parse_error(rc->pc, ERR_QUERY, e->off,
                       "unknown variable %s for log format \"%s\", which provides "
                       "only $line $empty $hostname $server $timezone $timeoffset",
                       name, rc->fmt->name);
}

/* A field reference. `literal_name`: the name was backticked or quoted, so
 * it is taken as written and never reported as unknown. */
static plan_value_t *field_value(resolve_ctx_t *rc, const ast_expr_t *e,
                                 bool literal_name, enum resolve_where where)
{
    plan_value_t *v = resolve_value_new(rc, PLAN_V_FIELD, e);
    if (!v)
        return NULL;
    const char *name = e->text;
    v->or_literal = where == RESOLVE_SET && (literal_name || name[0] != '$');
    if (strcmp(name, "*") == 0) {
        v->src = PLAN_SRC_COMMON;
        return v;
    }
    int idx = rc->set_visible ? resolve_vars_get(&rc->vars, name) : -1;
    if (idx >= 0) {
        v->src = PLAN_SRC_SET;
        v->set_index = idx;
        return v;
    }
    if (name[0] == '$') {
        if (logformat_has_var(rc->fmt, name)) {
            bool common = false;
            for (size_t i = 0; logformat_common_vars[i]; i++)
                common |= strcmp(logformat_common_vars[i], name) == 0;
            v->src = common ? PLAN_SRC_COMMON : PLAN_SRC_FORMAT;
            return v;
        }
        if (literal_name || rc->fmt->dynamic_dollar) {
            v->src = PLAN_SRC_DYNAMIC;
            return v;
        }
        unknown_variable(rc, e, where);
        return NULL;
    }
    v->src = PLAN_SRC_DYNAMIC;
    if (!rc->fmt->dynamic && !rc->warned_generic) {
        rc->warned_generic = true;
        parse_warn(rc->pc, e->off,
                   "'%s' names a field, but log format \"%s\" has no named fields, "
                   "so it is always missing (add from TABLE or logformat NAME)",
                   name, rc->fmt->name);
    }
    return v;
}

/* ----------------------------------------------------------- functions */

static const char *const *fn_names(void)
{
    static const char *const names[] = {
        "count", "sum", "min", "max", "avg", "last", "len", "percentage",
        "percentile", "quantile", "top", "md5sum", "maskdigits", "bucket", "regex", "json",
        "p50", "p90", "p95", "p99", NULL,
    };
    return names;
}

static int unknown_function(resolve_ctx_t *rc, const ast_expr_t *e)
{
    char low[64];
    size_t n = e->text_len < sizeof low - 1 ? e->text_len : sizeof low - 1;
    for (size_t i = 0; i < n; i++) {
        char c = e->text[i];
        low[i] = (c >= 'A' && c <= 'Z') ? (char)(c + 32) : c;
    }
    low[n] = '\0';
    double q;
    if (e->text_len < sizeof low - 1 && strcmp(low, e->text) != 0 &&
        resolve_fn_find(low, &q))
        return parse_error(rc->pc, ERR_QUERY, e->off,
                           "unknown function '%s': names of aggregates and functions "
                           "are lower case; did you mean %s?", e->text, low);
    const char *s = resolve_suggest(e->text, fn_names());
    /* `x*2-1(...)`, `1-count($line)`: - and + inside a word are part of it. */
    const char *pm = strpbrk(e->text, "+-");
    if (!s && pm && pm[1])
        return parse_error(rc->pc, ERR_QUERY, e->off,
                           "unknown aggregate or function '%s': '%c' inside a word is part of "
                           "it; write a %c b, with spaces, for arithmetic", e->text, *pm, *pm);
    return parse_error(rc->pc, ERR_QUERY, e->off,
                       "unknown aggregate or function '%s'%s%s%s", e->text,
                       s ? "; did you mean " : "", s ? s : "", s ? "?" : "");
}

/* count(distinct f): the word distinct, unquoted, before the field. */
static bool is_distinct_word(const ast_expr_t *a)
{
    return a->kind == AST_FIELD && !a->quote && strcmp(a->text, "distinct") == 0;
}

const ast_expr_t *resolve_agg_args(resolve_ctx_t *rc, const resolve_fn_t *fn, double q,
                                   const ast_expr_t *e, plan_select_t *s)
{
    int n = (int)e->args->n;
    const ast_expr_t *first = e->args->head;
    s->agg = fn->agg;
    s->quantile = q;
    if (fn->agg == PLAN_AGG_COUNT && n == 2 && is_distinct_word(first)) {
        s->agg = PLAN_AGG_COUNT_DISTINCT;
        return first->next;
    }
    if (n < fn->min_args || n > fn->max_args) {
        parse_error(rc->pc, ERR_QUERY, e->off, "%s takes %d argument%s, got %d: %s%s", e->text,
                    fn->max_args, fn->max_args == 1 ? "" : "s", n, fn->usage,
                    fn->agg == PLAN_AGG_COUNT ? " (or count(distinct field))" : "");
        return NULL;
    }
    if (fn->agg == PLAN_AGG_QUANTILE && n == 2) {
        const ast_expr_t *qe = first->next;
        double v = qe->kind == AST_NUMBER ? strtod(qe->text, NULL) : -1;
        if (!(v >= 0.0 && v <= 1.0)) {
            parse_error(rc->pc, ERR_QUERY, qe->off,
                        "quantile needs a fraction from 0 to 1, e.g. quantile(latency, 0.95)");
            return NULL;
        }
        s->quantile = v;
    }
    if (fn->agg == PLAN_AGG_TOP) {
        const ast_expr_t *ke = first->next;
        long k = ke->kind == AST_NUMBER && strspn(ke->text, "0123456789") == ke->text_len &&
                         ke->text_len <= 4
                     ? strtol(ke->text, NULL, 10)
                     : 0;
        if (k < 1 || k > PLAN_TOP_K_MAX) {
            parse_error(rc->pc, ERR_QUERY, ke->off,
                        "top needs a whole number of values from 1 to %d, e.g. top(path, 10)",
                        PLAN_TOP_K_MAX);
            return NULL;
        }
        s->top_k = (uint32_t)k;
    }
    return first;
}

static int check_arity(resolve_ctx_t *rc, const ast_expr_t *e, const resolve_fn_t *fn)
{
    int n = (int)e->args->n;
    if (n >= fn->min_args && n <= fn->max_args)
        return 0;
    return parse_error(rc->pc, ERR_QUERY, e->off, "%s takes %s%d argument%s, got %d: %s",
                       e->text, fn->min_args != fn->max_args ? "up to " : "",
                       fn->max_args, fn->max_args == 1 ? "" : "s", n, fn->usage);
}

int resolve_pattern(resolve_ctx_t *rc, const ast_expr_t *pat, const char *what, uint32_t *ncap)
{
    if (pat->kind != AST_STRING)
        return parse_error(rc->pc, ERR_QUERY, pat->off,
                           "the pattern of %s must be a \"quoted\" string", what);
    int errcode;
    PCRE2_SIZE erroff;
    pcre2_code *re = pcre2_compile((PCRE2_SPTR)pat->text, pat->text_len, PCRE2_UTF,
                                   &errcode, &erroff, NULL);
    if (!re) {
        /* Retry without UTF so that invalid UTF-8 is not the reported error
         * for a byte-oriented pattern. */
        re = pcre2_compile((PCRE2_SPTR)pat->text, pat->text_len, 0, &errcode,
                           &erroff, NULL);
    }
    if (!re) {
        PCRE2_UCHAR buf[256];
        pcre2_get_error_message(errcode, buf, sizeof buf);
        /* The offset is in the decoded pattern: the caret is exact for a
         * pattern without escapes, and near it otherwise. */
        uint32_t at = pat->off + 1 + (uint32_t)erroff;
        return parse_error(rc->pc, ERR_PATTERN, at < pat->off + pat->len ? at : pat->off,
                           "invalid regex in %s: %s", what, (const char *)buf);
    }
    *ncap = 0;
    pcre2_pattern_info(re, PCRE2_INFO_CAPTURECOUNT, ncap);
    pcre2_code_free(re);
    return 0;
}

static int regex_check(resolve_ctx_t *rc, plan_value_t *v, const ast_expr_t *pat,
                       const ast_expr_t *grp)
{
    uint32_t ncap;
    if (resolve_pattern(rc, pat, "regex()", &ncap) < 0)
        return -1;
    v->regex = pat->text;
    v->regex_group = ncap > 0 ? 1 : 0;
    if (grp) {
        if (grp->kind != AST_NUMBER || strspn(grp->text, "0123456789") != grp->text_len)
            return parse_error(rc->pc, ERR_QUERY, grp->off,
                               "the group of regex() must be a whole number");
        long g = strtol(grp->text, NULL, 10);
        if (grp->text_len > 4 || g > (long)ncap)
            return parse_error(rc->pc, ERR_QUERY, grp->off,
                               "regex() group %s does not exist: the pattern has %u "
                               "capture group%s", grp->text, ncap, ncap == 1 ? "" : "s");
        v->regex_group = (int)g;
    }
    return 0;
}

static plan_value_t *call_value(resolve_ctx_t *rc, const ast_expr_t *e,
                                enum resolve_where where)
{
    double q;
    const resolve_fn_t *fn = resolve_fn_find(e->text, &q);
    if (!fn) {
        unknown_function(rc, e);
        return NULL;
    }
    if (fn->aggregate) {
        parse_error(rc->pc, ERR_QUERY, e->off,
                    "aggregate %s() can only be a select item, not %s%s", e->text,
                    where == RESOLVE_WHERE ? "part of where"
                    : where == RESOLVE_SET ? "part of set"
                    : "inside another aggregate, function or group by",
                    where == RESOLVE_WHERE ? " (having tests the groups: having "
                                             "count($line) > 10)" : "");
        return NULL;
    }
    if (check_arity(rc, e, fn))
        return NULL;
    plan_value_t *v = resolve_value_new(rc, PLAN_V_CALL, e);
    if (!v)
        return NULL;
    v->func = fn->func;
    v->nargs = e->args->n;
    v->args = arena_alloc(rc->pc->arena, v->nargs * sizeof *v->args);
    if (!v->args) {
        parse_nomem(rc->pc);
        return NULL;
    }
    const ast_expr_t *a = e->args->head;
    v->args[0] = resolve_value(rc, a, where);
    if (!v->args[0])
        return NULL;
    if (fn->func == PLAN_FN_BUCKET) {
        const ast_expr_t *w = a->next;
        long long secs = w->kind == AST_STRING ? -1 : resolve_duration(w->text, w->text_len);
        if (secs <= 0) {
            parse_error(rc->pc, ERR_QUERY, w->off,
                        "bucket width '%s' is not a duration such as 30s, 5m, 1h or 1d",
                        w->text);
            return NULL;
        }
        v->bucket_seconds = secs;
        plan_value_t *wv = resolve_value_new(rc, PLAN_V_NUMBER, w);
        if (!wv)
            return NULL;
        wv->number = (double)secs;
        v->args[1] = wv;
        return v;
    }
    if (fn->func == PLAN_FN_JSON) {
        if (!e->path) {
            parse_error(rc->pc, ERR_QUERY, e->off + e->len,
                        "json() needs a path after it: json(%s).level", a->text);
            return NULL;
        }
        const char *bad = e->path;
        while (*bad && (bad = strstr(bad, "..")) == NULL)
            break;
        size_t pl = strlen(e->path);
        if (bad || pl == 0 || e->path[pl - 1] == '.') {
            parse_error(rc->pc, ERR_QUERY, e->path_off,
                        "json() path '.%s' has an empty step (write json(%s).a.b)", e->path,
                        a->text);
            return NULL;
        }
        v->regex = e->path;
        return v;
    }
    if (fn->func == PLAN_FN_REGEX) {
        const ast_expr_t *pat = a->next;
        if (regex_check(rc, v, pat, pat->next))
            return NULL;
        for (size_t i = 1; i < v->nargs; i++) {
            a = a->next;
            v->args[i] = resolve_value_new(rc, a->kind == AST_STRING ? PLAN_V_STRING
                                                             : PLAN_V_NUMBER, a);
            if (!v->args[i])
                return NULL;
            if (a->kind == AST_NUMBER)
                v->args[i]->number = strtod(a->text, NULL);
        }
        return v;
    }
    return v;
}

plan_value_t *resolve_value(resolve_ctx_t *rc, const ast_expr_t *e,
                            enum resolve_where where)
{
    plan_value_t *v;
    switch (e->kind) {
    case AST_FIELD:
        return field_value(rc, e, e->quote != 0, where);
    case AST_STRING:
        return resolve_value_new(rc, PLAN_V_STRING, e);
    case AST_NUMBER:
        v = resolve_value_new(rc, PLAN_V_NUMBER, e);
        if (v)
            v->number = strtod(e->text, NULL);
        return v;
    case AST_CALL:
        return call_value(rc, e, where);
    case AST_ARITH:
        return resolve_arith(rc, e, where, NULL, NULL);
    default:
        parse_error(rc->pc, ERR_QUERY, e->off, "a condition cannot be used as a value");
        return NULL;
    }
}

plan_value_t *resolve_arith(resolve_ctx_t *rc, const ast_expr_t *e, enum resolve_where where,
                            resolve_operand_fn operand, void *arg)
{
    plan_value_t *v = resolve_value_new(rc, PLAN_V_ARITH, e);
    if (!v)
        return NULL;
    v->text = e->text;
    v->len = 1;
    v->arith = e->text[0];
    v->offset = e->op_off;
    v->nargs = 2;
    v->args = arena_alloc(rc->pc->arena, 2 * sizeof *v->args);
    if (!v->args) {
        parse_nomem(rc->pc);
        return NULL;
    }
    const ast_expr_t *ops[2] = {e->lhs, e->rhs};
    for (int i = 0; i < 2; i++) {
        /* `x*2-1`: the word 2-1 would be a field name, as `1002-071949` is;
         * as a number's operand it is a subtraction written without spaces. */
        const ast_expr_t *w = ops[i];
        const char *pm = w->kind == AST_FIELD && !w->quote && w->text[0] >= '0' &&
                                 w->text[0] <= '9' ? strpbrk(w->text, "+-") : NULL;
        if (pm) {
            parse_error(rc->pc, ERR_QUERY, w->off,
                        "'%s' is one word, a field name: write %.*s %c %s, with spaces, for "
                        "arithmetic", w->text, (int)(pm - w->text), w->text, *pm, pm + 1);
            return NULL;
        }
        v->args[i] = operand ? operand(rc, ops[i], arg) : resolve_value(rc, ops[i], where);
        if (!v->args[i])
            return NULL;
    }
    return v;
}

plan_value_t *resolve_field_named(resolve_ctx_t *rc, const ast_expr_t *e)
{
    switch (e->kind) {
    case AST_FIELD:
        return field_value(rc, e, e->quote != 0, RESOLVE_SELECT);
    case AST_STRING:
        return field_value(rc, e, true, RESOLVE_SELECT);
    case AST_NUMBER: {
        /* DTail reads `select 5` as the field named "5". */
        plan_value_t *v = resolve_value_new(rc, PLAN_V_FIELD, e);
        if (v)
            v->src = PLAN_SRC_DYNAMIC;
        return v;
    }
    default:
        return resolve_value(rc, e, RESOLVE_SELECT);
    }
}
