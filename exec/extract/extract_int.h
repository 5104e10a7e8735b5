/* extract_int.h: what the log-format extractors share and only they (and
 * their white-box tests) see: the extractor's state, the per-field plan, the
 * lookup of requested names, per-batch scratch, DTail's line trimming and
 * the vector splitter the delimited formats run on.
 *
 * Each format is one file (fmt_<name>.c) exporting an extract_format_t;
 * extract.c is the dispatcher that plans the fields and owns the memory. */
#ifndef DTAIL_EXEC_EXTRACT_INT_H
#define DTAIL_EXEC_EXTRACT_INT_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "base/bytes.h"
#include "exec/extract/extract.h"
#include "exec/filter/literal.h"

#if defined(__SSE2__)
#include <emmintrin.h>
#define EXTRACT_SSE2 1
#endif

#define EXTRACT_NONE UINT32_MAX     /* no index / no position */
#define EXTRACT_ERR_CAP 256         /* bytes of the last-error message */
#define EXTRACT_BYLEN 64            /* names shorter than this are found by
                                       length first (dyn_by_len) */
#define EXTRACT_BYLEN_MANY 0xFFu    /* dyn_by_len: several names of that length */

/* How a requested field gets its value before any dynamic key is seen. */
enum field_kind {
    FIELD_MISSING = 0,  /* not a variable of this format: missing unless a
                           dynamic key of that name sets it */
    FIELD_CONST,        /* a fixed view: $empty, $hostname, $server,
                           $timezone, $timeoffset, * */
    FIELD_LINE,         /* $line: the trimmed line */
    FIELD_POS,          /* default: positional field `pos` */
    FIELD_TIMEPART,     /* default: bytes [sub_off, sub_off+sub_len) of
                           field 1 when it is YYYYMMDD-HHMMSS */
    FIELD_SLOT,         /* a fixed field of a format (nginx, syslog, k8s):
                           its slot `pos` (1..EXTRACT_SLOTS-1), which the
                           format fills through x->slot_col */
    FIELD_TIME,         /* $time as an instant: ISO 8601 in UTC, made
                           after the format's pass from the format's time
                           source (extract_time_fill) */
    FIELD_KINDS         /* count */
};

#define EXTRACT_SLOTS 32            /* slots a format may have, 0 unused */

typedef struct field_plan {
    uint8_t kind;       /* enum field_kind */
    uint8_t pos;        /* FIELD_POS: field index (0..8) */
    uint8_t sub_off;    /* FIELD_TIMEPART: first byte in field 1 */
    uint8_t sub_len;    /* FIELD_TIMEPART: byte count */
    sv_t value;         /* FIELD_CONST: the view */
} field_plan_t;

/* A requested name that a line's own keys can set (dynamic formats). */
typedef struct dyn_key {
    const char *name;   /* owned copy, NUL-terminated */
    uint32_t len;       /* strlen(name) */
    uint32_t field;     /* column it fills (the first field of that name) */
} dyn_key_t;

/* A requested name matched against a key=value token's first 16 bytes
 * once the token's key is known to be as long: the token is that key when
 * its bytes under m equal w. Names of up to 15 bytes, of distinct lengths. */
#define EXTRACT_KV_FAST_MAX 4       /* names matched this way, at most */
typedef struct kv_pat {
    uint64_t w[2];      /* the name, zero-padded */
    uint64_t m[2];      /* 0xff over its bytes */
    uint32_t field;     /* column it fills */
} kv_pat_t;

/* Open-addressed set of names: slots hold index+1 into an array of
 * (name, len) entries, 0 = empty. */
typedef struct name_table {
    uint32_t *slot;     /* mask+1 slots */
    uint32_t mask;      /* slot count - 1 (a power of two minus one) */
} name_table_t;

/* Bump storage for values that are not in the line (unescaped JSON
 * strings, CSV fields with "" inside). Reset at each batch; a block that
 * filled up mid-batch is retired (its views stay valid) and freed at the
 * next batch, so the steady state is one block and no allocation. */
typedef struct scratch_block {
    char *p;            /* the block */
    size_t used;        /* bytes handed out from it */
} scratch_block_t;

typedef struct scratch {
    char *buf;          /* current block */
    size_t cap;         /* its size */
    size_t used;        /* bytes handed out from it */
    scratch_block_t *old; /* blocks retired during this batch */
    size_t n_old;       /* entries in old */
    size_t cap_old;     /* capacity of old */
} scratch_t;

typedef struct extractor extractor_t;

