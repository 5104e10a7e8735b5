/* flagparse.h: Go flag syntax over a table of flags, the one parser of
 * every binary's command line (dserver, dtailhealth, the clients' cli.c)
 * and of the interactive ":reload <flags>".
 *
 * -name or --name, the value as the next argument or after '=', booleans
 * without a value (or =true/=false); "-h" is the flag "help" when the
 * table has one. Positional arguments are errors unless the caller gives
 * room for them; then "--" ends the flags and, unlike Go's flag package,
 * flags may follow positional arguments (unless first_ends_flags). One
 * table can hold the flags of several tools: each flag has a mask, and a
 * parse sees the flags whose mask shares a bit with its selector. Unknown
 * flags and bad values are ERR_USAGE errors naming the flag. */
#ifndef DTAIL_BASE_FLAGPARSE_H
#define DTAIL_BASE_FLAGPARSE_H

#include <stddef.h>

#include "base/err.h"
#include "base/log.h"

enum flagparse_type { FP_BOOL, FP_INT, FP_STRING };

typedef struct flagparse_def {
    const char *name;             /* without dashes */
    enum flagparse_type type;     /* int: long long >= 0; bool: int; string: const char * */
    unsigned mask;                /* selector bits that see the flag; 0: every parse does */
    size_t offset;                /* field in the caller's struct */
    const char *arg;              /* the value's name in help, or NULL */
    const char *help;             /* the help line's text */
} flagparse_def_t;

/* What went wrong, for a caller that words its errors its own way. */
enum flagparse_fault {
    FP_FAULT_NONE,
    FP_FAULT_UNKNOWN,             /* no such flag (for this selector) */
    FP_FAULT_NO_VALUE,            /* the last argument, a flag that needs a value */
    FP_FAULT_BAD_VALUE,           /* not a boolean, or not an integer >= 0 */
    FP_FAULT_POSITIONAL,          /* a positional argument where none are taken */
};

typedef struct flagparse_failure {
    enum flagparse_fault fault;
    const flagparse_def_t *def;   /* the flag, for NO_VALUE and BAD_VALUE */
    const char *name;             /* the flag as written, without dashes or =value */
    size_t name_len;
    const char *value;            /* BAD_VALUE: the value; POSITIONAL: the argument */
} flagparse_failure_t;

typedef struct flagparse {
    const flagparse_def_t *defs;
    size_t n_defs;
    unsigned select;              /* which masked flags this parse sees */
    const char *tool;             /* named in the messages */
    /* Room for argc entries, or NULL: positional arguments are errors,
     * and "--" is an unknown flag (as dserver and dtailhealth have always
     * said). Entries are borrowed from argv. */
    char **positional;
    int first_ends_flags;         /* Go's rule: the first positional ends flags */
    int n_positional;             /* out */
    flagparse_failure_t failure;  /* out, when flagparse fails */
} flagparse_t;

/* Go's flag values: booleans true/false, 1/0, t/f (any case); integers
 * >= 0. 0, or -1 when the text is no such value. */
int flagparse_bool(const char *v, int *out);
int flagparse_int(const char *v, long long *out);

/* Fills out's fields from argv[1..argc-1]. Returns 0, or -1 with an
 * ERR_USAGE message in e and p->failure set. */
int flagparse(flagparse_t *p, void *out, int argc, char **argv, err_t *e);
/* Prints a line for each flag p sees: "--name ARG" padded to width, then
 * the text (the clients); or, with arg_width > 0, "--name" padded to width
 * and ARG in a column of its own, arg_width wide (dserver, dtailhealth).
 * A one-letter flag is shown as -x. */
void flagparse_help(const flagparse_t *p, int width, int arg_width);

/* The checks of -port and -logLevel every binary makes, worded alike:
 * a port above 65535; a log level log_level_parse does not know (NULL:
 * not given, accepted; *lv, if lv is not NULL, is set only when valid). */
int flagparse_check_port(long long port, err_t *e);
int flagparse_check_log_level(const char *level, enum log_level *lv, err_t *e);

#endif
