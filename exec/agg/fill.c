/* fill.c: see fill.h. */
#include "exec/agg/fill.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "exec/extract/logtime.h"
#include "wire/codec.h"

/* The parts of a group key: 4-byte little-endian lengths and the bytes. */
typedef struct key_part {
    const char *p;
    uint32_t len;
} key_part_t;

static size_t key_parts(const char *k, size_t kl, key_part_t *out, size_t max)
{
    size_t n = 0, i = 0;
    while (i + 4 <= kl && n < max) {
        uint32_t pl = wire_le32_load((const unsigned char *)k + i);
        if (pl > kl - i - 4)
            break;
        out[n++] = (key_part_t){k + i + 4, pl};
        i += 4 + pl;
    }
    return n;
}

/* A group's place in the series: which combination of the other keys
 * (rest) and which instant its bucket starts at. */
typedef struct slot {
    size_t rest;
    int64_t at;
} slot_t;

static int cmp_slot(const void *a, const void *b)
{
    const slot_t *x = a, *y = b;
    if (x->rest != y->rest)
        return x->rest < y->rest ? -1 : 1;
    return x->at < y->at ? -1 : x->at > y->at;
}

/* The key of the group: the parts with part b replaced by bucket. */
static size_t build_key(char *out, const key_part_t *parts, size_t n, size_t b, const char *bucket,
                        size_t blen)
{
    size_t o = 0;
    for (size_t i = 0; i < n; i++) {
        const char *p = i == b ? bucket : parts[i].p;
        uint32_t len = i == b ? (uint32_t)blen : parts[i].len;
        wire_le32_store((unsigned char *)out + o, len);
        memcpy(out + o + 4, p, len);
        o += 4 + len;
    }
    return o;
}

/* The rest of a key (every part but b) as a key of its own, to intern. */
static size_t rest_key(char *out, const key_part_t *parts, size_t n, size_t b)
{
    size_t o = 0;
    for (size_t i = 0; i < n; i++) {
        if (i == b)
            continue;
        wire_le32_store((unsigned char *)out + o, parts[i].len);
        memcpy(out + o + 4, parts[i].p, parts[i].len);
        o += 4 + parts[i].len;
    }
    return o;
}

/* Select items that show a group key part: that part's value. */
static void show_key_parts(const plan_t *plan, agg_table_t *t, uint32_t gid,
                           const key_part_t *parts, size_t n)
{
    for (size_t s = 0; s < plan->n_select && s < t->n_specs; s++) {
        const plan_select_t *it = &plan->select[s];
        if (!it->group_key || (it->agg != PLAN_AGG_LAST && it->agg != PLAN_AGG_LEN))
            continue;
        for (size_t k = 0; k < plan->n_group_by && k < n; k++) {
            if (strcmp(it->name, plan->group_names[k]) != 0)
                continue;
            sv_t v = {parts[k].p, parts[k].len};
            uint64_t seq = 1;
            agg_table_update(t, s, &gid, &v, &seq, 1);
            break;
        }
    }
}

/* The instant the bucket after the one starting at inst starts at. On a
 * fixed offset (or DTail's layouts, which have none) that is inst + w.
 * In a --timezone zone the buckets are aligned on its wall clock, so a
 * day across a DST change lasts 23 or 25 hours: the bucket of inst + w is
 * taken (written and read back, as bucket() writes it), and when that is
 * still inst's own bucket (a 25-hour day) the one an hour or two later. */
static int64_t next_start(const logtime_t *tmpl, const logtime_ctx_t *ctx, int64_t w, int64_t inst)
{
    bool dtail = tmpl->layout == LOGTIME_DTAIL_SHORT || tmpl->layout == LOGTIME_DTAIL_LONG;
    if (!tmpl->out || dtail)
        return inst + w;
    for (int64_t slack = 0; slack <= 3 * 3600; slack += 3600) {
        logtime_t lt = *tmpl;
        lt.local = inst + w + slack + lt.off;
        char text[LOGTIME_MAX];
        size_t tl = logtime_write_bucket(&lt, w, text);
        logtime_t back;
        if (tl && logtime_parse(text, tl, ctx, &back) && back.local - back.off > inst)
            return back.local - back.off;
    }
    return inst + w;
}

