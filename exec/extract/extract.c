/* extract.c: the extractor dispatcher: picks the format, plans each
 * requested field (common variable, format variable or dynamic key), builds
 * the name lookups, owns the environment strings and the per-batch scratch,
 * and implements DTail's whitespace trimming. The per-line work is in the
 * fmt_<name>.c files. */
#include "exec/extract/extract_int.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "base/grow.h"
#include "exec/extract/logtime.h"

static const extract_format_t *const formats[] = {
    &extract_format_default, &extract_format_generic, &extract_format_generickv,
    &extract_format_csv, &extract_format_csvnoheader, &extract_format_tsv,
    &extract_format_json, &extract_format_k8s, &extract_format_logfmt,
    &extract_format_nginx, &extract_format_apache, &extract_format_syslog,
    &extract_format_pattern, NULL,
};

static const extract_format_t *format_find(const char *name)
{
    for (size_t i = 0; name && formats[i]; i++)
        if (strcmp(formats[i]->name, name) == 0)
            return formats[i];
    return NULL;
}

/* ---- name tables ---- */

/* Builds the table over keys[0..n); the names are distinct. */
static int name_table_build(name_table_t *t, const dyn_key_t *keys, uint32_t n)
{
    uint32_t size = 16;
    while (size < 4 * (uint64_t)n)
        size *= 2;
    t->slot = calloc(size, sizeof *t->slot);
    if (!t->slot)
        return -1;
    t->mask = size - 1;
    for (uint32_t k = 0; k < n; k++) {
        uint32_t i = extract_name_hash(keys[k].name, keys[k].len) & t->mask;
        while (t->slot[i])
            i = (i + 1) & t->mask;
        t->slot[i] = k + 1;
    }
    return 0;
}

/* ---- errors ---- */

void extract_error(extractor_t *x, const char *fmt, ...)
{
    if (x->have_err)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(x->err, sizeof x->err, fmt, ap);
    va_end(ap);
    x->have_err = true;
}

void extract_quote(char *out, size_t cap, const char *p, size_t len, size_t max)
{
    size_t o = 0;
    if (cap == 0)
        return;
    for (size_t i = 0; i < len && i < max; i++) {
        unsigned char c = (unsigned char)p[i];
        if (o + 5 >= cap)
            break;
        if (c >= 0x20 && c < 0x7f && c != '\\') {
            out[o++] = (char)c;
        } else {
            snprintf(out + o, cap - o, "\\x%02x", c);
            o += 4;
        }
    }
    if (len > max && o + 4 < cap) {
        memcpy(out + o, "...", 3);
        o += 3;
    }
    out[o] = '\0';
}

/* ---- scratch ---- */

char *extract_scratch(extractor_t *x, size_t n)
{
    scratch_t *s = &x->scratch;
    if (s->cap - s->used >= n) {
        char *p = s->buf + s->used;
        s->used += n;
        return p;
    }
    size_t want = s->cap * 2 > 4096 ? s->cap * 2 : 4096;
    if (want < n)
        want = n;
    if (s->buf && s->used) {
        /* Views into the current block are live: retire it. */
        if (GROW_ARRAY(s->old, s->cap_old, s->n_old + 1, 4) < 0)
            return NULL;
        char *nb = malloc(want);
        if (!nb)
            return NULL;
        s->old[s->n_old].p = s->buf;
        s->old[s->n_old].used = s->used;
        s->n_old++;
        s->buf = nb;
    } else {
        char *nb = realloc(s->buf, want);
        if (!nb)
            return NULL;
        s->buf = nb;
    }
    s->cap = want;
    s->used = n;
    return s->buf;
}

/* A new batch: no view is live. If the last batch needed several blocks,
 * the current one is grown to their total so the next batch fits in one. */
static void scratch_reset(scratch_t *s)
{
    size_t total = s->used;
    for (size_t i = 0; i < s->n_old; i++) {
        total += s->old[i].used;
        free(s->old[i].p);
    }
    if (s->n_old && total > s->cap) {
        char *nb = malloc(total);
        if (nb) {
            free(s->buf);
            s->buf = nb;
            s->cap = total;
        }
    }
    s->n_old = 0;
    s->used = 0;
}

