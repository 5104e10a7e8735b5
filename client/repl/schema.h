/* schema.h: the fields a log format finds in a sample of the data,
 * each with a sample value: what `.schema` lists and what tab completion
 * offers. The names of dynamic fields (key=value pairs, CSV columns, JSON
 * keys) are read from the sample; every value comes from the engine's own
 * extractor (exec/extract), so a field listed here is one a query sees. */
#ifndef DTAIL_CLIENT_REPL_SCHEMA_H
#define DTAIL_CLIENT_REPL_SCHEMA_H

#include <stddef.h>

#include "base/err.h"
#include "exec/extract/extract.h"
#include "parser/logformat.h"

#define REPL_SCHEMA_MAX_FIELDS 256   /* dynamic names kept from a sample */
#define REPL_SCHEMA_MAX_LINES 1000   /* sample lines looked at */

typedef struct repl_field {
    char *name;      /* as a query writes it: "$time", "$line", "status" */
    char *sample;    /* the first value seen, cut short; NULL if never present */
} repl_field_t;

typedef struct repl_schema {
    const logformat_t *fmt;  /* the format the fields are for */
    repl_field_t *fields;    /* common variables, the format's, then dynamic */
    size_t n;                /* fields used */
    size_t cap;              /* fields allocated */
    unsigned n_lines;        /* sample lines read */
    unsigned n_parsed;       /* of those, lines the format parsed */
} repl_schema_t;

/* Builds the schema of fmt over sample[0..len) (whole lines; a final line
 * without '\n' is ignored unless it is the only one). Returns 0, or -1 with
 * e set (out of memory). */
int repl_schema_build(repl_schema_t *s, const logformat_t *fmt, const char *sample, size_t len,
                      const extract_env_t *env, err_t *e);
void repl_schema_free(repl_schema_t *s);

/* The format of sample: the one dmap detects (exec/extract/detect.h:
 * default, json, logfmt, nginx, syslog, csv), else default for samples
 * with DTail MAPREDUCE lines among others, json for a first line that is
 * an object, generickv for |key=value lines, else generic. */
const logformat_t *repl_schema_guess(const char *sample, size_t len);

#endif
