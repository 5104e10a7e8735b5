/* fmt_default.c: the `default` log format, DTail's own MapReduce line
 * (dtail-behaviour.md §3.2):
 *
 *   LEVEL|TIME|PID|CALLER|CPUS|GOROUTINES|CGOCALLS|LOADAVG|UPTIME|MAPREDUCE:TABLE|k=v|...
 *
 * split on '|' with no escaping. A line is taken only if field 0 starts
 * with "INFO", field 9 with "MAPREDUCE:" and there are at least 11 fields;
 * other lines are EXTRACT_SKIP. Fields 10.. are key=value pairs split on the
 * first '='; a token without '=' makes the line EXTRACT_ERROR, as in DTail.
 *
 * With a table filter (extractor_set_table) a line without the literal is
 * EXTRACT_NO_TABLE. Field 9 proves the literal for nearly every line
 * ("MAPREDUCE:STATS" for "|MAPREDUCE:STATS|"), so only the other lines are
 * searched.
 *
 * This is the hot path of dmap: one vector pass over the line finds every
 * '|' and the first '=' of each token; only requested fields are written,
 * and a key is looked up only in the small table of requested names. */
#include "exec/extract/extract_int.h"

#include <stdio.h>

#define DEF_TOKS 64          /* tokens taken from the splitter at once */
#define DEF_MIN_FIELDS 11    /* fewer: not a MapReduce line */

static bool default_plan_var(const char *name, field_plan_t *fp)
{
    static const struct {
        const char *name;   /* the variable */
        uint8_t kind;       /* FIELD_POS or FIELD_TIMEPART */
        uint8_t a, b;       /* pos, or sub_off and sub_len */
    } vars[] = {
        {"$severity", FIELD_POS, 0, 0},   {"$loglevel", FIELD_POS, 0, 0},
        {"$time", FIELD_POS, 1, 0},       {"$pid", FIELD_POS, 2, 0},
        {"$caller", FIELD_POS, 3, 0},     {"$cpus", FIELD_POS, 4, 0},
        {"$goroutines", FIELD_POS, 5, 0}, {"$cgocalls", FIELD_POS, 6, 0},
        {"$loadavg", FIELD_POS, 7, 0},    {"$uptime", FIELD_POS, 8, 0},
        {"$date", FIELD_TIMEPART, 0, 8},  {"$hour", FIELD_TIMEPART, 9, 2},
        {"$minute", FIELD_TIMEPART, 11, 2}, {"$second", FIELD_TIMEPART, 13, 2},
    };
    for (size_t k = 0; k < sizeof vars / sizeof vars[0]; k++) {
        if (strcmp(vars[k].name, name) != 0)
            continue;
        fp->kind = vars[k].kind;
        if (vars[k].kind == FIELD_POS) {
            fp->pos = vars[k].a;
        } else {
            fp->sub_off = vars[k].a;
            fp->sub_len = vars[k].b;
        }
        return true;
    }
    return false;
}

/* Whether field 1 is YYYYMMDD-HHMMSS (only then are $date..$second set;
 * DTail checks the length only, we also check the shape). */
static bool time_is_full(const char *t, uint32_t len)
{
    if (len != 15 || t[8] != '-')
        return false;
    for (int k = 0; k < 15; k++)
        if (k != 8 && (unsigned char)(t[k] - '0') > 9)
            return false;
    return true;
}

/* Writes the variables of one accepted line; sep[k] is the offset of the
 * '|' that ends field k (k < 10). */
static inline void default_fill(const extractor_t *x, size_t i, const char *p, uint32_t len,
                                const uint32_t *sep, sv_t *const *cols)
{
    int full_time = -1;   /* not computed yet */
    for (size_t f = 0; f < x->n_fields; f++) {
        const field_plan_t *fp = &x->plan[f];
        sv_t *v = &cols[f][i];
        uint32_t start;
        switch (fp->kind) {
        case FIELD_CONST:
            *v = fp->value;
            break;
        case FIELD_LINE:
            v->p = p;
            v->len = len;
            break;
        case FIELD_POS:
            start = fp->pos ? sep[fp->pos - 1] + 1 : 0;
            v->p = p + start;
            v->len = sep[fp->pos] - start;
            break;
        case FIELD_TIMEPART:
            start = sep[0] + 1;
            if (full_time < 0)
                full_time = time_is_full(p + start, sep[1] - start);
            if (full_time) {
                v->p = p + start + fp->sub_off;
                v->len = fp->sub_len;
            } else {
                v->p = NULL;
                v->len = SV_MISSING;
            }
            break;
        default:
            v->p = NULL;
            v->len = SV_MISSING;
            break;
        }
    }
}

/* Records the error of a token without '='. Out of line: its buffer would
 * otherwise cost every token a large stack frame. */
static __attribute__((noinline, cold)) void default_kv_error(extractor_t *x, const char *p,
                                                             uint32_t start, uint32_t end)
{
    char q[96];
    extract_quote(q, sizeof q, p + start, end - start, 64);
    extract_error(x, "Unable to parse key-value token '%s'", q);
}

/* A key=value token [start, end) with its first '=' at eq; false (and the
 * error recorded) when it has no '='. */