static void scratch_free(scratch_t *s)
{
    scratch_reset(s);
    free(s->old);
    free(s->buf);
    memset(s, 0, sizeof *s);
}

static bool span_in(const char *p, size_t len, const char *base, size_t size)
{
    return base && p >= base && len <= size && (size_t)(p - base) <= size - len;
}

bool extract_owns(const extractor_t *x, const char *p, size_t len)
{
    size_t env_len = 0;
    for (int k = 0; k < 4; k++)
        env_len += strlen(x->env_block + env_len) + 1;
    if (span_in(p, len, x->env_block, env_len))
        return true;
    if (span_in(p, len, x->fmt->consts, x->fmt->consts_len))
        return true;
    if (span_in(p, len, x->scratch.buf, x->scratch.used))
        return true;
    for (size_t i = 0; i < x->scratch.n_old; i++)
        if (span_in(p, len, x->scratch.old[i].p, x->scratch.old[i].used))
            return true;
    return false;
}

/* ---- trimming ---- */

/* Bytes of a Unicode space (not ASCII) at p, 0 if none. unicode.IsSpace:
 * U+0085 U+00A0 U+1680 U+2000..U+200A U+2028 U+2029 U+202F U+205F U+3000. */
static uint32_t uspace_at(const unsigned char *p, uint32_t n)
{
    if (n >= 2 && p[0] == 0xC2 && (p[1] == 0x85 || p[1] == 0xA0))
        return 2;
    if (n < 3)
        return 0;
    if (p[0] == 0xE1 && p[1] == 0x9A && p[2] == 0x80)
        return 3;
    if (p[0] == 0xE2 && p[1] == 0x80 &&
        (p[2] <= 0x8A || p[2] == 0xA8 || p[2] == 0xA9 || p[2] == 0xAF) && p[2] >= 0x80)
        return 3;
    if (p[0] == 0xE2 && p[1] == 0x81 && p[2] == 0x9F)
        return 3;
    if (p[0] == 0xE3 && p[1] == 0x80 && p[2] == 0x80)
        return 3;
    return 0;
}

static bool ascii_space(unsigned char c)
{
    return c == ' ' || (c >= '\t' && c <= '\r');
}

void extract_trim_slow(const char **pp, uint32_t *lenp)
{
    const unsigned char *p = (const unsigned char *)*pp;
    uint32_t n = *lenp;
    for (;;) {
        if (n && ascii_space(p[0])) {
            p++;
            n--;
        } else if (n && p[0] >= 0x80) {
            uint32_t k = uspace_at(p, n);
            if (!k)
                break;
            p += k;
            n -= k;
        } else {
            break;
        }
    }
    for (;;) {
        if (n && ascii_space(p[n - 1])) {
            n--;
        } else if (n >= 2 && p[n - 1] >= 0x80) {
            if (uspace_at(p + n - 2, 2) == 2)
                n -= 2;
            else if (n >= 3 && uspace_at(p + n - 3, 3) == 3)
                n -= 3;
            else
                break;
        } else {
            break;
        }
    }
    *pp = (const char *)p;
    *lenp = n;
}

/* ---- planning ---- */

/* Plans a common variable; false when name is not one. */
static bool plan_common(const extractor_t *x, const char *name, field_plan_t *fp)
{
    const char *star = x->env_block;
    const char *host = star + 2;
    const char *tz = host + strlen(host) + 1;
    const char *off = tz + strlen(tz) + 1;
    const char *val;
    if (strcmp(name, "$line") == 0) {
        fp->kind = FIELD_LINE;
        return true;
    }
    if (strcmp(name, "*") == 0)
        val = star;
    else if (strcmp(name, "$empty") == 0)
        val = star + 1;
    else if (strcmp(name, "$hostname") == 0 || strcmp(name, "$server") == 0)
        val = host;
    else if (strcmp(name, "$timezone") == 0)
        val = tz;
    else if (strcmp(name, "$timeoffset") == 0)
        val = off;
    else
        return false;
    fp->kind = FIELD_CONST;
    fp->value.p = val;
    fp->value.len = (uint32_t)strlen(val);
    return true;
}

