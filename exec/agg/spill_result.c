/* spill_result.c: result rows from the merged runs of a spill. */
#include "exec/agg/spill_result.h"

#include <sqlite3.h>
#include "exec/agg/post.h"
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Appends a row stored as n_cols NUL-terminated cells back to back, its
 * cells' estimate flags in approx (NULL: none is one). */
static int rows_add_packed(result_rows_t *rb, const char *p, size_t len, size_t n_cols,
                           const unsigned char *approx, size_t n_approx)
{
    for (size_t c = 0; c < n_cols; c++) {
        size_t n = strnlen(p, len);
        char *at = result_rows_cell(rb, n + 1);
        if (!at)
            return -1;
        if (approx && c < n_approx && approx[c])
            rb->approx[rb->n_cells - 1] = rb->any_approx = 1;
        memcpy(at, p, n);
        at[n] = '\0';
        rb->len += n + 1;
        p += n < len ? n + 1 : n;
        len -= n < len ? n + 1 : n;
    }
    rb->n_rows++;
    return 0;
}

/* Hands the collected rows to emit as a result_t and empties rb. */
static int rows_emit(result_rows_t *rb, const plan_t *plan, size_t n_groups, uint64_t n_divzero,
                     spill_emit_fn emit, void *arg, err_t *e)
{
    result_t r;
    if (result_rows_take(rb, plan, n_groups, &r, e) < 0)
        return -1;
    r.n_divzero = n_divzero;
    int rc = emit(&r, arg, e);
    result_free(&r);
    return rc;
}

/* One pass over the merge for the totals of percentage and percentile
 * (ct untouched when no column needs them). -1 with e set. */
static int totals_compute(spill_t *sp, agg_table_t *acc, result_col_totals_t *ct, err_t *e)
{
    if (!result_needs_totals(acc->specs, acc->n_specs))
        return 0;
    spill_iter_t *it = spill_iter_open(sp, e);
    if (!it)
        return -1;
    int rc;
    while ((rc = spill_iter_next(it, acc, e)) > 0)
        if (result_totals_add(ct, acc, 0) < 0) {
            rc = err_set(e, ERR_NOMEM, "out of memory: percentile over spilled groups");
            break;
        }
    spill_iter_close(it);
    if (rc < 0)
        return -1;
    result_totals_finish(ct, acc->n_specs);
    return 0;
}

/* ---- the two orders ------------------------------------------------------- */

typedef struct build {
    const plan_t *plan;         /* the query */
    spill_t *sp;                /* the runs */
    agg_table_t acc;            /* the current merged group */
    result_col_totals_t *ct;    /* per column */
    result_rows_t rb;           /* rows not yet emitted */
    size_t keep;                /* rows wanted (SIZE_MAX: all) */
    size_t chunk_rows;          /* rows per emit */
    size_t n_groups;            /* groups merged so far */
    int emitted;                /* emit was called */
    spill_emit_fn emit;         /* receiver */
    void *arg;                  /* its argument */
    agg_post_t post;            /* arithmetic columns and having */
    int have_post;              /* ... the plan has them */
} build_t;

/* Whether the group just merged into b->acc is in the result (having),
 * with its arithmetic columns computed. */
static int group_kept(build_t *b)
{
    return !b->have_post || agg_post_group(&b->post, &b->acc, 0, b->ct);
}

static int flush_if_full(build_t *b, err_t *e)
{
    if (b->rb.n_rows < b->chunk_rows)
        return 0;
    b->emitted = 1;
    return rows_emit(&b->rb, b->plan, b->n_groups, b->post.n_divzero, b->emit, b->arg, e);
}

