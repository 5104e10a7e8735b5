/* fieldreport.c: bareword fields seen or not, non-numeric values, and the
 * warnings about them. */
#include "exec/fieldreport.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/log.h"
#include "base/term.h"
#include "parser/parser.h"
#include "wire/codec.h"

#define FR_MAGIC "DTFR"
/* 2 adds a u64 of divisions by zero at the end; a report without any is
 * written as 1, the bytes every build reads. The parse problems follow
 * the divisions, still in version 2: a decoder ignores bytes after the
 * fields it knows, so a client from before them reads the rest. */
#define FR_VERSION 2

static int add_field(field_report_t *r, const char *name, err_t *e)
{
    if (field_report_find(r, name) >= 0)
        return 0;
    char **f = realloc(r->fields, (r->n_fields + 1) * sizeof *f);
    if (!f)
        return err_set(e, ERR_NOMEM, "out of memory");
    r->fields = f;
    if (!(f[r->n_fields] = strdup(name)))
        return err_set(e, ERR_NOMEM, "out of memory");
    r->n_fields++;
    return 0;
}

static int walk(field_report_t *r, const plan_value_t *v, err_t *e)
{
    if (!v)
        return 0;
    if (v->kind == PLAN_V_FIELD)
        return v->src == PLAN_SRC_DYNAMIC && !v->or_literal ? add_field(r, v->text, e) : 0;
    if (v->kind == PLAN_V_CALL || v->kind == PLAN_V_ARITH)
        for (size_t i = 0; i < v->nargs; i++)
            if (walk(r, v->args[i], e) < 0)
                return -1;
    return 0;
}

/* The bareword fields of condition c's values. */
static int walk_cond(field_report_t *r, const plan_cond_t *c, err_t *e)
{
    for (size_t i = 0; i < c->n_kids; i++)
        if (walk_cond(r, c->kids[i], e) < 0)
            return -1;
    if (walk(r, c->lhs, e) < 0)
        return -1;
    return walk(r, c->rhs, e);
}

int field_report_init(field_report_t *r, const plan_t *plan, err_t *e)
{
    memset(r, 0, sizeof *r);
    int rc = 0;
    for (size_t i = 0; rc == 0 && i < plan->n_select; i++)
        rc = walk(r, plan->select[i].value, e);
    for (size_t i = 0; rc == 0 && i < plan->n_where; i++)
        rc = walk_cond(r, &plan->where[i], e);
    for (size_t i = 0; rc == 0 && i < plan->n_set; i++)
        rc = walk(r, plan->set[i].rhs, e);
    for (size_t i = 0; rc == 0 && i < plan->n_group_by; i++)
        rc = walk(r, plan->group_by[i], e);
    r->n_items = plan->n_select;
    r->seen = calloc(r->n_fields ? r->n_fields : 1, 1);
    r->nonnum = calloc(r->n_items ? r->n_items : 1, sizeof *r->nonnum);
    if (rc == 0 && (!r->seen || !r->nonnum))
        rc = err_set(e, ERR_NOMEM, "out of memory");
    if (rc < 0)
        field_report_free(r);
    return rc;
}

void field_report_free(field_report_t *r)
{
    for (size_t i = 0; i < r->n_fields; i++)
        free(r->fields[i]);
    for (size_t i = 0; i < r->n_names; i++)
        free(r->names[i]);
    free(r->fields);
    free(r->seen);
    free(r->nonnum);
    memset(r, 0, sizeof *r);
}

long field_report_find(const field_report_t *r, const char *name)
{
    for (size_t i = 0; i < r->n_fields; i++)
        if (strcmp(r->fields[i], name) == 0)
            return (long)i;
    return -1;
}

void field_report_add_name(field_report_t *r, const char *p, size_t len)
{
    if (r->n_names == FIELDREPORT_NAMES_MAX || len == 0 || memchr(p, '\0', len))
        return;
    for (size_t i = 0; i < r->n_names; i++)
        if (strlen(r->names[i]) == len && memcmp(r->names[i], p, len) == 0)
            return;
    char *c = malloc(len + 1);
    if (!c)
        return;     /* a hint less, nothing else */
    memcpy(c, p, len);
    c[len] = '\0';
    r->names[r->n_names++] = c;
}

