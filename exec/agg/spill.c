/* spill.c: sorted runs of groups in a temporary SQLite database, and their
 * merge. */
#include "exec/agg/spill.h"

#include <pthread.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>

#include "base/grow.h"
#include "base/log.h"
#include "wire/codec.h"

typedef struct spill_run {
    sqlite3_int64 first, last;  /* rowids of its first and last group */
} spill_run_t;

struct spill {
    sqlite3 *db;                /* the temporary database */
    sqlite3_stmt *insert;       /* INSERT INTO runs, prepared once */
    agg_spec_t *specs;          /* specs of the spilled tables */
    size_t n_specs;             /* count */
    spill_run_t *runs;          /* runs since open or reset */
    size_t n_runs, cap_runs;    /* count, allocated */
    uint64_t n_rows;            /* groups in them */
    size_t total_runs;          /* runs since open */
    agg_bytes_t buf;            /* encoded states of one group */
    pthread_mutex_t mu;         /* one writer at a time */
};

static int db_error(spill_t *sp, err_t *e, const char *what)
{
    return err_set(e, ERR_IO, "spill to a temporary database: %s: %s", what,
                   sp->db ? sqlite3_errmsg(sp->db) : "cannot open");
}

spill_t *spill_open(const agg_spec_t *specs, size_t n_specs, err_t *e)
{
    spill_t *sp = calloc(1, sizeof *sp);
    if (!sp || !(sp->specs = calloc(n_specs ? n_specs : 1, sizeof *specs))) {
        free(sp);
        err_set(e, ERR_NOMEM, "out of memory");
        return NULL;
    }
    memcpy(sp->specs, specs, n_specs * sizeof *specs);
    sp->n_specs = n_specs;
    pthread_mutex_init(&sp->mu, NULL);
    /* "": SQLite's private temporary database, unlinked once opened. */
    if (sqlite3_open_v2("", &sp->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX,
                        NULL) != SQLITE_OK ||
        sqlite3_exec(sp->db,
                     "PRAGMA page_size=16384; PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF;"
                     "PRAGMA locking_mode=EXCLUSIVE; PRAGMA temp_store=FILE;"
                     "PRAGMA cache_size=-4096;"   /* KiB of pages SQLite may hold */
                     "CREATE TABLE runs(key BLOB NOT NULL, state BLOB NOT NULL)",
                     NULL, NULL, NULL) != SQLITE_OK ||
        sqlite3_prepare_v2(sp->db, "INSERT INTO runs(key, state) VALUES (?1, ?2)", -1,
                           &sp->insert, NULL) != SQLITE_OK) {
        db_error(sp, e, "open");
        spill_close(sp);
        return NULL;
    }
    return sp;
}

void spill_close(spill_t *sp)
{
    if (!sp)
        return;
    sqlite3_finalize(sp->insert);
    sqlite3_close(sp->db);   /* SQLite deletes the file */
    free(sp->specs);
    free(sp->runs);
    free(sp->buf.p);
    pthread_mutex_destroy(&sp->mu);
    free(sp);
}

/* ---- key order ------------------------------------------------------------ */

/* Reads a raw key as its display form: parts joined by ','. */
typedef struct dkey_cursor {
    const char *k;      /* raw key */
    size_t len;         /* its length */
    size_t i;           /* read position */
    uint32_t left;      /* bytes left of the current part */
    unsigned parts;     /* parts started */
} dkey_cursor_t;

/* The next display byte, or -1 at the end (a malformed tail ends the key,
 * as result.c's result_group_key stops there). */
static int dkey_next(dkey_cursor_t *c)
{
    for (;;) {
        if (c->left) {
            c->left--;
            return (unsigned char)c->k[c->i++];
        }
        if (c->len - c->i < 4)
            return -1;
        uint32_t pl = wire_le32_load((const unsigned char *)c->k + c->i);
        if (pl > c->len - c->i - 4)
            return -1;
        c->i += 4;
        c->left = pl;
        if (c->parts++)
            return ',';
    }
}