static int env_copy(extractor_t *x, const extract_env_t *env)
{
    const char *h = env && env->hostname ? env->hostname : "";
    const char *tz = env && env->timezone ? env->timezone : "";
    const char *off = env && env->timeoffset ? env->timeoffset : "";
    size_t lh = strlen(h), ltz = strlen(tz), loff = strlen(off);
    if (lh > UINT32_MAX / 2 || ltz > UINT32_MAX / 2 || loff > UINT32_MAX / 2)
        return -1;
    char *b = malloc(2 + lh + 1 + ltz + 1 + loff + 1);
    if (!b)
        return -1;
    char *w = b;
    *w++ = '*';
    *w++ = '\0';
    memcpy(w, h, lh + 1);
    w += lh + 1;
    memcpy(w, tz, ltz + 1);
    w += ltz + 1;
    memcpy(w, off, loff + 1);
    x->env_block = b;
    return 0;
}

/* Adds name to keys (distinct); returns its index, EXTRACT_NONE on OOM. */
static uint32_t keys_add(dyn_key_t **keys, uint32_t *n, const char *name, size_t len,
                         uint32_t field)
{
    for (uint32_t k = 0; k < *n; k++)
        if ((*keys)[k].len == len && memcmp((*keys)[k].name, name, len) == 0)
            return k;
    dyn_key_t *nk = realloc(*keys, (*n + 1) * sizeof *nk);
    if (!nk)
        return EXTRACT_NONE;
    *keys = nk;
    char *copy = malloc(len + 1);
    if (!copy)
        return EXTRACT_NONE;
    memcpy(copy, name, len);
    copy[len] = '\0';
    nk[*n].name = copy;
    nk[*n].len = (uint32_t)len;
    nk[*n].field = field;
    return (*n)++;
}

/* The dyn names as kv_pat_t patterns, when they all fit. */
static void plan_kv_patterns(extractor_t *x)
{
    x->kv_fast = true;
    x->kv_narrow = true;
    x->n_kv_pat = 0;
    memset(x->kv_pat, 0, sizeof x->kv_pat);
    memset(x->kv_by_len, EXTRACT_KV_FAST_MAX, sizeof x->kv_by_len);
    for (uint32_t k = 0; k < x->n_dyn; k++) {
        const dyn_key_t *d = &x->dyn[k];
        if (memchr(d->name, '=', d->len))
            continue;
        if (d->len > 15 || x->n_kv_pat == EXTRACT_KV_FAST_MAX ||
            x->kv_by_len[d->len] != EXTRACT_KV_FAST_MAX) {
            x->kv_fast = false;
            return;
        }
        kv_pat_t *kp = &x->kv_pat[x->n_kv_pat];
        unsigned char w[16] = {0}, m[16] = {0};
        memcpy(w, d->name, d->len);
        memset(m, 0xff, d->len);
        memcpy(kp->w, w, 16);
        memcpy(kp->m, m, 16);
        kp->field = d->field;
        x->kv_narrow &= d->len <= 8;
        x->kv_by_len[d->len] = (uint8_t)x->n_kv_pat++;
    }
}

/* Adds a hidden column planned as *fp; its index, EXTRACT_NONE on OOM. */
static uint32_t add_hidden(extractor_t *x, field_plan_t fp)
{
    field_plan_t *np = realloc(x->plan, (x->n_cols + 1) * sizeof *np);
    if (!np)
        return EXTRACT_NONE;
    x->plan = np;
    x->plan[x->n_cols] = fp;
    return (uint32_t)x->n_cols++;
}

/* $time of a format with a time source: the columns it is read from (the
 * query's own field of that name, else a hidden one). */