static inline __attribute__((always_inline)) bool default_kv(extractor_t *x, size_t i,
                                                             const char *p, uint32_t start,
                                                             uint32_t end, uint32_t eq,
                                                             sv_t *const *cols)
{
    if (eq == EXTRACT_NONE) {
        default_kv_error(x, p, start, end);
        return false;
    }
    if (x->n_dyn) {
        uint32_t f = extract_dyn_field(x, p + start, eq - start);
        if (f != EXTRACT_NONE) {
            cols[f][i].p = p + eq + 1;
            cols[f][i].len = end - eq - 1;
        }
    }
    return true;
}

static bool is_mapreduce(const char *p, uint32_t start, uint32_t end)
{
    return end - start >= 10 && memcmp(p + start, "MAPREDUCE:", 10) == 0;
}

/* Whether the untrimmed line [raw, raw+raw_len) holds the table literal. */
static bool default_has_table(const extractor_t *x, const char *raw, uint32_t raw_len)
{
    return literal_find(&x->table_find, raw, raw + raw_len) != NULL;
}

/* Whether an accepted line is of the table: field 9 [start, end) proves
 * it, or else the line is searched. */
static inline bool default_in_table(const extractor_t *x, const char *p, uint32_t start,
                                    uint32_t end, const char *raw, uint32_t raw_len)
{
    if (!x->table_lit)
        return true;
    uint32_t n = end - start;
    if (x->table_fast && (x->table_f9_exact ? n == x->table_f9_len : n >= x->table_f9_len) &&
        extract_bytes_equal(p + start, x->table_f9, x->table_f9_len))
        return true;
    return default_has_table(x, raw, raw_len);
}

/* A line of at most SPLIT_SHORT_MAX bytes; raw is the untrimmed line. */
static uint8_t default_line_short(extractor_t *x, size_t i, const char *p, uint32_t len,
                                  const char *raw, uint32_t raw_len, sv_t *const *cols)
{
    split_short_t s;
    split_short_init(&s, p, len, '|', '=');
    if (s.n_sep + 1 < DEF_MIN_FIELDS || !is_mapreduce(p, s.pos[8] + 1u, s.pos[9]))
        return EXTRACT_SKIP;
    if (!default_in_table(x, p, s.pos[8] + 1u, s.pos[9], raw, raw_len))
        return EXTRACT_NO_TABLE;
    uint32_t sep[10];
    for (int k = 0; k < 10; k++)
        sep[k] = s.pos[k];
    default_fill(x, i, p, len, sep, cols);
    for (uint32_t t = DEF_MIN_FIELDS - 1; t <= s.n_sep; t++) {
        uint32_t start = s.pos[t - 1] + 1u, end = split_short_end(&s, t);
        if (!default_kv(x, i, p, start, end, split_short_eq(&s, start, end), cols))
            return EXTRACT_ERROR;
    }
    return EXTRACT_OK;
}

/* Any line; raw is the untrimmed line. */
static uint8_t default_line_long(extractor_t *x, size_t i, const char *p, uint32_t len,
                                 const char *raw, uint32_t raw_len, sv_t *const *cols)
{
    split_tok_t tok[DEF_TOKS];
    split_t s;
    split_init(&s, p, len, '|', '=');
    size_t nt = split_fill(&s, tok, DEF_TOKS);
    if (nt < DEF_MIN_FIELDS || !is_mapreduce(p, tok[9].start, tok[9].end))
        return EXTRACT_SKIP;
    if (!default_in_table(x, p, tok[9].start, tok[9].end, raw, raw_len))
        return EXTRACT_NO_TABLE;
    uint32_t sep[10];
    for (int k = 0; k < 10; k++)
        sep[k] = tok[k].end;
    default_fill(x, i, p, len, sep, cols);
    size_t t = DEF_MIN_FIELDS - 1;
    for (;;) {
        for (; t < nt; t++)
            if (!default_kv(x, i, p, tok[t].start, tok[t].end, tok[t].eq, cols))
                return EXTRACT_ERROR;
        if (s.done)
            break;
        nt = split_fill(&s, tok, DEF_TOKS);
        t = 0;
    }
    return EXTRACT_OK;
}

static void default_batch(extractor_t *x, const char *const *line, const uint32_t *len,
                          size_t n, sv_t *const *cols, uint8_t *status)
{
    for (size_t i = 0; i < n; i++) {
        const char *p = line[i];
        uint32_t l = len[i];
        extract_trim(&p, &l);
        uint8_t st;
        if (l < 4 || memcmp(p, "INFO", 4) != 0)
            st = EXTRACT_SKIP;
        else if (l <= SPLIT_SHORT_MAX)
            st = default_line_short(x, i, p, l, line[i], len[i], cols);
        else
            st = default_line_long(x, i, p, l, line[i], len[i], cols);
        if (st == EXTRACT_SKIP && x->table_lit && !default_has_table(x, line[i], len[i]))
            st = EXTRACT_NO_TABLE;
        if (st != EXTRACT_OK)
            extract_line_missing(x, i, cols);
        else
            extract_line_dups(x, i, cols);
        status[i] = st;
    }
}

const extract_format_t extract_format_default = {
    "default", true, true, default_plan_var, default_batch,
};
