/* parser/logformat.h: the registry of log formats the query language knows,
 * and the $variables each one provides (dtail-behaviour.md §3).
 *
 * This table is what the planner checks names against; exec/ owns the
 * extractors that actually produce the values and should use the same names.
 * Adding a format means adding a row here and an extractor there. */
#ifndef DTAIL_PARSER_LOGFORMAT_H
#define DTAIL_PARSER_LOGFORMAT_H

#include <stdbool.h>
#include <stddef.h>

typedef struct logformat {
    const char *name;             /* as written after `logformat` (case-sensitive) */
    const char *const *vars;      /* its own $variables, NULL-terminated (the
                                     common ones are not repeated here) */
    bool dynamic;                 /* lines carry named fields (key=value pairs,
                                     CSV columns, JSON keys) that barewords name */
    bool dynamic_dollar;          /* dynamic names may start with '$' (a CSV
                                     header such as "$time"), so an unknown
                                     $variable is not an error */
    const char *summary;          /* one line for docs and --help */
} logformat_t;

/* Variables every format provides: $line $empty $hostname $server
 * $timezone $timeoffset, NULL-terminated. The bareword `*` is also common
 * (the literal "*", for `group by *`). */
extern const char *const logformat_common_vars[];

/* NULL-terminated list of all formats, in documentation order. */
extern const logformat_t *const logformat_all[];

/* Looks a format up by exact name; NULL when unknown. */
const logformat_t *logformat_find(const char *name);
/* True if the format (or the common set) provides $variable `var` (with
 * its dollar). */
bool logformat_has_var(const logformat_t *fmt, const char *var);

#endif