static int plan_time(extractor_t *x)
{
    const extract_format_t *fmt = x->fmt;
    if (x->time_col == EXTRACT_NONE)
        return 0;
    if (fmt->time_slot) {
        uint32_t c = EXTRACT_NONE;
        for (size_t f = 0; f < x->n_cols; f++)
            if (x->plan[f].kind == FIELD_SLOT && x->plan[f].pos == fmt->time_slot)
                c = (uint32_t)f;
        if (c == EXTRACT_NONE &&
            (c = add_hidden(x, (field_plan_t){.kind = FIELD_SLOT, .pos = fmt->time_slot})) ==
                EXTRACT_NONE)
            return -1;
        x->time_src[x->n_time_src++] = c;
    }
    for (size_t k = 0; fmt->time_keys && fmt->time_keys[k] && x->n_time_src < 8; k++) {
        const char *name = fmt->time_keys[k];
        size_t len = strlen(name);
        uint32_t c = EXTRACT_NONE;
        for (uint32_t d = 0; d < x->n_dyn; d++)
            if (x->dyn[d].len == len && memcmp(x->dyn[d].name, name, len) == 0)
                c = x->dyn[d].field;
        if (c == EXTRACT_NONE) {
            if ((c = add_hidden(x, (field_plan_t){.kind = FIELD_MISSING})) == EXTRACT_NONE ||
                keys_add(&x->dyn, &x->n_dyn, name, len, c) == EXTRACT_NONE)
                return -1;
            if (len > x->dyn_max_len)
                x->dyn_max_len = (uint32_t)len;
        }
        x->time_src[x->n_time_src++] = c;
    }
    return 0;
}

static int plan_fields(extractor_t *x, const char *const *fields, err_t *e)
{
    x->plan = calloc(x->n_fields ? x->n_fields : 1, sizeof *x->plan);
    x->dups = calloc(x->n_fields ? 2 * x->n_fields : 1, sizeof *x->dups);
    if (!x->plan || !x->dups)
        return err_set(e, ERR_NOMEM, "out of memory planning log format fields");
    x->n_cols = x->n_fields;
    x->time_col = EXTRACT_NONE;
    for (size_t f = 0; f < x->n_fields; f++) {
        const char *name = fields[f];
        size_t len = strlen(name);
        if (len > UINT32_MAX / 8)
            return err_set(e, ERR_QUERY, "field name too long");
        size_t first = f;
        for (size_t g = 0; g < f; g++)
            if (strcmp(fields[g], name) == 0) {
                first = g;
                break;
            }
        if (first != f) {
            x->dups[2 * x->n_dups] = (uint32_t)f;
            x->dups[2 * x->n_dups + 1] = (uint32_t)first;
            x->n_dups++;
            continue;
        }
        field_plan_t *fp = &x->plan[f];
        if (!plan_common(x, name, fp) && !(x->fmt->plan_var && x->fmt->plan_var(name, fp)))
            fp->kind = FIELD_MISSING;
        if (fp->kind == FIELD_TIME)
            x->time_col = (uint32_t)f;
        /* In dynamic formats a line's own key of the same name overrides
         * even a variable, as DTail's field map does. */
        if (x->fmt->dynamic) {
            if (keys_add(&x->dyn, &x->n_dyn, name, len, (uint32_t)f) == EXTRACT_NONE)
                return err_set(e, ERR_NOMEM, "out of memory planning log format fields");
            if (len > x->dyn_max_len)
                x->dyn_max_len = (uint32_t)len;
        }
    }
    if (plan_time(x) < 0)
        return err_set(e, ERR_NOMEM, "out of memory planning log format fields");
    for (uint32_t k = 0; k < EXTRACT_SLOTS; k++)
        x->slot_col[k] = EXTRACT_NONE;
    for (size_t f = 0; f < x->n_cols; f++)
        if (x->plan[f].kind == FIELD_SLOT && x->plan[f].pos < EXTRACT_SLOTS)
            x->slot_col[x->plan[f].pos] = (uint32_t)f;
    x->by_kind = calloc(x->n_cols ? x->n_cols : 1, sizeof *x->by_kind);
    x->ext_cols = calloc(x->n_cols ? x->n_cols : 1, sizeof *x->ext_cols);
    if (!x->by_kind || !x->ext_cols)
        return err_set(e, ERR_NOMEM, "out of memory planning log format fields");
    uint32_t at = 0;
    for (uint32_t k = 0; k < FIELD_KINDS; k++) {
        x->kind_start[k] = at;
        for (size_t f = 0; f < x->n_cols; f++)
            if (x->plan[f].kind == k)
                x->by_kind[at++] = (uint32_t)f;
    }
    x->kind_start[FIELD_KINDS] = at;
    plan_kv_patterns(x);
    if (x->n_dyn && name_table_build(&x->dyn_tab, x->dyn, x->n_dyn) < 0)
        return err_set(e, ERR_NOMEM, "out of memory planning log format fields");
    for (uint32_t k = 0; k < x->n_dyn; k++) {
        uint32_t len = x->dyn[k].len;
        if (len >= EXTRACT_BYLEN)
            continue;
        uint8_t *b = &x->dyn_by_len[len];
        *b = *b == 0 && k + 1 < EXTRACT_BYLEN_MANY ? (uint8_t)(k + 1) : EXTRACT_BYLEN_MANY;
    }
    return 0;
}