static int has_problems(const parse_problems_t *p)
{
    return p->lines_unparsed || p->times_unparsable;
}

void field_report_merge(field_report_t *into, const field_report_t *from)
{
    for (size_t i = 0; i < from->n_fields; i++) {
        long k = field_report_find(into, from->fields[i]);
        if (k >= 0)
            into->seen[k] |= from->seen[i];
    }
    for (size_t i = 0; i < into->n_items && i < from->n_items; i++)
        into->nonnum[i] += from->nonnum[i];
    for (size_t i = 0; i < from->n_names; i++)
        field_report_add_name(into, from->names[i], strlen(from->names[i]));
    into->lines_parsed += from->lines_parsed;
    into->divzero += from->divzero;
    into->unknown |= from->unknown;
    parse_problems_merge(&into->parsing, &from->parsing);
}

void parse_problems_merge(parse_problems_t *into, const parse_problems_t *from)
{
    if (!has_problems(from))
        return;
    if (!into->format[0])
        memcpy(into->format, from->format, sizeof into->format);
    else if (from->format[0] && strcmp(into->format, from->format) != 0)
        snprintf(into->format, sizeof into->format, "several");
    into->lines_unparsed += from->lines_unparsed;
    into->times_unparsable += from->times_unparsable;
    for (int k = 0; k < from->n_examples && into->n_examples < FIELDREPORT_EXAMPLES; k++)
        memcpy(into->examples[into->n_examples++], from->examples[k], sizeof from->examples[k]);
    for (int k = 0; k < from->n_time_examples && into->n_time_examples < FIELDREPORT_EXAMPLES; k++)
        memcpy(into->time_examples[into->n_time_examples++], from->time_examples[k],
               sizeof from->time_examples[k]);
}


/* ---- encoding: "DTFR", u8 version, u64 lines parsed, u32 fields and per
 * field a u32-length name and a u8 seen, u32 items and a u64 per item,
 * u32 names and each a u32-length name; version 2: then a u64 of divisions
 * by zero, and, when any, the parse problems: a u32-length format name,
 * u64 lines unparsed, u32
 * examples and each a u32-length text, u64 unparsable times, u32 examples
 * and their texts; integers little-endian (wire/codec.h). ---- */

static void put_str(agg_bytes_t *w, const char *s)
{
    wire_put_lestr(w, s, (uint32_t)strlen(s));
}

unsigned char *field_report_encode(const field_report_t *r, size_t *len)
{
    agg_bytes_t w = {0};
    int problems = has_problems(&r->parsing);
    uint8_t version = r->divzero || problems ? FR_VERSION : 1;
    wire_put_bytes(&w, FR_MAGIC, 4);
    wire_put_u8(&w, version);
    wire_put_le64(&w, r->lines_parsed);
    wire_put_le32(&w, (uint32_t)r->n_fields);
    for (size_t i = 0; i < r->n_fields; i++) {
        put_str(&w, r->fields[i]);
        wire_put_u8(&w, r->seen[i]);
    }
    wire_put_le32(&w, (uint32_t)r->n_items);
    for (size_t i = 0; i < r->n_items; i++)
        wire_put_le64(&w, r->nonnum[i]);
    wire_put_le32(&w, (uint32_t)r->n_names);
    for (size_t i = 0; i < r->n_names; i++)
        put_str(&w, r->names[i]);
    if (version >= 2)
        wire_put_le64(&w, r->divzero);
    if (problems) {
        const parse_problems_t *pp = &r->parsing;
        put_str(&w, pp->format);
        wire_put_le64(&w, pp->lines_unparsed);
        wire_put_le32(&w, (uint32_t)pp->n_examples);
        for (int k = 0; k < pp->n_examples; k++)
            put_str(&w, pp->examples[k]);
        wire_put_le64(&w, pp->times_unparsable);
        wire_put_le32(&w, (uint32_t)pp->n_time_examples);
        for (int k = 0; k < pp->n_time_examples; k++)
            put_str(&w, pp->time_examples[k]);
    }
    if (w.failed) {
        free(w.p);
        return NULL;
    }
    *len = w.len;
    return w.p;
}

typedef struct cur {
    const unsigned char *p, *end;
    int bad;
} cur_t;

