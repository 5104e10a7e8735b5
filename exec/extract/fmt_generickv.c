/* fmt_generickv.c: the `generickv` log format (dtail-behaviour.md §3.4):
 * the common variables plus every '|'-separated key=value token of the line
 * as a field (split on the first '='; a later token of the same key wins).
 * Tokens without '=' are ignored; DTail loops forever on them (defect D1).
 * Every line is accepted. */
#include "exec/extract/extract_int.h"

#define KV_TOKS 64      /* tokens taken from the splitter at once */

/* Sets the field of one token [start, end) whose first '=' is at eq. */
static inline void kv_token(const extractor_t *x, size_t i, const char *p, uint32_t start,
                            uint32_t end, uint32_t eq, sv_t *const *cols)
{
    if (eq == EXTRACT_NONE)
        return;                          /* not key=value: ignored (D1) */
    uint32_t f = extract_dyn_field(x, p + start, eq - start);
    if (f != EXTRACT_NONE) {
        cols[f][i].p = p + eq + 1;
        cols[f][i].len = end - eq - 1;
    }
}

static void kv_line(const extractor_t *x, size_t i, const char *p, uint32_t len,
                    sv_t *const *cols)
{
    /* The streaming splitter: every token needs its first '=', which it
     * tracks as it goes (cheaper here than the short-line splitter). */
    split_tok_t tok[KV_TOKS];
    split_t s;
    split_init(&s, p, len, '|', '=');
    size_t nt;
    while ((nt = split_fill(&s, tok, KV_TOKS)) > 0)
        for (size_t t = 0; t < nt; t++)
            kv_token(x, i, p, tok[t].start, tok[t].end, tok[t].eq, cols);
}

static void generickv_batch(extractor_t *x, const char *const *line, const uint32_t *len,
                            size_t n, sv_t *const *cols, uint8_t *status)
{
    for (size_t i = 0; i < n; i++) {
        const char *p = line[i];
        uint32_t l = len[i];
        extract_trim(&p, &l);
        extract_line_common(x, i, p, l, cols);
        if (x->n_dyn)
            kv_line(x, i, p, l, cols);
        extract_line_dups(x, i, cols);
        status[i] = EXTRACT_OK;
    }
}

static void generickv_names(const extractor_t *x, const char *p, uint32_t len,
                            extract_name_fn fn, void *arg)
{
    (void)x;
    extract_kv_names(p, len, 0, fn, arg);
}

const extract_format_t extract_format_generickv = {
    .name = "generickv", .dynamic = true, .batch = generickv_batch, .names = generickv_names,
    .records = true,
};