/* json: the dotted prefixes of the requested names, so objects that hold no
 * requested key are validated without building paths. */
static int plan_json(extractor_t *x, err_t *e)
{
    for (uint32_t k = 0; k < x->n_dyn; k++) {
        const char *name = x->dyn[k].name;
        for (uint32_t i = 0; i < x->dyn[k].len; i++)
            if (name[i] == '.' &&
                keys_add(&x->pre, &x->n_pre, name, i, EXTRACT_NONE) == EXTRACT_NONE)
                return err_set(e, ERR_NOMEM, "out of memory planning JSON keys");
    }
    if (x->n_pre && name_table_build(&x->pre_tab, x->pre, x->n_pre) < 0)
        return err_set(e, ERR_NOMEM, "out of memory planning JSON keys");
    x->json_path_cap = 6 * x->dyn_max_len + 8;
    x->json_path = malloc(x->json_path_cap);
    if (!x->json_path)
        return err_set(e, ERR_NOMEM, "out of memory planning JSON keys");
    return 0;
}

/* ---- public interface ---- */

extractor_t *extractor_new_opts(const char *format, const char *const *fields, size_t n_fields,
                                const extract_env_t *env, const extract_opts_t *opts, err_t *e)
{
    const extract_format_t *fmt = format_find(format);
    extract_opts_t o = opts ? *opts : (extract_opts_t){0};
    if (!fmt) {
        err_set(e, ERR_QUERY, "unknown log format \"%s\"", format ? format : "(null)");
        return NULL;
    }
    if (n_fields > UINT32_MAX / 4) {
        err_set(e, ERR_QUERY, "too many fields for log format \"%s\"", format);
        return NULL;
    }
    if (o.pattern && fmt != &extract_format_pattern) {
        err_set(e, ERR_QUERY, "log format \"%s\" takes no pattern", format);
        return NULL;
    }
    if (o.delimiter && (!fmt->delimiter || o.delimiter == '\n' || o.delimiter == '\r' ||
                        o.delimiter == '"')) {
        err_set(e, ERR_QUERY, fmt->delimiter ? "log format \"%s\": a delimiter cannot be a "
                                               "quote or a line end"
                                             : "log format \"%s\" takes no delimiter",
                format);
        return NULL;
    }
    extractor_t *x = calloc(1, sizeof *x);
    if (!x) {
        err_set(e, ERR_NOMEM, "out of memory creating the log format extractor");
        return NULL;
    }
    x->fmt = fmt;
    x->n_fields = n_fields;
    x->csv_need_header = fmt->per_source;
    x->delim = o.delimiter ? o.delimiter : fmt->delimiter;
    x->now = o.now ? o.now : (long long)time(NULL);
    x->zone = o.zone;
    x->zone_off = env && env->timeoffset ? (int32_t)strtol(env->timeoffset, NULL, 10) : 0;
    if (env_copy(x, env) < 0 || (o.timeformat && !(x->timeformat = strdup(o.timeformat)))) {
        err_set(e, ERR_NOMEM, "out of memory creating the log format extractor");
        extractor_free(x);
        return NULL;
    }
    if (plan_fields(x, fields, e) < 0 ||
        ((fmt == &extract_format_json || fmt == &extract_format_k8s) && plan_json(x, e) < 0) ||
        (fmt == &extract_format_csvnoheader && extract_csv_plan_columns(x, e) < 0) ||
        (fmt == &extract_format_pattern && extract_pattern_plan(x, o.pattern, e) < 0)) {
        extractor_free(x);
        return NULL;
    }
    return x;
}