/* One log format: its name, whether lines carry named fields, its own
 * $variables and the batch loop. */
typedef struct extract_format {
    const char *name;   /* as in parser/logformat.c */
    bool dynamic;       /* lines carry key=value pairs, columns or JSON keys */
    bool table_filter;  /* can fuse the table filter (extractor_set_table) */
    bool (*plan_var)(const char *name, field_plan_t *fp);
                        /* plans one of the format's own $variables into *fp,
                           false if name is none; NULL: the format has none */
    void (*batch)(extractor_t *x, const char *const *line, const uint32_t *len, size_t n,
                  sv_t *const *cols, uint8_t *status);
                        /* the batch loop (see extract_batch) */
    const char *(*lines)(extractor_t *x, const char *p, const char *end, const char **line,
                         uint32_t *len, size_t *n, size_t cap, sv_t *const *cols,
                         uint8_t *status);
                        /* splits and extracts in one pass (see
                           extract_lines); NULL: the format has no such pass */
    void (*names)(const extractor_t *x, const char *line, uint32_t len, extract_name_fn fn,
                  void *arg);
                        /* extractor_line_names; NULL: the line names none */
    uint8_t time_slot;  /* the slot holding the line's timestamp, which
                           $time reads (FIELD_TIME); 0: none */
    const char *const *time_keys;
                        /* dynamic names whose value is the line's
                           timestamp, the first one present wins; NULL:
                           none (with neither, $time is no FIELD_TIME) */
    bool per_source;    /* lines depend on their source's header
                           (extractor_per_source) */
    bool records;       /* `from TABLE` filters by DTail's records
                           (extract_format_has_tables) */
    char delimiter;     /* the separator byte of a delimited format (0:
                           none, and extract_opts_t.delimiter is refused) */
    const char *consts; /* the block of constant values the format's views
                           may point into ("true", facility names, ...) */
    size_t consts_len;  /* its bytes */
} extract_format_t;

struct extractor {
    const extract_format_t *fmt;  /* the format */
    size_t n_fields;              /* requested fields = the caller's columns */
    size_t n_cols;                /* n_fields, then the hidden columns: the
                                     time source when $time is requested
                                     and the query names no such field */
    field_plan_t *plan;           /* per column */
    sv_t *hid_mem;                /* the hidden columns' rows */
    size_t hid_cap;               /* rows each hidden column has room for */
    sv_t **ext_cols;              /* the caller's columns, then the hidden
                                     ones: what a format's pass fills */
    uint32_t slot_col[EXTRACT_SLOTS]; /* column of each slot, EXTRACT_NONE
                                     when nothing asks for it */
    uint32_t time_col;            /* column of $time (FIELD_TIME), or
                                     EXTRACT_NONE */
    uint32_t time_src[8];         /* columns $time is read from, in order */
    uint32_t n_time_src;          /* entries in time_src */
    unsigned long long n_badtime; /* time sources that were no timestamp */
    char badtime_ex[3][72];       /* the first of them */
    int32_t zone_off;             /* seconds east of UTC of a timestamp
                                     without zone: $timeoffset */
    long long now;                /* extract_opts_t.now, or the clock at
                                     creation */
    char delim;                   /* csv, tsv: the separator byte */
    uint32_t *by_kind;            /* the fields ordered by plan kind (dups
                                     as FIELD_MISSING) */
    uint32_t kind_start[FIELD_KINDS + 1]; /* by_kind[kind_start[k]..
                                     kind_start[k+1]) are of kind k */
    uint32_t *dups;               /* pairs (field, first field of the same
                                     name) for repeated names */
    size_t n_dups;                /* pairs in dups */
    dyn_key_t *dyn;               /* names the line's keys can set */
    uint32_t n_dyn;               /* entries in dyn */
    uint32_t dyn_max_len;         /* longest dyn name */
    name_table_t dyn_tab;         /* lookup of dyn by name */
    uint8_t dyn_by_len[EXTRACT_BYLEN]; /* per name length: 0 no dyn name,
                                     k+1 only dyn[k] (k < 254), or
                                     EXTRACT_BYLEN_MANY: ask dyn_tab */
    kv_pat_t kv_pat[EXTRACT_KV_FAST_MAX + 1]; /* dyn names as token
                                     patterns (names holding '=' left out:
                                     no key has one, as keys end at the
                                     first); the last entry matches all */
    uint32_t n_kv_pat;            /* names in kv_pat */
    uint8_t kv_by_len[17];        /* key length (16: longer) -> the
                                     kv_pat entry of that length, else the
                                     last */
    bool kv_narrow;               /* every kv_pat name has at most 8 bytes */
    bool kv_fast;                 /* every dyn name is in kv_pat or holds
                                     '=': tokens can be matched by
                                     pattern instead of by lookup */
    dyn_key_t *pre;               /* json: proper prefixes of dyn names that
                                     end before a '.', e.g. "a", "a.b" */
    uint32_t n_pre;               /* entries in pre */
    name_table_t pre_tab;         /* lookup of pre by name */
    char *env_block;              /* "*\0host\0tz\0offset\0" */
    /* table filter (extractor_set_table) */
    char *table_lit;              /* the literal, NULL: no filter */
    literal_t table_find;         /* its search over a line */
    const char *table_f9;         /* field 9 that proves the literal: the
                                     literal without its first '|' (and
                                     without its last, when it has one) */
    uint32_t table_f9_len;        /* bytes of table_f9 */
    bool table_f9_exact;          /* field 9 must equal table_f9, not just
                                     start with it */
    bool table_f9_mapreduce;      /* table_fast, and table_f9 starts with
                                     "MAPREDUCE:" (a field 9 that proves the
                                     table proves a MapReduce line) */
    bool table_fast;              /* the literal starts with '|': field 9
                                     can prove it */
    scratch_t scratch;            /* per-batch value storage */
    char err[EXTRACT_ERR_CAP];    /* first error of the current batch */
    bool have_err;                /* err is set for this batch */
    /* csv */
    bool csv_need_header;         /* the next line is the source's header */
    bool csv_header_bad;          /* the header could not be read */
    uint32_t *csv_map;            /* column -> field, EXTRACT_NONE if unused */
    uint32_t csv_cols;            /* header columns (csvnoheader: entries
                                     of csv_map) */
    bool csv_fixed;               /* csvnoheader: columns are $1, $2, ...,
                                     a row may have any number */
    size_t csv_map_cap;           /* capacity of csv_map */
    char *csv_head;               /* copy of the current header line (for
                                     extractor_line_names) */
    uint32_t csv_head_len;        /* its bytes */
    /* pattern (fmt_pattern.c): the read pattern and its fields' columns */
    void *fmt_state;
    /* timeformat "...": the layout $time is read with, NULL: logtime's
     * own forms */
    char *timeformat;
    /* --timezone: the zone $time is written in (borrowed), NULL: UTC */
    const struct logzone *zone;
    /* json */
    char *json_path;              /* current dotted key path */
    uint32_t json_path_cap;       /* its capacity: 6 * dyn_max_len + 8 */
};