static int raw_cmp(const char *a, size_t alen, const char *b, size_t blen)
{
    int c = memcmp(a, b, alen < blen ? alen : blen);
    if (c)
        return c;
    return (alen > blen) - (alen < blen);
}

int spill_key_cmp(const char *a, size_t alen, const char *b, size_t blen)
{
    if (alen >= 4 && blen >= 4) {
        uint32_t pa = wire_le32_load((const unsigned char *)a);
        uint32_t pb = wire_le32_load((const unsigned char *)b);
        if (pa == alen - 4 && pb == blen - 4) {
            /* One part each (the common case): the display key is the part. */
            int c = raw_cmp(a + 4, pa, b + 4, pb);
            return c ? c : raw_cmp(a, alen, b, blen);
        }
    }
    dkey_cursor_t ca = {a, alen, 0, 0, 0}, cb = {b, blen, 0, 0, 0};
    for (;;) {
        int x = dkey_next(&ca), y = dkey_next(&cb);
        if (x != y)
            return x < y ? -1 : 1;
        if (x < 0)
            return raw_cmp(a, alen, b, blen);
    }
}

/* ---- writing runs --------------------------------------------------------- */

typedef struct key_ref {
    const char *key;    /* raw key bytes in the table */
    uint32_t len;       /* their length */
    uint32_t group;     /* group index */
} key_ref_t;

static int cmp_ref(const void *a, const void *b)
{
    const key_ref_t *x = a, *y = b;
    return spill_key_cmp(x->key, x->len, y->key, y->len);
}

static int write_run(spill_t *sp, const agg_table_t *t, const key_ref_t *refs, err_t *e)
{
    if (sqlite3_exec(sp->db, "BEGIN", NULL, NULL, NULL) != SQLITE_OK)
        return db_error(sp, e, "begin");
    sqlite3_int64 first = 0;
    for (size_t i = 0; i < t->n_groups; i++) {
        sp->buf.len = 0;
        agg_group_encode(t, refs[i].group, &sp->buf);
        if (sp->buf.failed) {
            sp->buf.failed = 0;
            sqlite3_exec(sp->db, "ROLLBACK", NULL, NULL, NULL);
            return err_set(e, ERR_NOMEM, "out of memory spilling groups");
        }
        sqlite3_bind_blob(sp->insert, 1, refs[i].len ? refs[i].key : "", (int)refs[i].len,
                          SQLITE_STATIC);
        sqlite3_bind_blob(sp->insert, 2, sp->buf.len ? (const void *)sp->buf.p : "",
                          (int)sp->buf.len, SQLITE_STATIC);
        int rc = sqlite3_step(sp->insert);
        sqlite3_reset(sp->insert);
        if (rc != SQLITE_DONE) {
            db_error(sp, e, "write");
            sqlite3_exec(sp->db, "ROLLBACK", NULL, NULL, NULL);
            return -1;
        }
        if (i == 0)
            first = sqlite3_last_insert_rowid(sp->db);
    }
    if (sqlite3_exec(sp->db, "COMMIT", NULL, NULL, NULL) != SQLITE_OK) {
        db_error(sp, e, "commit");
        sqlite3_exec(sp->db, "ROLLBACK", NULL, NULL, NULL);
        return -1;
    }
    if (GROW_ARRAY(sp->runs, sp->cap_runs, sp->n_runs + 1, 16) < 0)
        return err_set(e, ERR_NOMEM, "out of memory spilling groups");
    sp->runs[sp->n_runs++] = (spill_run_t){first, sqlite3_last_insert_rowid(sp->db)};
    sp->n_rows += t->n_groups;
    sp->total_runs++;
    return 0;
}