extractor_t *extractor_new(const char *format, const char *const *fields, size_t n_fields,
                           const extract_env_t *env, err_t *e)
{
    return extractor_new_opts(format, fields, n_fields, env, NULL, e);
}

bool extractor_per_source(const extractor_t *x)
{
    return x->fmt->per_source;
}

bool extract_format_has_tables(const char *format)
{
    const extract_format_t *fmt = format_find(format);
    return fmt && fmt->records;
}

unsigned long long extractor_bad_times(const extractor_t *x)
{
    return x->n_badtime;
}

const char *extractor_bad_time(const extractor_t *x, int k)
{
    return k >= 0 && k < 3 && (unsigned long long)k < x->n_badtime ? x->badtime_ex[k] : NULL;
}

void extractor_line_names(const extractor_t *x, const char *line, size_t len, extract_name_fn fn,
                          void *arg)
{
    uint32_t l = len > UINT32_MAX ? UINT32_MAX : (uint32_t)len;
    extract_trim(&line, &l);
    if (x->fmt->names)
        x->fmt->names(x, line, l, fn, arg);
}

void extract_kv_names(const char *p, uint32_t len, uint32_t skip, extract_name_fn fn, void *arg)
{
    uint32_t t = 0, start = 0;
    for (uint32_t i = 0; i <= len; i++) {
        if (i < len && p[i] != '|')
            continue;
        const char *eq = t >= skip ? memchr(p + start, '=', i - start) : NULL;
        if (eq)
            fn(arg, p + start, (size_t)(eq - (p + start)));
        t++;
        start = i + 1;
    }
}

void extractor_free(extractor_t *x)
{
    if (!x)
        return;
    free(x->csv_head);
    for (uint32_t k = 0; k < x->n_dyn; k++)
        free((char *)x->dyn[k].name);
    for (uint32_t k = 0; k < x->n_pre; k++)
        free((char *)x->pre[k].name);
    free(x->dyn);
    free(x->pre);
    free(x->dyn_tab.slot);
    free(x->pre_tab.slot);
    free(x->plan);
    free(x->hid_mem);
    free(x->ext_cols);
    free(x->by_kind);
    free(x->dups);
    free(x->env_block);
    free(x->csv_map);
    free(x->json_path);
    free(x->table_lit);
    free(x->fmt_state);
    free(x->timeformat);
    scratch_free(&x->scratch);
    free(x);
}

void extractor_begin_source(extractor_t *x, const char *source_id)
{
    (void)source_id;
    if (!x->fmt->per_source)
        return;                 /* csvnoheader's columns are fixed */
    x->csv_need_header = true;
    x->csv_header_bad = false;
    x->csv_cols = 0;
}

int extractor_set_table(extractor_t *x, const char *literal, err_t *e)
{
    if (!x->fmt->table_filter)
        return 0;
    size_t len = strlen(literal);
    if (len == 0 || len > UINT32_MAX / 2)
        return 0;
    char *copy = malloc(len + 1);
    if (!copy)
        return err_set(e, ERR_NOMEM, "out of memory setting the table filter");
    memcpy(copy, literal, len + 1);
    free(x->table_lit);
    x->table_lit = copy;
    literal_init(&x->table_find, copy, len);
    /* "|MAPREDUCE:T|" is proven by a field 9 equal to "MAPREDUCE:T" (the
     * line has '|' on both sides of it), "|MAPREDUCE:" by one starting so. */
    x->table_fast = copy[0] == '|';
    x->table_f9 = copy + 1;
    x->table_f9_exact = len >= 2 && copy[len - 1] == '|';
    x->table_f9_len = (uint32_t)(len - 1 - x->table_f9_exact);
    x->table_f9_mapreduce = x->table_fast && x->table_f9_len >= 10 &&
                            memcmp(x->table_f9, "MAPREDUCE:", 10) == 0;
    return 1;
}

/* A new batch: no error message yet, the scratch free again. */
static void batch_begin(extractor_t *x)
{
    x->have_err = false;
    x->err[0] = '\0';
    scratch_reset(&x->scratch);
}