extern const extract_format_t extract_format_default;
extern const extract_format_t extract_format_generic;
extern const extract_format_t extract_format_generickv;
extern const extract_format_t extract_format_csv;
extern const extract_format_t extract_format_json;
extern const extract_format_t extract_format_csvnoheader;
extern const extract_format_t extract_format_tsv;
extern const extract_format_t extract_format_k8s;
extern const extract_format_t extract_format_logfmt;
extern const extract_format_t extract_format_nginx;
extern const extract_format_t extract_format_apache;
extern const extract_format_t extract_format_syslog;
extern const extract_format_t extract_format_pattern;

/* pattern: reads the pattern into x->fmt_state and finds its fields'
 * columns (fmt_pattern.c), after the fields are planned. */
int extract_pattern_plan(extractor_t *x, const char *pattern, err_t *e);

/* The value of a quoted text field [p, p+n) with its backslash escapes
 * read (unescape.c): \" \\ \/ \] \n \r \t \b \f, \xHH (a byte) and
 * \uXXXX (a code point, as UTF-8); any other backslash is kept as
 * written. out has room for n bytes (no escape is shorter than what it
 * stands for); returns the length written. */
uint32_t extract_unescape(const char *p, uint32_t n, char *out);
/* Code point cp as UTF-8 into out (1-4 bytes); the length (unescape.c). */
uint32_t extract_utf8_put(char *out, unsigned cp);
/* tsv: extractor_set_header (fmt_tsv.c). */
int extract_tsv_set_header(extractor_t *x, const char *line, size_t len, err_t *e);
/* csvnoheader: maps the requested names $1, $2, ... to columns 0, 1, ...
 * (fmt_csv.c). */
int extract_csv_plan_columns(extractor_t *x, err_t *e);
/* Unescapes the content of a validated JSON string (fmt_json.c) into out,
 * which has room for len bytes; the length written. */