/* Without order by: the merge is already in result order. */
static int rows_in_key_order(build_t *b, err_t *e)
{
    spill_iter_t *it = spill_iter_open(b->sp, e);
    if (!it)
        return -1;
    int rc;
    for (;;) {
        /* having decides which groups count: each is merged then. */
        int want = b->n_groups < b->keep || b->have_post;
        rc = spill_iter_next(it, want ? &b->acc : NULL, e);
        if (rc <= 0)
            break;
        if (want && !group_kept(b))
            continue;
        if (b->n_groups++ < b->keep && (result_rows_add(&b->rb, b->plan, &b->acc, 0, b->ct) < 0 ||
                                        flush_if_full(b, e) < 0)) {
            if (e->code == ERR_NONE)
                err_set(e, ERR_NOMEM, "out of memory rendering spilled groups");
            rc = -1;
            break;
        }
    }
    spill_iter_close(it);
    return rc;
}

/* Records why ordering failed and leaves the spill as it was: no open
 * transaction (a later spill_write begins its own), no table `ordered`. */
static int db_fail(build_t *b, err_t *e, sqlite3_stmt *st)
{
    sqlite3 *db = spill_db(b->sp);
    sqlite3_finalize(st);
    if (e->code == ERR_NONE)
        err_set(e, ERR_IO, "ordering spilled groups: %s", sqlite3_errmsg(db));
    if (!sqlite3_get_autocommit(db))
        sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
    sqlite3_exec(db, "DROP TABLE IF EXISTS ordered", NULL, NULL, NULL);
    return -1;
}

/* With order by: every row rendered once into the table `ordered` beside
 * its order value, as a number and as text (a BLOB: SQLite orders BLOBs by
 * memcmp, then length, as result_build orders text), and its position in
 * key order (ties keep key order, as in result_build), then read back
 * sorted by the text when any value was text. */
static int rows_by_value(build_t *b, err_t *e)
{
    sqlite3 *db = spill_db(b->sp);
    sqlite3_stmt *st = NULL;
    size_t oc = (size_t)b->plan->order_index;
    int text = 0;   /* some order value is text: the column orders as text */
    if (sqlite3_exec(db, "DROP TABLE IF EXISTS ordered; "
                         "CREATE TABLE ordered(ord REAL, txt BLOB, seq INTEGER, row BLOB, "
                         "approx BLOB); BEGIN",
                     NULL, NULL, NULL) != SQLITE_OK ||
        sqlite3_prepare_v2(db, "INSERT INTO ordered VALUES (?1, ?2, ?3, ?4, ?5)", -1, &st, NULL) !=
            SQLITE_OK)
        return db_fail(b, e, st);
    spill_iter_t *it = spill_iter_open(b->sp, e);
    if (!it)
        return db_fail(b, e, st);
    int rc;
    while ((rc = spill_iter_next(it, &b->acc, e)) > 0) {
        if (!group_kept(b))
            continue;
        if (result_rows_add(&b->rb, b->plan, &b->acc, 0, b->ct) < 0) {
            rc = err_set(e, ERR_NOMEM, "out of memory rendering spilled groups");
            break;
        }
        const unsigned char *state = agg_table_state(&b->acc, 0, oc);
        const char *txt;
        uint32_t txt_len;
        text |= agg_state_text(&b->acc.specs[oc], state, &txt, &txt_len);
        sqlite3_bind_double(st, 1, agg_state_number(&b->acc.specs[oc], state));
        sqlite3_bind_blob(st, 2, txt, (int)txt_len, SQLITE_STATIC);
        sqlite3_bind_int64(st, 3, (sqlite3_int64)b->n_groups++);
        sqlite3_bind_blob(st, 4, b->rb.text, (int)b->rb.len, SQLITE_STATIC);
        if (b->rb.any_approx)
            sqlite3_bind_blob(st, 5, b->rb.approx, (int)b->rb.n_cells, SQLITE_STATIC);
        else
            sqlite3_bind_null(st, 5);
        int done = sqlite3_step(st);
        sqlite3_reset(st);
        b->rb.len = b->rb.n_cells = b->rb.n_rows = 0;
        b->rb.any_approx = 0;
        if (done != SQLITE_DONE) {
            rc = -1;
            break;
        }
    }
    spill_iter_close(it);
    if (rc < 0 || sqlite3_exec(db, "COMMIT", NULL, NULL, NULL) != SQLITE_OK)
        return db_fail(b, e, st);
    sqlite3_finalize(st);
    static const char *const sqls[2][2] = {
        {"SELECT row, approx FROM ordered ORDER BY ord DESC, seq LIMIT ?1",
         "SELECT row, approx FROM ordered ORDER BY ord ASC, seq LIMIT ?1"},
        {"SELECT row, approx FROM ordered ORDER BY txt DESC, seq LIMIT ?1",
         "SELECT row, approx FROM ordered ORDER BY txt ASC, seq LIMIT ?1"},
    };
    const char *sql = sqls[text][b->plan->order_ascending != 0];
    if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
        return db_fail(b, e, NULL);
    sqlite3_bind_int64(st, 1, b->keep > INT64_MAX ? -1 : (sqlite3_int64)b->keep);
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        const char *p = sqlite3_column_blob(st, 0);
        size_t len = (size_t)sqlite3_column_bytes(st, 0);
        const unsigned char *ap = sqlite3_column_blob(st, 1);
        size_t alen = (size_t)sqlite3_column_bytes(st, 1);
        if (rows_add_packed(&b->rb, p ? p : "", len, b->plan->n_columns, ap, alen) < 0) {
            err_set(e, ERR_NOMEM, "out of memory rendering spilled groups");
            return db_fail(b, e, st);
        }
        if (flush_if_full(b, e) < 0)
            return db_fail(b, e, st);
    }
    if (rc != SQLITE_DONE)
        return db_fail(b, e, st);
    sqlite3_finalize(st);
    sqlite3_exec(db, "DROP TABLE ordered", NULL, NULL, NULL);
    return 0;
}