static uint32_t get_u32(cur_t *c)
{
    if (c->end - c->p < 4) {
        c->bad = 1;
        return 0;
    }
    uint32_t v = wire_le32_load(c->p);
    c->p += 4;
    return v;
}

static uint64_t get_u64(cur_t *c)
{
    uint64_t lo = get_u32(c);
    return lo | (uint64_t)get_u32(c) << 32;
}

static const char *get_str(cur_t *c, uint32_t *n)
{
    *n = get_u32(c);
    if (c->bad || (size_t)(c->end - c->p) < *n) {
        c->bad = 1;
        return NULL;
    }
    const char *s = (const char *)c->p;
    c->p += *n;
    return s;
}

/* n example texts into ex (cap slots of size bytes each, cut to fit). */
static int get_examples(cur_t *c, char *ex, size_t size, int cap)
{
    uint32_t n = get_u32(c);
    int kept = 0;
    for (uint32_t i = 0; !c->bad && i < n; i++) {
        uint32_t len;
        const char *s = get_str(c, &len);
        if (c->bad || kept >= cap)
            continue;
        snprintf(ex + (size_t)kept * size, size, "%.*s", (int)(len < size ? len : size - 1), s);
        kept++;
    }
    return kept;
}

static void get_problems(cur_t *c, parse_problems_t *pp)
{
    uint32_t n;
    const char *f = get_str(c, &n);
    if (!c->bad)
        snprintf(pp->format, sizeof pp->format, "%.*s",
                 (int)(n < sizeof pp->format ? n : sizeof pp->format - 1), f);
    pp->lines_unparsed = get_u64(c);
    pp->n_examples = get_examples(c, (char *)pp->examples, sizeof pp->examples[0],
                                  FIELDREPORT_EXAMPLES);
    pp->times_unparsable = get_u64(c);
    pp->n_time_examples = get_examples(c, (char *)pp->time_examples, sizeof pp->time_examples[0],
                                       FIELDREPORT_EXAMPLES);
}

int field_report_merge_encoded(field_report_t *r, const unsigned char *p, size_t len, err_t *e)
{
    cur_t c = {p, p + len, 0};
    if (len < 5 || memcmp(p, FR_MAGIC, 4) != 0)
        return err_set(e, ERR_INPUT, "field report: bad magic");
    if (p[4] < 1 || p[4] > FR_VERSION)
        return err_set(e, ERR_INPUT, "field report: unsupported version %u", p[4]);
    c.p += 5;
    field_report_t from;
    memset(&from, 0, sizeof from);
    from.lines_parsed = get_u64(&c);
    uint32_t n_fields = get_u32(&c);
    /* Fields are matched by name: read straight into r. */
    for (uint32_t i = 0; !c.bad && i < n_fields; i++) {
        uint32_t n;
        const char *s = get_str(&c, &n);
        if (c.bad || c.p == c.end) {
            c.bad = 1;
            break;
        }
        uint8_t seen = *c.p++;
        for (size_t k = 0; s && k < r->n_fields; k++)
            if (strlen(r->fields[k]) == n && memcmp(r->fields[k], s, n) == 0)
                r->seen[k] |= seen != 0;
    }
    uint32_t n_items = get_u32(&c);
    if (!c.bad && n_items != r->n_items)
        return err_set(e, ERR_INPUT, "field report: %u select items, expected %zu", n_items,
                       r->n_items);
    for (uint32_t i = 0; !c.bad && i < n_items; i++)
        r->nonnum[i] += get_u64(&c);
    uint32_t n_names = get_u32(&c);
    for (uint32_t i = 0; !c.bad && i < n_names; i++) {
        uint32_t n;
        const char *s = get_str(&c, &n);
        if (!c.bad)
            field_report_add_name(r, s, n);
    }
    uint64_t divzero = p[4] >= 2 ? get_u64(&c) : 0;
    if (p[4] >= 2 && !c.bad && c.p < c.end)
        get_problems(&c, &from.parsing);
    if (c.bad)
        return err_set(e, ERR_INPUT, "field report: truncated");
    r->lines_parsed += from.lines_parsed;
    r->divzero += divzero;
    parse_problems_merge(&r->parsing, &from.parsing);
    return 0;
}