int spill_write(spill_t *sp, const agg_table_t *t, err_t *e)
{
    if (t->n_groups == 0)
        return 0;
    key_ref_t *refs = malloc(t->n_groups * sizeof *refs);
    if (!refs)
        return err_set(e, ERR_NOMEM, "out of memory spilling %zu groups", t->n_groups);
    for (size_t g = 0; g < t->n_groups; g++)
        refs[g] = (key_ref_t){agg_table_key(t, g), t->groups[g].key_len, (uint32_t)g};
    qsort(refs, t->n_groups, sizeof *refs, cmp_ref);
    pthread_mutex_lock(&sp->mu);
    int rc = write_run(sp, t, refs, e);
    LOG_DEBUG("spill|run %zu: %zu groups, %zu bytes in memory", sp->total_runs, t->n_groups,
              agg_table_bytes(t));
    pthread_mutex_unlock(&sp->mu);
    free(refs);
    return rc;
}

int spill_reset(spill_t *sp, err_t *e)
{
    pthread_mutex_lock(&sp->mu);
    int rc = sqlite3_exec(sp->db, "DELETE FROM runs", NULL, NULL, NULL) == SQLITE_OK ? 0 : -1;
    if (rc < 0)
        db_error(sp, e, "reset");
    sp->n_runs = 0;
    sp->n_rows = 0;
    pthread_mutex_unlock(&sp->mu);
    return rc;
}

size_t spill_n_runs(const spill_t *sp) { return sp->n_runs; }
uint64_t spill_n_rows(const spill_t *sp) { return sp->n_rows; }
size_t spill_total_runs(const spill_t *sp) { return sp->total_runs; }
sqlite3 *spill_db(spill_t *sp) { return sp->db; }

agg_spec_t *spill_specs_mut(spill_t *sp)
{
    return sp->specs;
}

const agg_spec_t *spill_specs(const spill_t *sp, size_t *n_specs)
{
    *n_specs = sp->n_specs;
    return sp->specs;
}

/* ---- merging runs --------------------------------------------------------- */

typedef struct run_cursor {
    sqlite3_stmt *st;   /* the run's rows in rowid order */
    const char *key;    /* current key (valid until the next step) */
    size_t key_len;     /* its length */
} run_cursor_t;

struct spill_iter {
    spill_t *sp;        /* the store */
    run_cursor_t *cur;  /* one per run */
    size_t *heap;       /* cursor indices, a min-heap on their keys */
    size_t n_heap;      /* cursors not yet at their end */
    size_t n_cur;       /* cursors opened */
};

static int cur_less(const spill_iter_t *it, size_t a, size_t b)
{
    const run_cursor_t *x = &it->cur[a], *y = &it->cur[b];
    return spill_key_cmp(x->key, x->key_len, y->key, y->key_len) < 0;
}

static void heap_down(spill_iter_t *it, size_t j)
{
    for (;;) {
        size_t l = 2 * j + 1, r = l + 1, m = j;
        if (l < it->n_heap && cur_less(it, it->heap[l], it->heap[m]))
            m = l;
        if (r < it->n_heap && cur_less(it, it->heap[r], it->heap[m]))
            m = r;
        if (m == j)
            return;
        size_t t = it->heap[j];
        it->heap[j] = it->heap[m];
        it->heap[m] = t;
        j = m;
    }
}

/* Steps cursor c: 1 a row, 0 its end, -1 an error. */
static int cur_step(spill_iter_t *it, run_cursor_t *c, err_t *e)
{
    int rc = sqlite3_step(c->st);
    if (rc == SQLITE_DONE)
        return 0;
    if (rc != SQLITE_ROW)
        return db_error(it->sp, e, "read");
    c->key = sqlite3_column_blob(c->st, 0);
    c->key_len = (size_t)sqlite3_column_bytes(c->st, 0);
    if (!c->key)
        c->key = "";
    return 1;
}

