/* eval_int.h: the compiled nodes of eval.c, shared with cond.c (the where
 * conditions beyond DTail's comparisons). Nothing outside exec/agg/
 * includes it. */
#ifndef DTAIL_EXEC_AGG_EVAL_INT_H
#define DTAIL_EXEC_AGG_EVAL_INT_H

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

#include "exec/agg/eval.h"

enum ev_kind {
    EV_COL = 0,     /* an extractor column */
    EV_SETCOL,      /* a set variable's column */
    EV_CONST,       /* a literal */
    EV_OR_LITERAL,  /* a field, or its own name when missing (set rhs) */
    EV_MD5,         /* md5sum(x) */
    EV_MASK,        /* maskdigits(x) */
    EV_BUCKET,      /* bucket(t, width) */
    EV_REGEX,       /* regex(x, pattern, group) */
    EV_JSON,        /* json(x).path */
    EV_ARITH,       /* arg arith arg2: + - * / of two numbers */
};

struct ev_node {
    enum ev_kind kind;          /* what the node computes */
    int col;                    /* EV_COL/EV_OR_LITERAL: extractor column; EV_SETCOL: set index */
    sv_t konst;                 /* EV_CONST value; EV_OR_LITERAL fallback */
    double number;              /* EV_CONST: numeric value if is_number */
    int is_number;              /* EV_CONST parsed as a number */
    size_t arg;                 /* first argument node index (functions, arithmetic) */
    size_t arg2;                /* EV_ARITH: second operand's node index */
    char arith;                 /* EV_ARITH: '+', '-', '*' or '/' */
    int64_t bucket_seconds;     /* EV_BUCKET width */
    /* EV_BUCKET: the last time read and its bucket. The lines of a minute
     * share their text but for the seconds (and fraction): with a width of
     * whole minutes, such a time has the same bucket, taken from here
     * without parsing (exec/agg/bucket_memo.c). Per worker, as the node. */
    struct bucket_memo {
        char in[48];            /* the time as written */
        uint8_t in_len;         /* 0: nothing remembered */
        uint8_t var_at, var_end;/* [var_at, var_end): the seconds and
                                   fraction, any digits there (seconds
                                   00-59) keep the bucket */
        uint8_t out_len;
        char out[48];           /* its bucket (LOGTIME_MAX bytes at most) */
    } memo;
    pcre2_code *re;             /* EV_REGEX pattern */
    pcre2_match_data *md;       /* EV_REGEX match data (this thread's) */
    int group;                  /* EV_REGEX capture group */
    const char *path;           /* EV_JSON: the path in the argument's JSON */
    sv_t *out;                  /* result column (computed nodes and consts) */
};

/* Compiles v into ev's nodes; returns its node index, or -1 with e set.
 * Node addresses move until the last compile: keep indices until then. */
long eval_compile(eval_t *ev, const plan_value_t *v, err_t *e);
/* The column of node n for rows (values of other rows are left as they
 * were). */
const sv_t *eval_node(eval_t *ev, ev_node_t *n, const uint32_t *rows, size_t nr);

/* cond.c: a where condition that is not one of DTail's comparisons. */
typedef struct ev_cond ev_cond_t;
/* Compiles c (its values into ev's nodes). NULL with e set. */
ev_cond_t *ev_cond_new(eval_t *ev, const plan_cond_t *c, err_t *e);
/* Points c's leaves at their nodes, once every node is compiled. */
void ev_cond_bind(eval_t *ev, ev_cond_t *c);
void ev_cond_free(ev_cond_t *c);
/* Keeps the rows for which c is true; returns how many. */
size_t ev_cond_filter(eval_t *ev, ev_cond_t *c, uint32_t *rows, size_t nr);

#endif
