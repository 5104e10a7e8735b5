/* parser/plan.h: the logical plan of one query, as exec/ consumes it.
 *
 * A plan is plain data in the query's arena: arrays with counts, strings
 * NUL-terminated, no callbacks. It is produced by query_parse() (parser.h)
 * after every name has been checked against the log format, so exec/ never
 * sees an unknown aggregate, function, operator or $variable.
 *
 * Per line, exec/ evaluates in DTail's order (dtail-behaviour.md §2.8):
 * read filter (table) -> parse fields (logformat) -> where -> set ->
 * group key (group_by) -> select aggregates. */
#ifndef DTAIL_PARSER_PLAN_H
#define DTAIL_PARSER_PLAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "parser/logformat.h"

/* How an aggregate folds the values of a group (dtail-behaviour.md §2.5). */
enum plan_agg {
    PLAN_AGG_LAST = 0,     /* last value in input order; a bare field selects this */
    PLAN_AGG_COUNT,        /* lines where the value exists */
    PLAN_AGG_SUM,          /* sum of numeric values */
    PLAN_AGG_MIN,          /* minimum of numeric values */
    PLAN_AGG_MAX,          /* maximum of numeric values */
    PLAN_AGG_AVG,          /* mean of the numeric values of this item only */
    PLAN_AGG_LEN,          /* byte length of the last value */
    PLAN_AGG_PERCENTAGE,   /* group sum / all groups' sums * 100 */
    PLAN_AGG_PERCENTILE,   /* DTail's rank of the group sum among all groups */
    PLAN_AGG_QUANTILE,     /* value quantile `quantile` (0..1): exact up to a bound
                              of values, then a mergeable sketch */
    PLAN_AGG_COUNT_DISTINCT, /* count(distinct f): distinct values, exact up to a
                                bound, then a HyperLogLog sketch */
    PLAN_AGG_TOP,          /* top(f, k): the k most frequent values with counts */
    PLAN_AGG_EXPR,         /* arithmetic over other items (value: its tree,
                              PLAN_V_ITEM leaves), computed per group after
                              the final merge (exec/agg/post.h); its state
                              is sum-shaped and folds nothing */
};

#define PLAN_TOP_K_MAX 1000   /* the largest k of top(f, k) */

/* Scalar functions usable in select, where, set and group by. */
enum plan_func {
    PLAN_FN_MD5SUM = 0,    /* lowercase hex MD5 of the argument */
    PLAN_FN_MASKDIGITS,    /* every ASCII digit replaced by '.' */
    PLAN_FN_BUCKET,        /* time bucket: bucket(ts, 5m) -> start of the bucket */
    PLAN_FN_REGEX,         /* regex capture: regex(x, "pat" [, group]) */
    PLAN_FN_JSON,          /* json(x).a.b: the value at a path of x's JSON text */
};

enum plan_value_kind {
    PLAN_V_FIELD = 0,      /* value of a field of the line (see plan_field_src) */
    PLAN_V_STRING,         /* string literal */
    PLAN_V_NUMBER,         /* numeric literal (text kept as written) */
    PLAN_V_CALL,           /* function of argument values */
    PLAN_V_ARITH,          /* args[0] arith args[1], arith one of + - * / */
    PLAN_V_ITEM,           /* after aggregation: the value of select item `item` */
};

/* Where a field's value comes from. */
enum plan_field_src {
    PLAN_SRC_COMMON = 0,   /* $line $empty $hostname $server $timezone $timeoffset, `*` */
    PLAN_SRC_FORMAT,       /* a $variable of the log format ($time, $goroutines...) */
    PLAN_SRC_DYNAMIC,      /* a key=value / CSV column / JSON key named in the line */
    PLAN_SRC_SET,          /* a $variable assigned by the set clause */
};