uint32_t extract_json_unescape(const char *s, uint32_t len, char *out);
/* The top-level keys whose string values extract_json_object takes
 * instead of the requested names (k8s: log, stream, time). */
#define EXTRACT_JSON_OUTER 3
typedef struct extract_json_outer {
    const char *name[EXTRACT_JSON_OUTER]; /* the keys */
    sv_t val[EXTRACT_JSON_OUTER];  /* their content: the first one's
                                      unescaped (in scratch), the others'
                                      raw; len SV_MISSING: the line has
                                      none that is a string */
    bool esc[EXTRACT_JSON_OUTER];  /* the raw content holds escapes */
} extract_json_outer_t;

/* The JSON object at [p, p+len) into line i's columns, by the requested
 * names, or with outer its top-level strings of outer's names only
 * (fmt_json.c); false with *why and *at (the byte) when it is not exactly
 * one valid object. */
bool extract_json_object(extractor_t *x, size_t i, const char *p, uint32_t len,
                         sv_t *const *cols, extract_json_outer_t *outer, const char **why,
                         size_t *at);

/* ---- shared helpers (extract.c) ---- */

/* The keys of the '|'-separated key=value tokens of [p, p+len) from token
 * `skip` on (extractor_line_names of default and generickv). */
void extract_kv_names(const char *p, uint32_t len, uint32_t skip, extract_name_fn fn, void *arg);

/* The hash of a name for name_table_t: length and four of its bytes, mixed
 * (names differ in length or at their ends; collisions only cost a compare). */
static inline uint32_t extract_name_hash(const char *p, uint32_t len)
{
    uint32_t h = len * 0x9E3779B1u;
    if (len) {
        h ^= (uint32_t)(unsigned char)p[0] * 0x85EBCA77u;
        h ^= (uint32_t)(unsigned char)p[len - 1] * 0xC2B2AE3Du;
        h ^= (uint32_t)(unsigned char)p[len >> 1] * 0x27D4EB2Fu;
        h += (uint32_t)(unsigned char)p[len >> 2] * 0x165667B1u;
    }
    h ^= h >> 15;
    h *= 0x2C1B3C6Du;
    h ^= h >> 12;
    return h;
}

/* Looks a name up in a table built over `keys`; index or EXTRACT_NONE. */
static inline uint32_t extract_name_find(const name_table_t *t, const dyn_key_t *keys,
                                         const char *p, uint32_t len)
{
    if (!t->slot)
        return EXTRACT_NONE;
    uint32_t i = extract_name_hash(p, len) & t->mask;
    for (;;) {
        uint32_t s = t->slot[i];
        if (!s)
            return EXTRACT_NONE;
        const dyn_key_t *k = &keys[s - 1];
        if (k->len == len && bytes_equal(k->name, p, len))
            return s - 1;
        i = (i + 1) & t->mask;
    }
}
/* Instruction sets of the formats' vector passes (extract_lines). */
enum { EXTRACT_ISA_BASE = 0, EXTRACT_ISA_AVX2 = 1, EXTRACT_ISA_AVX512 = 2 };
/* Uses no wider set than max from now on (tests run each variant this
 * way; by default the widest the CPU has is used). Returns the set now in
 * use. */
int extract_isa_limit(int max);