spill_iter_t *spill_iter_open(spill_t *sp, err_t *e)
{
    spill_iter_t *it = calloc(1, sizeof *it);
    size_t n = sp->n_runs;
    if (!it || !(it->cur = calloc(n ? n : 1, sizeof *it->cur)) ||
        !(it->heap = calloc(n ? n : 1, sizeof *it->heap))) {
        spill_iter_close(it);
        err_set(e, ERR_NOMEM, "out of memory merging spilled groups");
        return NULL;
    }
    it->sp = sp;
    for (size_t r = 0; r < n; r++) {
        run_cursor_t *c = &it->cur[r];
        if (sqlite3_prepare_v2(sp->db,
                               "SELECT key, state FROM runs WHERE rowid BETWEEN ?1 AND ?2 "
                               "ORDER BY rowid", -1, &c->st, NULL) != SQLITE_OK) {
            db_error(sp, e, "read");
            spill_iter_close(it);
            return NULL;
        }
        it->n_cur++;
        sqlite3_bind_int64(c->st, 1, sp->runs[r].first);
        sqlite3_bind_int64(c->st, 2, sp->runs[r].last);
        int got = cur_step(it, c, e);
        if (got < 0) {
            spill_iter_close(it);
            return NULL;
        }
        if (got)
            it->heap[it->n_heap++] = r;
    }
    for (size_t j = it->n_heap / 2; j-- > 0;)
        heap_down(it, j);
    return it;
}

int spill_iter_next(spill_iter_t *it, agg_table_t *acc, err_t *e)
{
    if (it->n_heap == 0)
        return 0;
    run_cursor_t *c = &it->cur[it->heap[0]];
    if (acc) {
        agg_table_clear(acc);
        if (agg_table_group(acc, c->key, c->key_len, agg_key_hash(c->key, c->key_len)) != 0)
            return err_set(e, ERR_NOMEM, "out of memory merging spilled groups");
    }
    /* The key is copied into acc (or only compared, below): keep a copy for
     * the comparisons after the cursor has stepped past it. */
    const char *key = acc ? agg_table_key(acc, 0) : NULL;
    size_t key_len = c->key_len;
    char small[256];
    char *owned = NULL;
    if (!acc) {
        key = key_len <= sizeof small ? small : (owned = malloc(key_len));
        if (!key)
            return err_set(e, ERR_NOMEM, "out of memory merging spilled groups");
        memcpy((char *)key, c->key, key_len);
    }
    int rc = 1;
    while (it->n_heap) {
        c = &it->cur[it->heap[0]];
        if (c->key_len != key_len || memcmp(c->key, key, key_len) != 0)
            break;
        if (acc) {
            const unsigned char *st = sqlite3_column_blob(c->st, 1);
            size_t len = (size_t)sqlite3_column_bytes(c->st, 1);
            long used = agg_group_merge_encoded(acc, 0, st ? st : (const unsigned char *)"", len, e);
            if (used < 0 || (size_t)used != len) {
                rc = used < 0 ? -1 : err_set(e, ERR_IO, "spilled group: %zu stray bytes", len);
                break;
            }
        }
        int got = cur_step(it, c, e);
        if (got < 0) {
            rc = -1;
            break;
        }
        if (!got)
            it->heap[0] = it->heap[--it->n_heap];
        heap_down(it, 0);
    }
    free(owned);
    if (rc > 0 && acc && acc->failed)
        rc = err_set(e, ERR_NOMEM, "out of memory merging spilled groups");
    return rc;
}

void spill_iter_close(spill_iter_t *it)
{
    if (!it)
        return;
    for (size_t r = 0; r < it->n_cur; r++)
        sqlite3_finalize(it->cur[r].st);
    free(it->cur);
    free(it->heap);
    free(it);
}

int spill_merge_into(spill_t *sp, agg_table_t *into, err_t *e)
{
    spill_iter_t *it = spill_iter_open(sp, e);
    if (!it)
        return -1;
    agg_table_t acc;
    if (agg_table_init(&acc, sp->specs, sp->n_specs, e) < 0) {
        spill_iter_close(it);
        return -1;
    }
    int rc;
    while ((rc = spill_iter_next(it, &acc, e)) > 0) {
        if (agg_table_merge(into, &acc) < 0) {
            rc = err_set(e, ERR_NOMEM, "out of memory merging spilled groups");
            break;
        }
    }
    agg_table_free(&acc);
    spill_iter_close(it);
    return rc < 0 ? -1 : 0;
}
