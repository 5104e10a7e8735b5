/* fieldreport.h: what a run learnt about the fields its query names, for
 * the warnings at its end (docs/dmap.md, "Names that resolve to nothing").
 *
 * A query's barewords are resolved only by the lines: a typo in one
 * (avg(currentConections)) names a field no line has, and without a word
 * the result would be a silent 0. The scan notes, per bareword field, whether
 * any parsed line had it (a flag per field per worker, checked once per
 * batch and never again once set), how many values each numeric aggregate
 * skipped as no number, and, only while some field is still unseen, a few
 * lines from which the names that did appear are taken for a "did you
 * mean". Reports merge (worker into run, server into client), travel as a
 * versioned blob (the wire's FIELDS extension, docs/protocol.md), and the
 * client warns once from the merged knowledge. */
#ifndef DTAIL_EXEC_FIELDREPORT_H
#define DTAIL_EXEC_FIELDREPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "base/err.h"
#include "exec/agg/table.h"
#include "parser/plan.h"

#define FIELDREPORT_NAMES_MAX 128   /* names that did appear, kept for hints */
#define FIELDREPORT_EXAMPLES 3      /* first unparsed lines and times kept */

/* What the log format could not read: lines it calls malformed and
 * values $time or bucket() could not read as a timestamp, with the first
 * of each (docs/log-formats.md). Serverless dmap fills it from its scan,
 * a dserver sends it with the field report, the client adds those of all
 * servers and warns as serverless does (field_report_warn_parsing). */
typedef struct parse_problems {
    char format[32];          /* the log format that read them ("": not
                                 known; "several" when servers differ) */
    uint64_t lines_unparsed;
    char examples[FIELDREPORT_EXAMPLES][256];   /* the line, with the reason */
    int n_examples;
    uint64_t times_unparsable;
    char time_examples[FIELDREPORT_EXAMPLES][80];
    int n_time_examples;
} parse_problems_t;

typedef struct field_report {
    size_t n_fields;         /* bareword fields the query names */
    char **fields;           /* their names (owned), in query order */
    uint8_t *seen;           /* per field: some parsed line had it */
    size_t n_items;          /* select items */
    uint64_t *nonnum;        /* per item: values a numeric aggregate
                                skipped as no number */
    char *names[FIELDREPORT_NAMES_MAX]; /* distinct names that did appear
                                (owned), from sampled lines */
    size_t n_names;          /* entries in names */
    uint64_t lines_parsed;   /* lines the log format accepted */
    uint64_t divzero;        /* divisions by zero: per line (where, set,
                                aggregate arguments, group by) and, added
                                by the client, in arithmetic columns and
                                having (exec/agg/post.h) */
    bool unknown;            /* some part of the run sent no report (an
                                older server): presence is not known */
    parse_problems_t parsing; /* lines and times the format could not read */
} field_report_t;

/* The bareword fields of plan (select, where, set, group by, function
 * arguments; not a set right-hand side that may be its own text). */
int field_report_init(field_report_t *r, const plan_t *plan, err_t *e);
void field_report_free(field_report_t *r);
/* Index of field `name`, or -1. */
long field_report_find(const field_report_t *r, const char *name);
/* Adds a name that appeared in a line (ignored once names is full). */
void field_report_add_name(field_report_t *r, const char *p, size_t len);
/* Folds from into into (same plan). */
void field_report_merge(field_report_t *into, const field_report_t *from);

/* The report as bytes (malloc'd; NULL when out of memory). */
unsigned char *field_report_encode(const field_report_t *r, size_t *len);
/* Folds an encoded report into r; malformed input is an error naming it. */
int field_report_merge_encoded(field_report_t *r, const unsigned char *p, size_t len, err_t *e);

/* Marks which select items of specs render without a number as an empty
 * cell: every numeric item, except one over a bareword no parsed line had
 * (DTail prints 0 there, and the run warns about the name instead). */
void field_report_mark_null(const field_report_t *r, const plan_t *plan, agg_spec_t *specs);

/* Writes the warnings ("PROG: warning: ...", one a line) to f: every field
 * no parsed line had, with the closest name that did appear, and every
 * field whose values were not numbers to a numeric aggregate, and the
 * divisions by zero. Returns the warnings written. */
int field_report_warn(const field_report_t *r, const plan_t *plan, const char *prog, FILE *f);

/* Folds from's problems into into (counts added, examples kept to the
 * first FIELDREPORT_EXAMPLES, the format "several" when they differ). */
void parse_problems_merge(parse_problems_t *into, const parse_problems_t *from);
/* Writes what p says to f as dmap's summary does, serverless and through
 * servers alike ("PROG: N lines could not be parsed as log format FORMAT"
 * (p's format, else the one given),
 * "PROG: N times could not be read as a timestamp, ..."; the examples at
 * --logLevel debug). The caller checks --quiet and the warn level. */
void field_report_warn_parsing(const parse_problems_t *p, const char *format, const char *prog,
                               FILE *f);

#endif