static bool numeric_agg(enum plan_agg agg)
{
    return agg != PLAN_AGG_COUNT && agg != PLAN_AGG_LAST && agg != PLAN_AGG_LEN &&
           agg != PLAN_AGG_COUNT_DISTINCT && agg != PLAN_AGG_TOP;
}


/* Whether select item i aggregates a bareword no parsed line had. */
static bool item_unseen(const field_report_t *r, const plan_t *plan, size_t i)
{
    const plan_value_t *v = plan->select[i].value;
    if (r->unknown || !v || v->kind != PLAN_V_FIELD || v->src != PLAN_SRC_DYNAMIC)
        return false;
    long k = field_report_find(r, v->text);
    return k >= 0 && !r->seen[k];
}

void field_report_mark_null(const field_report_t *r, const plan_t *plan, agg_spec_t *specs)
{
    for (size_t i = 0; i < plan->n_select; i++)
        specs[i].null_empty = numeric_agg(plan->select[i].agg) && !item_unseen(r, plan, i);
}

/* What a warning calls select item i's values: its field, else the item. */
static const char *item_label(const plan_t *plan, size_t i)
{
    const plan_value_t *v = plan->select[i].value;
    return v && v->kind == PLAN_V_FIELD ? v->text : plan->select[i].name;
}

int field_report_warn(const field_report_t *r, const plan_t *plan, const char *prog, FILE *f)
{
    int n = 0;
    if (!r->unknown && r->lines_parsed) {
        const char **cands = calloc(r->n_names + 1, sizeof *cands);
        for (size_t i = 0; cands && i < r->n_names; i++)
            cands[i] = r->names[i];
        for (size_t i = 0; i < r->n_fields; i++) {
            if (r->seen[i])
                continue;
            const char *s = cands ? resolve_suggest(r->fields[i], cands) : NULL;
            term_fprintf(f, "%s: warning: field '%s' was in no parsed line%s%s%s\n", prog,
                    r->fields[i], s ? "; did you mean '" : "", s ? s : "", s ? "'?" : "");
            n++;
        }
        free(cands);
    }
    for (size_t i = 0; i < r->n_items && i < plan->n_select; i++) {
        if (!r->nonnum[i])
            continue;
        /* Two aggregates of one field saw the same values: one warning. */
        const char *label = item_label(plan, i);
        bool dup = false;
        for (size_t k = 0; k < i && !dup; k++)
            dup = r->nonnum[k] && strcmp(item_label(plan, k), label) == 0;
        if (dup)
            continue;
        term_fprintf(f, "%s: warning: field '%s': %llu %s\n", prog, label,
                (unsigned long long)r->nonnum[i],
                r->nonnum[i] == 1 ? "value was not a number" : "values were not numbers");
        n++;
    }
    if (r->divzero) {
        term_fprintf(f, "%s: warning: %llu division%s by zero: %s\n", prog,
                     (unsigned long long)r->divzero, r->divzero == 1 ? "" : "s",
                     "each left its value missing (an empty cell in a column)");
        n++;
    }
    return n;
}

void field_report_warn_parsing(const parse_problems_t *p, const char *format, const char *prog,
                               FILE *f)
{
    if (p->format[0])
        format = p->format;
    if (p->lines_unparsed && log_level < LOG_DEBUG)
        fprintf(f, "%s: %llu lines could not be parsed as log format %s "
                   "(--logLevel debug shows examples)\n",
                prog, (unsigned long long)p->lines_unparsed, format);
    for (int i = 0; i < p->n_examples && log_level >= LOG_DEBUG; i++)
        term_fprintf(f, "%s: unparsed: %s\n", prog, p->examples[i]);
    if (p->times_unparsable)
        fprintf(f, "%s: %llu time%s could not be read as a timestamp, so %s missing "
                   "($time, bucket())%s\n",
                prog, (unsigned long long)p->times_unparsable,
                p->times_unparsable == 1 ? "" : "s", p->times_unparsable == 1 ? "it is" : "they are",
                log_level < LOG_DEBUG ? " (--logLevel debug shows examples)" : "");
    for (int i = 0; i < p->n_time_examples && log_level >= LOG_DEBUG; i++)
        term_fprintf(f, "%s: unparsable time: '%s'\n", prog, p->time_examples[i]);
}