typedef struct plan_value plan_value_t;
struct plan_value {
    enum plan_value_kind kind;
    uint32_t offset;           /* byte offset in the query text */
    const char *text;          /* field name, literal text, or function name */
    size_t len;                /* bytes in text */
    /* PLAN_V_FIELD */
    enum plan_field_src src;
    int set_index;             /* PLAN_SRC_SET: index into plan.set, else -1 */
    bool or_literal;           /* set rhs bareword: DTail uses the text itself
                                  when no field of that name exists */
    /* PLAN_V_ARITH (args and nargs 2 as for a call); beside or_literal, in
     * what was padding: a value is no bigger than before */
    char arith;                /* '+', '-', '*' or '/' */
    /* PLAN_V_NUMBER */
    double number;             /* parsed value */
    /* PLAN_V_CALL */
    enum plan_func func;
    /* PLAN_V_ITEM */
    int item;                  /* index into plan.select */
    plan_value_t **args;       /* nargs argument values */
    size_t nargs;
    int64_t bucket_seconds;    /* PLAN_FN_BUCKET: bucket width in seconds (> 0) */
    const char *regex;         /* PLAN_FN_REGEX: the pcre2 pattern (validated);
                                  PLAN_FN_JSON: the path ("a.b.0") */
    int regex_group;           /* PLAN_FN_REGEX: capture group to return */
};

/* One select item: a column of the result (the first plan.n_columns), or
 * an aggregate that only computed columns and having read. */
typedef struct plan_select {
    enum plan_agg agg;
    const plan_value_t *value; /* what is aggregated: a field or a function */
    const char *name;          /* column header / wire key, exactly as DTail
                                  names it: "count($line)", "avg($goroutines)",
                                  "$time", "p95(latency)" */
    double quantile;           /* PLAN_AGG_QUANTILE: in [0,1] */
    uint32_t top_k;            /* PLAN_AGG_TOP: values shown, 1..PLAN_TOP_K_MAX */
    bool group_key;            /* the name equals a group-by field */
    uint32_t offset;           /* byte offset of the item in the query */
} plan_select_t;

enum plan_op {
    PLAN_OP_EQ = 0,   /* ==  numeric */
    PLAN_OP_NE,       /* !=  numeric */
    PLAN_OP_LT,       /* <   numeric */
    PLAN_OP_LE,       /* <= or =<  numeric */
    PLAN_OP_GT,       /* >   numeric */
    PLAN_OP_GE,       /* >= or =>  numeric */
    PLAN_OP_STR_EQ,   /* eq */
    PLAN_OP_STR_NE,   /* ne */
    PLAN_OP_CONTAINS, /* contains */
    PLAN_OP_NCONTAINS,/* ncontains, lacks */
    PLAN_OP_HASPREFIX,
    PLAN_OP_NHASPREFIX,
    PLAN_OP_HASSUFFIX,
    PLAN_OP_NHASSUFFIX,
    PLAN_OP_MATCHES,  /* lhs matches the regex `regex` */
    PLAN_OP_NMATCHES, /* ... does not */
    PLAN_OP_IN,       /* lhs eq one of list */
    PLAN_OP_NOT_IN,   /* lhs ne every one of list */
    PLAN_OP_AND,      /* every one of kids */
    PLAN_OP_OR,       /* one of kids */
    PLAN_OP_NOT,      /* not kids[0] */
};

/* One condition (a where or having clause is a list of them, all of which
 * must hold). Conditions have three values, as in SQL: a missing field, or
 * a value that is no number in a numeric comparison, makes a comparison
 * unknown, which not leaves unknown, and only a true condition selects:
 * so a missing field fails even the negated operators (DTail). */
typedef struct plan_cond plan_cond_t;
struct plan_cond {
    enum plan_op op;
    bool numeric;              /* float comparison (op <= PLAN_OP_GE); a
                                  non-numeric field value makes it false */
    const plan_value_t *lhs;   /* comparisons, matches, in */
    const plan_value_t *rhs;   /* comparisons */
    const plan_value_t *const *list; /* in, not in: n_list literals */
    size_t n_list;
    const char *regex;         /* matches, nmatches: the pcre2 pattern (validated) */
    const plan_cond_t *const *kids; /* and, or, not: n_kids conditions */
    size_t n_kids;
    uint32_t offset;           /* byte offset of the operator */
};

/* Whether c is one of DTail's comparisons (==, eq, contains ...): the
 * where stage's fast path. */
