/* flagparse.h: Go flag syntax over a table of flags, for the binaries
 * whose flags are their own (dserver, dtailhealth): -name or --name, the
 * value as the next argument or after '=', booleans without a value (or
 * =true/=false). No positional arguments. Unknown flags and bad values are
 * ERR_USAGE errors naming the flag. */
#ifndef DTAIL_BASE_FLAGPARSE_H
#define DTAIL_BASE_FLAGPARSE_H

#include <stddef.h>

#include "base/err.h"

enum flagparse_type { FP_BOOL, FP_INT, FP_STRING };

typedef struct flagparse_def {
    const char *name;             /* without dashes */
    enum flagparse_type type;     /* int: long long >= 0; bool: int; string: const char * */
    size_t offset;                /* field in the caller's struct */
    const char *help;             /* "ARG  text" for the help line */
} flagparse_def_t;

/* Go's flag values, shared with the clients' parser (client/tools/cli.c):
 * booleans true/false, 1/0, t/f (any case); integers >= 0. 0, or -1 when
 * the text is no such value. */
int flagparse_bool(const char *v, int *out);
int flagparse_int(const char *v, long long *out);

/* Fills out's fields. "-h" means the flag named "help" if the table has it. */
int flagparse(const flagparse_def_t *defs, size_t n_defs, void *out, int argc, char **argv,
              const char *tool, err_t *e);
/* Prints "  --name  help" lines. */
void flagparse_help(const flagparse_def_t *defs, size_t n_defs);

#endif
