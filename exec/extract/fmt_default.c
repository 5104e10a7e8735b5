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

#include "base/cpu.h"

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
 * '|' that ends field k (k < 10). One loop per kind of field, so no
 * branch per field on its kind. */
static inline __attribute__((always_inline)) uint32_t sep_at(const void *sep, bool wide, uint32_t k)
{
    return wide ? ((const uint32_t *)sep)[k] : ((const uint16_t *)sep)[k];
}

/* sep: uint32_t offsets when wide, else uint16_t (a short line's). */
static inline __attribute__((always_inline)) void
default_fill(const extractor_t *x, size_t i, const char *p, uint32_t len, const void *sep,
             bool wide, sv_t *const *cols)
{
    const uint32_t *ks = x->kind_start, *ord = x->by_kind;
    for (uint32_t k = ks[FIELD_MISSING]; k < ks[FIELD_MISSING + 1]; k++) {
        cols[ord[k]][i].p = NULL;
        cols[ord[k]][i].len = SV_MISSING;
    }
    for (uint32_t k = ks[FIELD_CONST]; k < ks[FIELD_CONST + 1]; k++)
        cols[ord[k]][i] = x->plan[ord[k]].value;
    for (uint32_t k = ks[FIELD_LINE]; k < ks[FIELD_LINE + 1]; k++) {
        cols[ord[k]][i].p = p;
        cols[ord[k]][i].len = len;
    }
    for (uint32_t k = ks[FIELD_POS]; k < ks[FIELD_POS + 1]; k++) {
        uint32_t pos = x->plan[ord[k]].pos;
        uint32_t start = pos ? sep_at(sep, wide, pos - 1) + 1 : 0;
        cols[ord[k]][i].p = p + start;
        cols[ord[k]][i].len = sep_at(sep, wide, pos) - start;
    }
    if (ks[FIELD_TIMEPART] == ks[FIELD_TIMEPART + 1])
        return;
    uint32_t start = sep_at(sep, wide, 0) + 1;
    bool full = time_is_full(p + start, sep_at(sep, wide, 1) - start);
    for (uint32_t k = ks[FIELD_TIMEPART]; k < ks[FIELD_TIMEPART + 1]; k++) {
        const field_plan_t *fp = &x->plan[ord[k]];
        cols[ord[k]][i].p = full ? p + start + fp->sub_off : NULL;
        cols[ord[k]][i].len = full ? fp->sub_len : SV_MISSING;
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

/* Whether field 9 [start, end) proves the table literal. */
static inline bool default_f9_is_table(const extractor_t *x, const char *p, uint32_t start,
                                       uint32_t end)
{
    uint32_t n = end - start;
    return x->table_fast && (x->table_f9_exact ? n == x->table_f9_len : n >= x->table_f9_len) &&
           bytes_equal(p + start, x->table_f9, x->table_f9_len);
}

/* Whether an accepted line is of the table: field 9 [start, end) proves
 * it, or else the line is searched. */
static inline bool default_in_table(const extractor_t *x, const char *p, uint32_t start,
                                    uint32_t end, const char *raw, uint32_t raw_len)
{
    if (!x->table_lit || default_f9_is_table(x, p, start, end))
        return true;
    return default_has_table(x, raw, raw_len);
}

/* The 64 bits of the '=' masks from line offset `at` on (masks, ring and
 * lo as extract_first_eq reads them). Bits of a window the splitter has
 * not reached yet are stale, but they lie past the line's end. */
static inline __attribute__((always_inline)) uint64_t eq_bits_from(const uint64_t *masks,
                                                                   size_t ring, size_t lo,
                                                                   uint32_t at)
{
    size_t a = lo + at, w = a >> 6;
    unsigned sh = (unsigned)(a & 63);
    return masks[w & ring] >> sh | (masks[(w + 1) & ring] << 1) << (63 - sh);
}

/* The key=value tokens of a short line matched against x->kv_pat with no
 * branch that depends on the keys: a line's keys come in any order, and a
 * branch per token on its key mispredicts at about every line. A token's
 * key length (its first '=') picks the one pattern that can match; a miss
 * lands in the spare slot. The line's bytes must be readable 16 bytes past
 * its end. False, with nothing decided, when a token may lack its '='
 * (none within its first 64 bytes): the exact loop then reports it or
 * finds the '='. A repeated key: the last one wins, as in the exact loop. */
static inline __attribute__((always_inline)) bool
default_kv_match(extractor_t *x, size_t i, const char *p, uint32_t len, const uint16_t *pos,
                 uint32_t n_sep, const uint64_t *eq, size_t ring, size_t lo, sv_t *const *cols,
                 const bool narrow)
{
    uint32_t vs[EXTRACT_KV_FAST_MAX + 1] = {0}, ve[EXTRACT_KV_FAST_MAX + 1];
    bool bad = false;
    uint32_t st = pos[DEF_MIN_FIELDS - 2] + 1u;
    for (uint32_t t = DEF_MIN_FIELDS - 1; t <= n_sep; t++) {
        uint32_t en = t < n_sep ? pos[t] : len;
        uint64_t m = eq_bits_from(eq, ring, lo, st);
        uint32_t kl = m ? (uint32_t)__builtin_ctzll(m) : 64;   /* the key's length */
        bad |= kl >= en - st || kl == 64;
        uint32_t k = x->kv_by_len[kl < 16 ? kl : 16];
        const kv_pat_t *kp = &x->kv_pat[k];
        uint64_t a, diff;
        memcpy(&a, p + st, 8);
        diff = (a ^ kp->w[0]) & kp->m[0];
        if (!narrow) {
            uint64_t b;
            memcpy(&b, p + st + 8, 8);
            diff |= (b ^ kp->w[1]) & kp->m[1];
        }
        k = diff == 0 ? k : EXTRACT_KV_FAST_MAX;
        vs[k] = st + kl + 1;
        ve[k] = en;
        st = en + 1;
    }
    if (bad)
        return false;
    for (uint32_t k = 0; k < x->n_kv_pat; k++) {
        if (vs[k]) {
            sv_t *v = &cols[x->kv_pat[k].field][i];
            v->p = p + vs[k];
            v->len = ve[k] - vs[k];
        }
    }
    return true;
}

/* default_kv_match, comparing one word per token when every name fits in
 * eight bytes. */
static inline __attribute__((always_inline)) bool default_kv_patterns(extractor_t *x, size_t i, const char *p, uint32_t len,
                                       const uint16_t *pos, uint32_t n_sep, const uint64_t *eq,
                                       size_t ring, size_t lo, sv_t *const *cols)
{
    if (x->kv_narrow)
        return default_kv_match(x, i, p, len, pos, n_sep, eq, ring, lo, cols, true);
    return default_kv_match(x, i, p, len, pos, n_sep, eq, ring, lo, cols, false);
}

/* A trimmed INFO line of at most SPLIT_SHORT_MAX bytes whose n_sep
 * separators are at pos and whose '=' masks are eq (as extract_first_eq
 * reads them, with ring and lo); raw is the untrimmed line. Both short
 * paths end here: default_line_short and the one-pass default_lines. */
static inline __attribute__((always_inline)) uint8_t default_short(extractor_t *x, size_t i, const char *p, uint32_t len,
                                    const char *raw, uint32_t raw_len, const uint16_t *pos,
                                    uint32_t n_sep, const uint64_t *eq, size_t ring, size_t lo,
                                    bool readable, sv_t *const *cols)
{
    if (n_sep + 1 < DEF_MIN_FIELDS)
        return EXTRACT_SKIP;
    /* Nearly every line: field 9 is the table's, which also makes it a
     * MapReduce line. */
    if (!(x->table_f9_mapreduce && default_f9_is_table(x, p, pos[8] + 1u, pos[9]))) {
        if (!is_mapreduce(p, pos[8] + 1u, pos[9]))
            return EXTRACT_SKIP;
        if (!default_in_table(x, p, pos[8] + 1u, pos[9], raw, raw_len))
            return EXTRACT_NO_TABLE;
    }
    default_fill(x, i, p, len, pos, false, cols);
    if (x->kv_fast && readable && default_kv_patterns(x, i, p, len, pos, n_sep, eq, ring, lo, cols))
        return EXTRACT_OK;
    for (uint32_t t = DEF_MIN_FIELDS - 1; t <= n_sep; t++) {
        uint32_t start = pos[t - 1] + 1u, end = t < n_sep ? pos[t] : len;
        if (!default_kv(x, i, p, start, end, extract_first_eq(eq, ring, lo, start, end), cols))
            return EXTRACT_ERROR;
    }
    return EXTRACT_OK;
}

/* A line of at most SPLIT_SHORT_MAX bytes; raw is the untrimmed line. */
static uint8_t default_line_short(extractor_t *x, size_t i, const char *p, uint32_t len,
                                  const char *raw, uint32_t raw_len, sv_t *const *cols)
{
    split_short_t s;
    split_short_init(&s, p, len, '|', '=');
    return default_short(x, i, p, len, raw, raw_len, s.pos, s.n_sep, s.eq, SPLIT_SHORT_WIN - 1, 0,
                         false, cols);
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
    default_fill(x, i, p, len, sep, true, cols);
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

/* One line, by the per-line splitters; status as extract_batch gives it. */
/* The status st of line i [line, line+len) made final: a skipped line
 * without the table literal is not of the table; columns of a line not
 * taken are missing, repeated names copied otherwise. */
static inline uint8_t default_finish(extractor_t *x, size_t i, const char *line, uint32_t len,
                                     uint8_t st, sv_t *const *cols)
{
    if (st == EXTRACT_SKIP && x->table_lit && !default_has_table(x, line, len))
        st = EXTRACT_NO_TABLE;
    if (st != EXTRACT_OK)
        extract_line_missing(x, i, cols);
    else
        extract_line_dups(x, i, cols);
    return st;
}

static uint8_t default_line(extractor_t *x, size_t i, const char *line, uint32_t len,
                            sv_t *const *cols)
{
    const char *p = line;
    uint32_t l = len;
    extract_trim(&p, &l);
    uint8_t st;
    if (l < 4 || memcmp(p, "INFO", 4) != 0)
        st = EXTRACT_SKIP;
    else if (l <= SPLIT_SHORT_MAX)
        st = default_line_short(x, i, p, l, line, len, cols);
    else
        st = default_line_long(x, i, p, l, line, len, cols);
    return default_finish(x, i, line, len, st, cols);
}

static void default_batch(extractor_t *x, const char *const *line, const uint32_t *len,
                          size_t n, sv_t *const *cols, uint8_t *status)
{
    for (size_t i = 0; i < n; i++)
        status[i] = default_line(x, i, line[i], len[i], cols);
}

/* ---- lines split and extracted in one pass ----
 *
 * extract_lines for the default format: one pass of 64-byte windows over
 * the region gives the newline, '|' and '=' masks at once, so a line's
 * separators are known when its newline is, without a second look at its
 * bytes. Lines that need trimming, are long or are not INFO go to
 * default_line; the rest get exactly default_line_short's treatment. */
#define LINES_EQ_RING 8     /* '=' masks of the last windows; a short line
                               spans at most 5 */

typedef struct lines_state {
    const char *base;       /* the region's first byte: window w is at base + 64 w */
    const char *end;        /* one past its last byte */
    uint64_t eq[LINES_EQ_RING]; /* '=' mask of window w at eq[w % LINES_EQ_RING]
                               (a power of two: extract_first_eq's ring) */
    uint32_t n_sep;         /* separators of the current line so far */
    bool long_line;         /* the current line is over SPLIT_SHORT_MAX bytes */
    uint16_t pos[SPLIT_SHORT_MAX + 64 + 32 + 4]; /* their offsets in the line
                               (+ slack for the stores of LINES_STORE) */
} lines_state_t;

/* The line [ls, le) is complete: row i. */
static inline __attribute__((always_inline)) uint8_t lines_end(extractor_t *x, size_t i, const char *ls, const char *le,
                                lines_state_t *s, sv_t *const *cols)
{
    uint32_t len = (uint32_t)(le - ls);
    if (s->long_line || len > SPLIT_SHORT_MAX || len < 4 || !bytes_equal(ls, "INFO", 4) ||
        (unsigned char)(le[-1] - 0x21) >= 0x5F)   /* extract_trim would act */
        return default_line(x, i, ls, len, cols);
    uint8_t st = default_short(x, i, ls, len, ls, len, s->pos, s->n_sep, s->eq,
                               LINES_EQ_RING - 1, (size_t)(ls - s->base), s->end - le >= 16,
                               cols);
    return default_finish(x, i, ls, len, st, cols);
}

/* The positions of the set bits of m, plus wo, to out[0..]: four at a
 * time, unconditionally (fewer unpredictable loop exits; the extra writes
 * land in the slack or are overwritten next). */
static inline __attribute__((always_inline)) void lines_store_scalar(uint16_t *out, uint64_t m,
                                                                     ptrdiff_t wo)
{
    const uint64_t top = (uint64_t)1 << 63;
    while (m) {
        out[0] = (uint16_t)(wo + __builtin_ctzll(m));
        m &= m - 1;
        out[1] = (uint16_t)(wo + __builtin_ctzll(m | top));
        m &= m - 1;
        out[2] = (uint16_t)(wo + __builtin_ctzll(m | top));
        m &= m - 1;
        out[3] = (uint16_t)(wo + __builtin_ctzll(m | top));
        m &= m - 1;
        out += 4;
    }
}

/* default_lines for each instruction set: the template in
 * fmt_default_lines.h, compiled once per set and chosen at run time. */
#define LINES_FN default_lines_base
#define LINES_ATTR
#define LINES_MASKS split_masks64_3
#define LINES_POPCOUNT split_popcount
#define LINES_STORE lines_store_scalar
#include "exec/extract/fmt_default_lines.h"

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>

static inline __attribute__((always_inline, target("avx2"))) void
masks64_3_avx2(const char *q, char c0, char c1, char c2, uint64_t *m0, uint64_t *m1,
               uint64_t *m2)
{
    __m256i a = _mm256_loadu_si256((const __m256i *)(const void *)q);
    __m256i b = _mm256_loadu_si256((const __m256i *)(const void *)(q + 32));
    __m256i v0 = _mm256_set1_epi8(c0), v1 = _mm256_set1_epi8(c1), v2 = _mm256_set1_epi8(c2);
    *m0 = (uint32_t)_mm256_movemask_epi8(_mm256_cmpeq_epi8(a, v0)) |
          (uint64_t)(uint32_t)_mm256_movemask_epi8(_mm256_cmpeq_epi8(b, v0)) << 32;
    *m1 = (uint32_t)_mm256_movemask_epi8(_mm256_cmpeq_epi8(a, v1)) |
          (uint64_t)(uint32_t)_mm256_movemask_epi8(_mm256_cmpeq_epi8(b, v1)) << 32;
    *m2 = (uint32_t)_mm256_movemask_epi8(_mm256_cmpeq_epi8(a, v2)) |
          (uint64_t)(uint32_t)_mm256_movemask_epi8(_mm256_cmpeq_epi8(b, v2)) << 32;
}

static inline __attribute__((always_inline, target("avx512f,avx512bw"))) void
masks64_3_avx512(const char *q, char c0, char c1, char c2, uint64_t *m0, uint64_t *m1,
                 uint64_t *m2)
{
    __m512i a = _mm512_loadu_si512((const void *)q);
    *m0 = _mm512_cmpeq_epi8_mask(a, _mm512_set1_epi8(c0));
    *m1 = _mm512_cmpeq_epi8_mask(a, _mm512_set1_epi8(c1));
    *m2 = _mm512_cmpeq_epi8_mask(a, _mm512_set1_epi8(c2));
}

#define LINES_FN default_lines_avx2
#define LINES_ATTR __attribute__((target("avx2,popcnt,bmi,bmi2")))
#define LINES_MASKS masks64_3_avx2
#define LINES_POPCOUNT __builtin_popcountll
#define LINES_STORE lines_store_scalar
#include "exec/extract/fmt_default_lines.h"

/* lines_store_scalar in two compresses: no branch per bit. Positions
 * are 16-bit lanes, so wo + bit wraps as the uint16_t stores do. */
static inline __attribute__((always_inline, target("avx512f,avx512bw,avx512vbmi2,popcnt"))) void
lines_store_avx512(uint16_t *out, uint64_t m, ptrdiff_t wo)
{
    static const uint16_t iota[32] = {0,  1,  2,  3,  4,  5,  6,  7,  8,  9,  10,
                                      11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21,
                                      22, 23, 24, 25, 26, 27, 28, 29, 30, 31};
    __m512i lo = _mm512_add_epi16(_mm512_loadu_si512((const void *)iota),
                                  _mm512_set1_epi16((short)wo));
    __m512i hi = _mm512_add_epi16(lo, _mm512_set1_epi16(32));
    _mm512_storeu_si512((void *)out, _mm512_maskz_compress_epi16((__mmask32)m, lo));
    out += __builtin_popcount((uint32_t)m);
    _mm512_storeu_si512((void *)out, _mm512_maskz_compress_epi16((__mmask32)(m >> 32), hi));
}

#define LINES_FN default_lines_avx512
#define LINES_ATTR __attribute__((target("avx512f,avx512bw,avx512vbmi2,popcnt,bmi,bmi2")))
#define LINES_MASKS masks64_3_avx512
#define LINES_POPCOUNT __builtin_popcountll
#define LINES_STORE lines_store_avx512
#include "exec/extract/fmt_default_lines.h"
#endif

static int lines_isa_limit = EXTRACT_ISA_AVX512;

/* The widest set this CPU has, up to the limit. */
static int lines_isa(void)
{
    int level = cpu_vec_level();
    int have = level >= CPU_VEC_AVX512VBMI2 ? EXTRACT_ISA_AVX512
               : level >= CPU_VEC_AVX2      ? EXTRACT_ISA_AVX2
                                            : EXTRACT_ISA_BASE;
    int limit = __atomic_load_n(&lines_isa_limit, __ATOMIC_RELAXED);
    return have < limit ? have : limit;
}

int extract_isa_limit(int max)
{
    __atomic_store_n(&lines_isa_limit, max, __ATOMIC_RELAXED);
    return lines_isa();
}

static const char *default_lines(extractor_t *x, const char *p, const char *end,
                                 const char **line, uint32_t *len, size_t *np, size_t cap,
                                 sv_t *const *cols, uint8_t *status)
{
#if defined(__x86_64__) && defined(__GNUC__)
    int isa = lines_isa();
    if (isa == EXTRACT_ISA_AVX512)
        return default_lines_avx512(x, p, end, line, len, np, cap, cols, status);
    if (isa == EXTRACT_ISA_AVX2)
        return default_lines_avx2(x, p, end, line, len, np, cap, cols, status);
#endif
    return default_lines_base(x, p, end, line, len, np, cap, cols, status);
}

static void default_names(const extractor_t *x, const char *p, uint32_t len, extract_name_fn fn,
                          void *arg)
{
    (void)x;
    extract_kv_names(p, len, DEF_MIN_FIELDS - 1, fn, arg);
}

const extract_format_t extract_format_default = {
    .name = "default", .dynamic = true, .table_filter = true, .plan_var = default_plan_var,
    .batch = default_batch, .lines = default_lines, .names = default_names, .records = true,
};