long agg_fill(const plan_t *plan, agg_table_t *t, err_t *e)
{
    if (!plan->fill || t->n_groups == 0)
        return 0;
    size_t b = plan->n_group_by;
    for (size_t k = 0; k < plan->n_group_by; k++) {
        const plan_value_t *v = plan->group_by[k];
        if (v->kind == PLAN_V_CALL && v->func == PLAN_FN_BUCKET) {
            b = k;
            break;
        }
    }
    if (b == plan->n_group_by)
        return 0;   /* the parser sees to it that there is one */
    int64_t w = plan->group_by[b]->bucket_seconds;
    size_t np = plan->n_group_by;
    if (np > 64)
        return err_set(e, ERR_QUERY, "fill: at most 64 group by keys, the query has %zu", np);
    key_part_t *parts = calloc(np, sizeof *parts);
    slot_t *slots = calloc(t->n_groups, sizeof *slots);
    agg_table_t rests;
    int have_rests = agg_table_init(&rests, NULL, 0, e) == 0;
    char *kb = NULL;
    size_t kcap = 0;
    long added = -1;
    if (!parts || !slots || !have_rests) {
        if (have_rests)
            err_set(e, ERR_NOMEM, "out of memory filling the buckets");
        goto out;
    }
    /* Where every group lies; the template writes the series' buckets in
     * the first group's layout and zone (one bucket() writes one layout). */
    logtime_ctx_t ctx = {.out = plan->time_zone};
    logtime_t tmpl = {0};
    size_t n_slots = 0;
    int64_t lo = INT64_MAX, hi = INT64_MIN;
    size_t n_groups = t->n_groups;
    for (size_t g = 0; g < n_groups; g++) {
        size_t kl = t->groups[g].key_len;
        if (key_parts(agg_table_key(t, g), kl, parts, np) != np)
            continue;
        logtime_t lt;
        if (!parts[b].len || !logtime_parse(parts[b].p, parts[b].len, &ctx, &lt))
            continue;   /* no bucket: kept, outside the series */
        if (kl + 4 > kcap) {
            free(kb);
            kcap = kl + 4 + LOGTIME_MAX + 64;
            if (!(kb = malloc(kcap))) {
                err_set(e, ERR_NOMEM, "out of memory filling the buckets");
                goto out;
            }
        }
        size_t rl = rest_key(kb, parts, np, b);
        long r = agg_table_group(&rests, kb, rl, agg_key_hash(kb, rl));
        if (r < 0) {
            err_set(e, ERR_NOMEM, "out of memory filling the buckets");
            goto out;
        }
        int64_t at = lt.local - lt.off;
        slots[n_slots++] = (slot_t){(size_t)r, at};
        if (at < lo) {
            lo = at;
            tmpl = lt;
        }
        if (at > hi)
            hi = at;
    }
    if (n_slots == 0) {
        added = 0;
        goto out;
    }
    /* Buckets in the range: (hi - lo) / w + 1 on a fixed offset; an hour
     * more per DST change in a zone (a 23-hour day is still a day). */
    uint64_t steps = (uint64_t)(hi - lo) / (uint64_t)w + 1;
    if (tmpl.out && w > 3600)
        steps = (uint64_t)(hi - lo + w / 2) / (uint64_t)w + 1;
    if (steps > AGG_FILL_MAX_ROWS || steps * rests.n_groups > AGG_FILL_MAX_ROWS) {
        char a[LOGTIME_MAX + 1] = "", z[LOGTIME_MAX + 1] = "";
        logtime_t last = tmpl;
        last.local += hi - lo;
        a[logtime_write_bucket(&tmpl, w, a)] = 0;
        z[logtime_write_bucket(&last, w, z)] = 0;
        err_set(e, ERR_QUERY, "fill: %llu buckets of %lld s from %s to %s%s are over the limit "
                              "of %zu rows (use a wider bucket, or a where on the time)",
                (unsigned long long)steps, (long long)w, a, z,
                rests.n_groups > 1 ? " for every combination of the other keys" : "",
                AGG_FILL_MAX_ROWS);
        goto out;
    }
    qsort(slots, n_slots, sizeof *slots, cmp_slot);
    added = 0;
    /* The groups of the table move as it grows: keys are read from the
     * rests table (its own copy) and from the slots. */
    for (size_t r = 0; r < rests.n_groups; r++) {
        key_part_t rp[64];
        size_t nr = key_parts(agg_table_key(&rests, r), rests.groups[r].key_len, rp, 64);
        /* The parts again in the group's order, the bucket left open. */
        key_part_t full[65];
        for (size_t i = 0, j = 0; i < np && i < 65; i++)
            full[i] = i == b ? (key_part_t){"", 0} : (j < nr ? rp[j++] : (key_part_t){"", 0});
        slot_t want = {r, lo};
        size_t at = 0;
        while (at < n_slots && cmp_slot(&slots[at], &want) < 0)
            at++;
        int64_t inst = lo;
        for (uint64_t i = 0; i < 2 * steps + 2 && inst <= hi;
             i++, inst = next_start(&tmpl, &ctx, w, inst)) {
            while (at < n_slots && slots[at].rest == r && slots[at].at < inst)
                at++;
            if (at < n_slots && slots[at].rest == r && slots[at].at == inst)
                continue;   /* the bucket has its group */
            logtime_t lt = tmpl;
            lt.local = inst + tmpl.off;
            char text[LOGTIME_MAX];
            size_t tl = logtime_write_bucket(&lt, w, text);
            if (!tl)
                continue;   /* past year 9999: no text to give it */
            size_t need = 4 * np + tl + rests.groups[r].key_len;
            if (need > kcap) {
                free(kb);
                kcap = need + 64;
                if (!(kb = malloc(kcap))) {
                    err_set(e, ERR_NOMEM, "out of memory filling the buckets");
                    added = -1;
                    goto out;
                }
            }
            size_t kl = build_key(kb, full, np, b, text, tl);
            size_t before = t->n_groups;
            long gid = agg_table_group(t, kb, kl, agg_key_hash(kb, kl));
            if (gid < 0) {
                err_set(e, ERR_NOMEM, "out of memory filling the buckets");
                added = -1;
                goto out;
            }
            if (t->n_groups == before)
                continue;   /* the text of a group there already */
            full[b] = (key_part_t){text, (uint32_t)tl};
            show_key_parts(plan, t, (uint32_t)gid, full, np);
            full[b] = (key_part_t){"", 0};
            added++;
        }
    }
out:
    free(kb);
    free(parts);
    free(slots);
    if (have_rests)
        agg_table_free(&rests);
    return added;
}