/* $time of the batch's parsed lines: the first time source a line has,
 * read as a timestamp and written as ISO 8601 in UTC. A source that is
 * no timestamp leaves $time missing and is counted. A line's own key
 * "$time" (a dynamic format) wins, as names the line provides do. */
static void extract_time_fill(extractor_t *x, size_t n, sv_t *const *cols, const uint8_t *status)
{
    const logtime_ctx_t ctx = {x->now, x->zone_off, x->timeformat, x->zone};
    sv_t *out = cols[x->time_col];
    for (size_t i = 0; i < n; i++) {
        if (status[i] != EXTRACT_OK || out[i].len != SV_MISSING)
            continue;
        sv_t raw = {NULL, SV_MISSING};
        for (uint32_t k = 0; k < x->n_time_src && raw.len == SV_MISSING; k++)
            raw = cols[x->time_src[k]][i];
        if (raw.len == SV_MISSING)
            continue;
        /* Already as the writer would write it: only when times are
         * written in UTC and read by the built-in forms alone. */
        if (!x->zone && !x->timeformat && logtime_is_utc_iso(raw.p, raw.len)) {
            out[i] = raw;
            continue;
        }
        logtime_t t;
        char *o;
        size_t tl = 0;
        if (logtime_parse(raw.p, raw.len, &ctx, &t) && (o = extract_scratch(x, LOGTIME_MAX)) &&
            (tl = logtime_write_utc(&t, o)) > 0) {
            out[i].p = o;
            out[i].len = (uint32_t)tl;
        } else if (x->n_badtime++ < 3) {
            char *ex = x->badtime_ex[x->n_badtime - 1];
            snprintf(ex, sizeof x->badtime_ex[0], "%.*s", raw.len < 64 ? (int)raw.len : 64,
                     raw.p);
            for (char *c = ex; *c; c++)
                if ((unsigned char)*c < 0x20 || *c == 0x7f)
                    *c = '?';
        }
    }
    for (size_t d = 0; d < x->n_dups; d++)
        if (x->dups[2 * d + 1] == x->time_col)
            for (size_t i = 0; i < n; i++)
                cols[x->dups[2 * d]][i] = out[i];
}

void extract_batch(extractor_t *x, const char *const *line, const uint32_t *len, size_t n,
                   sv_t *const *cols, uint8_t *status)
{
    batch_begin(x);
    sv_t *const *all = cols;   /* the caller's columns, and the hidden ones */
    if (x->n_cols == x->n_fields) {
        x->fmt->batch(x, line, len, n, cols, status);
    } else {
        size_t n_hid = x->n_cols - x->n_fields;
        if (n > x->hid_cap) {
            sv_t *m = realloc(x->hid_mem, n * n_hid * sizeof *m);
            if (!m) {
                /* No room for the time source: every line is an error. */
                extract_error(x, "out of memory extracting the time");
                for (size_t i = 0; i < n; i++) {
                    for (size_t f = 0; f < x->n_fields; f++)
                        cols[f][i] = (sv_t){NULL, SV_MISSING};
                    status[i] = EXTRACT_ERROR;
                }
                return;
            }
            x->hid_mem = m;
            x->hid_cap = n;
        }
        for (size_t f = 0; f < x->n_fields; f++)
            x->ext_cols[f] = cols[f];
        for (size_t h = 0; h < n_hid; h++)
            x->ext_cols[x->n_fields + h] = x->hid_mem + h * x->hid_cap;
        all = x->ext_cols;
        x->fmt->batch(x, line, len, n, all, status);
    }
    if (x->time_col != EXTRACT_NONE)
        extract_time_fill(x, n, all, status);
}

bool extractor_splits_lines(const extractor_t *x)
{
    return x->fmt->lines != NULL && x->n_cols == x->n_fields && x->time_col == EXTRACT_NONE;
}

const char *extract_lines(extractor_t *x, const char *p, const char *end, const char **line,
                          uint32_t *len, size_t *n, size_t cap, sv_t *const *cols,
                          uint8_t *status)
{
    if (*n == 0)
        batch_begin(x);
    return x->fmt->lines(x, p, end, line, len, n, cap, cols, status);
}

const char *extractor_last_error(const extractor_t *x)
{
    return x->err;
}