static inline bool plan_cond_is_simple(const plan_cond_t *c)
{
    return c->op <= PLAN_OP_NHASSUFFIX;
}

/* One set assignment, evaluated in order after where. */
typedef struct plan_assign {
    const char *var;           /* "$mask", with the dollar */
    const plan_value_t *rhs;
    uint32_t offset;
} plan_assign_t;

enum plan_outfile_format {
    PLAN_OUT_NONE = 0,         /* no outfile: terminal table */
    PLAN_OUT_CSV,              /* any other name: CSV */
    PLAN_OUT_SQLITE,           /* name ends in .sqlite, .sqlite3 or .db */
};

/* The format an outfile named name[0..len) gets (any case of the suffix):
 * the query's rule, also for the REPL's .output. */
enum plan_outfile_format plan_outfile_format_of(const char *name, size_t len);

typedef struct plan_warning {
    uint32_t offset;           /* byte offset in the query */
    const char *msg;           /* NUL-terminated */
} plan_warning_t;

struct logzone;

typedef struct plan {
    const plan_select_t *select;   /* n_select >= 1 items: the n_columns
                                      columns in select order, then the
                                      aggregates computed columns and having
                                      read that are not columns themselves */
    size_t n_select;
    size_t n_columns;              /* columns of the result (<= n_select) */
    const char *table;             /* from TABLE, upper-cased; NULL without from
                                      ("." for logformat csv without from) */
    const plan_cond_t *where;      /* n_where conditions, ANDed */
    size_t n_where;
    const plan_cond_t *having;     /* n_having conditions over the groups,
                                      ANDed (values PLAN_V_ITEM, numbers,
                                      strings and arithmetic over them) */
    size_t n_having;
    const plan_assign_t *set;      /* n_set assignments, in order */
    size_t n_set;
    const plan_value_t *const *group_by; /* n_group_by key parts; 0 = one group */
    const char *const *group_names;      /* canonical names of the key parts */
    size_t n_group_by;
    int order_index;               /* select index to sort by, -1 for none */
    bool order_ascending;          /* rorder by (ascending); order by is descending */
    long long limit;               /* rows to output, -1 for no limit */
    bool limit_given;              /* limit clause present (terminal default is 10) */
    /* group by ... bucket(...) ... fill: the result gets the empty buckets
     * between its first and its last (exec/agg/fill.h) */
    bool fill;
    uint32_t fill_offset;          /* byte offset of the word fill */
    int interval;                  /* seconds between reports (default 5, >= 1) */
    bool interval_given;
    const char *outfile;           /* path, NULL for none */
    bool outfile_append;           /* outfile append PATH */
    enum plan_outfile_format outfile_format;
    const logformat_t *logformat;  /* the effective log format (never NULL) */
    bool logformat_given;          /* logformat clause present */
    /* The log format's options (parser/lfopts.c, docs/log-formats.md
     * "Options"), each given at most once; 0 / NULL when not given. */
    char lf_delimiter;             /* delimiter: csv, csvnoheader, tsv */
    const char *lf_pattern;        /* logformat pattern "...": the layout
                                      (parser/logpattern.h reads it) */
    const char *lf_timeformat;     /* timeformat "...": strptime-style, for
                                      $time and bucket() */
    const char *lf_multiline;      /* multiline "RE": a record's first line */
    uint32_t lf_multiline_offset;  /* byte offset of its value in the query */
    /* Not the query's: the zone times are written in (`--timezone`,
     * exec/extract/logzone.h), set by exec on its copy of the plan
     * (exec_plan_init); NULL: UTC. */
    const struct logzone *time_zone;
    const plan_warning_t *warnings;/* non-fatal remarks, in query order */
    size_t n_warnings;
    const char *ext;               /* the first construct DTail's own dialect
                                      lacks or reads otherwise ("or",
                                      "having", "arithmetic", ...), which a
                                      DTail 4.1 peer cannot be sent; NULL
                                      when the query is DTail's dialect */
    uint32_t ext_offset;           /* its byte offset */
} plan_t;

const char *plan_agg_name(enum plan_agg agg);
const char *plan_func_name(enum plan_func fn);
const char *plan_op_name(enum plan_op op);

#endif