int spill_result_each(const plan_t *plan, spill_t *sp, long long limit, size_t chunk_rows,
                      spill_emit_fn emit, void *arg, err_t *e)
{
    build_t b = {.plan = plan, .sp = sp, .chunk_rows = chunk_rows ? chunk_rows : 1,
                 .keep = limit >= 0 ? (size_t)limit : SIZE_MAX, .emit = emit, .arg = arg};
    size_t n_specs;
    const agg_spec_t *specs = spill_specs(sp, &n_specs);
    if (agg_table_init(&b.acc, specs, n_specs, e) < 0)
        return -1;
    b.ct = calloc(n_specs ? n_specs : 1, sizeof *b.ct);
    int rc = b.ct ? totals_compute(sp, &b.acc, b.ct, e)
                  : err_set(e, ERR_NOMEM, "out of memory");
    b.have_post = agg_post_needed(plan);
    if (rc == 0 && b.have_post && agg_post_init(&b.post, plan, e) < 0) {
        b.have_post = 0;
        rc = -1;
    }
    if (rc == 0) {
        int ordered = plan->order_index >= 0 && (size_t)plan->order_index < n_specs;
        rc = ordered ? rows_by_value(&b, e) : rows_in_key_order(&b, e);
    }
    if (rc == 0 && (b.rb.n_rows || !b.emitted))
        rc = rows_emit(&b.rb, plan, b.n_groups, b.post.n_divzero, emit, arg, e);
    if (b.have_post)
        agg_post_free(&b.post);
    result_rows_free(&b.rb);
    result_totals_free(b.ct, n_specs);
    agg_table_free(&b.acc);
    return rc < 0 ? -1 : 0;
}

static int take_all(const result_t *r, void *arg, err_t *e)
{
    (void)e;
    result_t *out = arg;
    *out = *r;
    memset((result_t *)r, 0, sizeof *r);   /* ownership moves to out */
    return 0;
}

int spill_result_build(const plan_t *plan, spill_t *sp, long long limit, result_t *r, err_t *e)
{
    memset(r, 0, sizeof *r);
    return spill_result_each(plan, sp, limit, SIZE_MAX, take_all, r, e);
}