/* Records the message of the batch's first EXTRACT_ERROR line. */
void extract_error(extractor_t *x, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Writes at most max bytes of [p, p+len) into out (cap bytes), printable
 * ASCII kept, other bytes as \xNN, "..." when cut. For error messages. */
void extract_quote(char *out, size_t cap, const char *p, size_t len, size_t max);
/* n bytes of scratch valid until the next batch; NULL when out of memory. */
char *extract_scratch(extractor_t *x, size_t n);
/* Test hook: whether [p, p+len) lies in the extractor's own storage (the
 * environment strings, the format's constants or this batch's scratch). */
bool extract_owns(const extractor_t *x, const char *p, size_t len);
/* Trims Go's unicode.IsSpace bytes from both ends, as strings.TrimSpace. */
void extract_trim_slow(const char **p, uint32_t *len);

/* extract_trim_slow, after a check of the two edge bytes that settles the
 * common case (printable ASCII at both ends). */
static inline void extract_trim(const char **p, uint32_t *len)
{
    uint32_t n = *len;
    if (n) {
        unsigned char a = (unsigned char)(*p)[0], z = (unsigned char)(*p)[n - 1];
        if (a > ' ' && a < 0x80 && z > ' ' && z < 0x80)
            return;
    }
    extract_trim_slow(p, len);
}

/* Sets every column of line i to missing (skipped and bad lines). */
static inline void extract_line_missing(const extractor_t *x, size_t i, sv_t *const *cols)
{
    for (size_t f = 0; f < x->n_cols; f++) {
        cols[f][i].p = NULL;
        cols[f][i].len = SV_MISSING;
    }
}

/* Fills the fields that do not depend on a format's positions: constants,
 * $line, and missing for everything else (dynamic keys overwrite later). */
static inline void extract_line_common(const extractor_t *x, size_t i, const char *p,
                                       uint32_t len, sv_t *const *cols)
{
    for (size_t f = 0; f < x->n_cols; f++) {
        const field_plan_t *fp = &x->plan[f];
        sv_t *v = &cols[f][i];
        if (fp->kind == FIELD_CONST) {
            *v = fp->value;
        } else if (fp->kind == FIELD_LINE) {
            v->p = p;
            v->len = len;
        } else {
            v->p = NULL;
            v->len = SV_MISSING;
        }
    }
}

/* Copies the value of a repeated name into its later columns. */
static inline void extract_line_dups(const extractor_t *x, size_t i, sv_t *const *cols)
{
    for (size_t d = 0; d < x->n_dups; d++)
        cols[x->dups[2 * d]][i] = cols[x->dups[2 * d + 1]][i];
}

/* One line of a format that needs no state across lines: fills line i's
 * columns from the trimmed line [p, p+len) and returns its status. */
typedef uint8_t (*extract_line_fn)(extractor_t *x, size_t i, const char *p, uint32_t len,
                                   sv_t *const *cols);

/* The batch loop of such a format: each line trimmed, the common
 * variables set, fn, then every column missing unless the line is
 * EXTRACT_OK (and the repeated names copied when it is). Inline, so fn is
 * called directly. */
static inline __attribute__((always_inline)) void
extract_each_line(extractor_t *x, const char *const *line, const uint32_t *len, size_t n,
                  sv_t *const *cols, uint8_t *status, extract_line_fn fn)
{
    for (size_t i = 0; i < n; i++) {
        const char *p = line[i];
        uint32_t l = len[i];
        extract_trim(&p, &l);
        extract_line_common(x, i, p, l, cols);
        uint8_t st = fn(x, i, p, l, cols);
        if (st != EXTRACT_OK)
            extract_line_missing(x, i, cols);
        else
            extract_line_dups(x, i, cols);
        status[i] = st;
    }
}

/* The byte a one-letter backslash escape stands for (" \\ / b f n r t,
 * and with bracket ]), 0 when e is none. */
static inline char extract_escape_byte(char e, bool bracket)
{
    switch (e) {
    case '"': case '\\': case '/': return e;
    case ']': return bracket ? e : 0;
    case 'b': return '\b';
    case 'f': return '\f';
    case 'n': return '\n';
    case 'r': return '\r';
    case 't': return '\t';
    default: return 0;
    }
}

/* The escape readers' common step: copies [p+*k, the next backslash or
 * n) to out+*o and moves both; false when no backslash is left. */
static inline bool extract_copy_plain(const char *p, uint32_t n, uint32_t *k, char *out,
                                      uint32_t *o)
{
    const char *bs = memchr(p + *k, '\\', n - *k);
    uint32_t stop = bs ? (uint32_t)(bs - p) : n;
    memcpy(out + *o, p + *k, stop - *k);
    *o += stop - *k;
    *k = stop;
    return stop < n;
}

/* The field a dynamic key sets, or EXTRACT_NONE. Most keys are settled by
 * their length alone (no requested name that long) or by one compare (the
 * only requested name that long); the hash table serves the rest. */
static inline __attribute__((always_inline)) uint32_t
extract_dyn_field(const extractor_t *x, const char *p, uint32_t len)
{
    if (len > x->dyn_max_len)
        return EXTRACT_NONE;
    if (len < EXTRACT_BYLEN) {
        uint32_t b = x->dyn_by_len[len];
        if (b == 0)
            return EXTRACT_NONE;
        if (b != EXTRACT_BYLEN_MANY) {
            const dyn_key_t *d = &x->dyn[b - 1];
            return bytes_equal(d->name, p, len) ? d->field : EXTRACT_NONE;
        }
    }
    uint32_t k = extract_name_find(&x->dyn_tab, x->dyn, p, len);
    return k == EXTRACT_NONE ? EXTRACT_NONE : x->dyn[k].field;
}

/* ---- the splitter ----
 *
 * Splits a line on one separator byte, as Go's repeated IndexByte does (no
 * escaping, n separators give n+1 tokens, the empty line one empty token),
 * noting the first `eq` byte of each token. Works on 64-byte windows: a few
 * vector compares give bit masks of separators and eq bytes, so the cost is
 * per window and per token, not per byte. Never reads outside the line. */
typedef struct split_tok {
    uint32_t start;     /* first byte (offset in the line) */
    uint32_t end;       /* one past the last byte */
    uint32_t eq;        /* offset of the first eq byte, or EXTRACT_NONE */
} split_tok_t;

typedef struct split {
    const char *p;      /* the line */
    uint32_t len;       /* its length */
    uint32_t win;       /* offset of the current window */
    uint64_t sep_bits;  /* separator bits of the window not yet consumed */
    uint64_t eq_bits;   /* eq bits of the window not yet consumed */
    uint32_t tok_start; /* start of the token being scanned */
    uint32_t tok_eq;    /* its first eq byte so far, or EXTRACT_NONE */
    bool loaded;        /* the window's bits are valid */
    bool done;          /* the last token was handed out */
    char sep;           /* separator byte */
    char eq;            /* byte whose first position per token is noted */
} split_t;

static inline void split_init(split_t *s, const char *p, uint32_t len, char sep, char eq)
{
    s->p = p;
    s->len = len;
    s->win = 0;
    s->sep_bits = s->eq_bits = 0;
    s->tok_start = 0;
    s->tok_eq = EXTRACT_NONE;
    s->loaded = false;
    s->done = false;
    s->sep = sep;
    s->eq = eq;
}

#ifdef EXTRACT_SSE2
static inline uint64_t split_mask16x4(__m128i a, __m128i b, __m128i c, __m128i d, __m128i v)
{
    uint64_t m0 = (uint16_t)_mm_movemask_epi8(_mm_cmpeq_epi8(a, v));
    uint64_t m1 = (uint16_t)_mm_movemask_epi8(_mm_cmpeq_epi8(b, v));
    uint64_t m2 = (uint16_t)_mm_movemask_epi8(_mm_cmpeq_epi8(c, v));
    uint64_t m3 = (uint16_t)_mm_movemask_epi8(_mm_cmpeq_epi8(d, v));
    return m0 | m1 << 16 | m2 << 32 | m3 << 48;
}

static inline void split_masks64(const char *q, char sep, char eq, uint64_t *sm, uint64_t *em)
{
    __m128i a = _mm_loadu_si128((const __m128i *)(const void *)q);
    __m128i b = _mm_loadu_si128((const __m128i *)(const void *)(q + 16));
    __m128i c = _mm_loadu_si128((const __m128i *)(const void *)(q + 32));
    __m128i d = _mm_loadu_si128((const __m128i *)(const void *)(q + 48));
    *sm = split_mask16x4(a, b, c, d, _mm_set1_epi8(sep));
    *em = split_mask16x4(a, b, c, d, _mm_set1_epi8(eq));
}

/* The masks of three bytes over the 64 bytes at q. */
static inline void split_masks64_3(const char *q, char c0, char c1, char c2, uint64_t *m0,
                                   uint64_t *m1, uint64_t *m2)
{
    __m128i a = _mm_loadu_si128((const __m128i *)(const void *)q);
    __m128i b = _mm_loadu_si128((const __m128i *)(const void *)(q + 16));
    __m128i c = _mm_loadu_si128((const __m128i *)(const void *)(q + 32));
    __m128i d = _mm_loadu_si128((const __m128i *)(const void *)(q + 48));
    *m0 = split_mask16x4(a, b, c, d, _mm_set1_epi8(c0));
    *m1 = split_mask16x4(a, b, c, d, _mm_set1_epi8(c1));
    *m2 = split_mask16x4(a, b, c, d, _mm_set1_epi8(c2));
}
#else
static inline void split_masks64_3(const char *q, char c0, char c1, char c2, uint64_t *m0,
                                   uint64_t *m1, uint64_t *m2)
{
    uint64_t a = 0, b = 0, c = 0;
    for (int k = 0; k < 64; k++) {
        a |= (uint64_t)(q[k] == c0) << k;
        b |= (uint64_t)(q[k] == c1) << k;
        c |= (uint64_t)(q[k] == c2) << k;
    }
    *m0 = a;
    *m1 = b;
    *m2 = c;
}

static inline void split_masks64(const char *q, char sep, char eq, uint64_t *sm, uint64_t *em)
{
    uint64_t s = 0, e = 0;
    for (int k = 0; k < 64; k++) {
        s |= (uint64_t)(q[k] == sep) << k;
        e |= (uint64_t)(q[k] == eq) << k;
    }
    *sm = s;
    *em = e;
}
#endif

/* The masks of the last r (< 64) bytes of a line, [q, q+r), for a line of
 * at least 16 bytes: whole 16-byte blocks, then one block that ends at the
 * line's end, shifted. No read outside the line and no copy (a copy would
 * cost a store-forwarding stall per load). */
static inline void split_masks_tail(const char *q, uint32_t r, char sep, char eq, uint64_t *sm,
                                    uint64_t *em)
{
    uint64_t s = 0, e = 0;
    uint32_t k = 0;
#ifdef EXTRACT_SSE2
    const __m128i vs = _mm_set1_epi8(sep), ve = _mm_set1_epi8(eq);
    for (; k + 16 <= r; k += 16) {
        __m128i v = _mm_loadu_si128((const __m128i *)(const void *)(q + k));
        s |= (uint64_t)(uint16_t)_mm_movemask_epi8(_mm_cmpeq_epi8(v, vs)) << k;
        e |= (uint64_t)(uint16_t)_mm_movemask_epi8(_mm_cmpeq_epi8(v, ve)) << k;
    }
    if (k < r) {
        __m128i v = _mm_loadu_si128((const __m128i *)(const void *)(q + r - 16));
        unsigned drop = 16 - (r - k);
        s |= (uint64_t)((uint16_t)_mm_movemask_epi8(_mm_cmpeq_epi8(v, vs)) >> drop) << k;
        e |= (uint64_t)((uint16_t)_mm_movemask_epi8(_mm_cmpeq_epi8(v, ve)) >> drop) << k;
    }
#else
    for (; k < r; k++) {
        s |= (uint64_t)(q[k] == sep) << k;
        e |= (uint64_t)(q[k] == eq) << k;
    }
#endif
    *sm = s;
    *em = e;
}

/* The masks of [q, q+r), r < 64, for a line shorter than 16 bytes. */
static inline void split_masks_small(const char *q, uint32_t r, char sep, char eq, uint64_t *sm,
                                     uint64_t *em)
{
    char tmp[64] = {0};
    memcpy(tmp, q, r);
    split_masks64(tmp, sep, eq, sm, em);
    uint64_t keep = ((uint64_t)1 << r) - 1;
    *sm &= keep;
    *em &= keep;
}

/* Set bits of m (inline: without -mpopcnt the builtin is a library call). */
static inline uint32_t split_popcount(uint64_t m)
{
    m = m - ((m >> 1) & 0x5555555555555555ULL);
    m = (m & 0x3333333333333333ULL) + ((m >> 2) & 0x3333333333333333ULL);
    m = (m + (m >> 4)) & 0x0F0F0F0F0F0F0F0FULL;
    return (uint32_t)((m * 0x0101010101010101ULL) >> 56);
}

/* Loads the bits of [win, min(win+64, len)). */
static inline void split_load(split_t *s)
{
    uint32_t r = s->len - s->win;
    if (r >= 64)
        split_masks64(s->p + s->win, s->sep, s->eq, &s->sep_bits, &s->eq_bits);
    else if (s->len >= 16)
        split_masks_tail(s->p + s->win, r, s->sep, s->eq, &s->sep_bits, &s->eq_bits);
    else
        split_masks_small(s->p + s->win, r, s->sep, s->eq, &s->sep_bits, &s->eq_bits);
    s->loaded = true;
}

/* Hands out up to cap next tokens; 0 once the line is done. */
static inline size_t split_fill(split_t *s, split_tok_t *out, size_t cap)
{
    size_t n = 0;
    while (n < cap && !s->done) {
        if (!s->loaded) {
            if (s->win >= s->len) {
                out[n].start = s->tok_start;
                out[n].end = s->len;
                out[n].eq = s->tok_eq;
                n++;
                s->done = true;
                break;
            }
            split_load(s);
        }
        uint64_t sb = s->sep_bits;
        while (sb && n < cap) {
            uint64_t bit = sb & (0 - sb);
            uint64_t below = bit - 1;
            if (s->tok_eq == EXTRACT_NONE && (s->eq_bits & below))
                s->tok_eq = s->win + (uint32_t)__builtin_ctzll(s->eq_bits & below);
            s->eq_bits &= ~(below | bit);
            uint32_t at = s->win + (uint32_t)__builtin_ctzll(bit);
            out[n].start = s->tok_start;
            out[n].end = at;
            out[n].eq = s->tok_eq;
            n++;
            s->tok_start = at + 1;
            s->tok_eq = EXTRACT_NONE;
            sb &= sb - 1;
        }
        s->sep_bits = sb;
        if (sb)
            break;              /* out is full mid-window */
        if (s->tok_eq == EXTRACT_NONE && s->eq_bits)
            s->tok_eq = s->win + (uint32_t)__builtin_ctzll(s->eq_bits);
        s->eq_bits = 0;
        s->win = s->len - s->win > 64 ? s->win + 64 : s->len;   /* no wrap near 4 GiB */
        s->loaded = false;
    }
    return n;
}

/* ---- the short-line splitter ----
 *
 * The same split for lines of at most SPLIT_SHORT_MAX bytes (nearly every
 * log line), cheaper per token: all separator positions go into an array in
 * one pass, and the eq masks are kept so a token's first eq byte is looked
 * up only for the tokens that need it. */
#define SPLIT_SHORT_MAX 256     /* longest line it takes */
#define SPLIT_SHORT_WIN (SPLIT_SHORT_MAX / 64)

typedef struct split_short {
    uint32_t len;                       /* the line's length */
    uint32_t n_sep;                     /* separators found; tokens = n_sep + 1 */
    uint64_t eq[SPLIT_SHORT_WIN];       /* eq-byte mask per 64-byte window */
    uint16_t pos[SPLIT_SHORT_MAX + 4];  /* separator offsets (+ slack for
                                           the unrolled writes) */
} split_short_t;

static inline void split_short_init(split_short_t *s, const char *p, uint32_t len, char sep,
                                    char eq)
{
    uint32_t n = 0;
    s->len = len;
    for (uint32_t w = 0; w * 64 < len; w++) {
        uint32_t r = len - w * 64;
        uint64_t sb, eb;
        if (r >= 64)
            split_masks64(p + w * 64, sep, eq, &sb, &eb);
        else if (len >= 16)
            split_masks_tail(p + w * 64, r, sep, eq, &sb, &eb);
        else
            split_masks_small(p, r, sep, eq, &sb, &eb);
        s->eq[w] = eb;
        uint32_t cnt = split_popcount(sb);
        uint16_t *out = s->pos + n;
        /* Four at a time, unconditionally: fewer unpredictable loop exits.
         * Extra writes land in the slack or are overwritten next. */
        const uint64_t top = (uint64_t)1 << 63;
        while (sb) {
            out[0] = (uint16_t)(w * 64 + (uint32_t)__builtin_ctzll(sb));
            sb &= sb - 1;
            out[1] = (uint16_t)(w * 64 + (uint32_t)__builtin_ctzll(sb | top));
            sb &= sb - 1;
            out[2] = (uint16_t)(w * 64 + (uint32_t)__builtin_ctzll(sb | top));
            sb &= sb - 1;
            out[3] = (uint16_t)(w * 64 + (uint32_t)__builtin_ctzll(sb | top));
            sb &= sb - 1;
            out += 4;
        }
        n += cnt;
    }
    s->n_sep = n;
}

/* Token t's bounds (t <= n_sep). */
static inline uint32_t split_short_start(const split_short_t *s, uint32_t t)
{
    return t ? (uint32_t)s->pos[t - 1] + 1 : 0;
}

static inline uint32_t split_short_end(const split_short_t *s, uint32_t t)
{
    return t < s->n_sep ? s->pos[t] : s->len;
}

/* The first eq byte in [start, end) of a line whose eq masks are kept per
 * 64-byte window: the byte at line offset o is bit (lo + o) % 64 of
 * masks[((lo + o) / 64) & ring]. lo is the line's offset from the first
 * window (0 for split_short_t's own masks, whose ring is
 * SPLIT_SHORT_WIN - 1); ring + 1 is a power of two that covers the line's
 * windows. EXTRACT_NONE when there is none. */
static inline uint32_t extract_first_eq(const uint64_t *masks, size_t ring, size_t lo,
                                        uint32_t start, uint32_t end)
{
    if (start >= end)
        return EXTRACT_NONE;
    size_t a = lo + start, w = a >> 6;
    uint64_t m = masks[w & ring] & (~(uint64_t)0 << (a & 63));
    while (!m) {
        if (++w * 64 >= lo + end)
            return EXTRACT_NONE;
        m = masks[w & ring];
    }
    size_t at = w * 64 + (size_t)__builtin_ctzll(m) - lo;
    return at < end ? (uint32_t)at : EXTRACT_NONE;
}

#endif
