/* targets.h: turns DTail file specs (comma lists, globs, plain paths, "-")
 * into the ordered list of inputs a plan reads, each with its source id.
 *
 * The source id is what output shows for a file: for a glob, the path
 * components matched by the components that contain '*', joined by '/';
 * otherwise the base name (DTail's globID). */
#ifndef DTAIL_EXEC_TARGETS_H
#define DTAIL_EXEC_TARGETS_H

#include <stddef.h>

#include "base/err.h"

typedef struct target {
    char *path;       /* path to open; "-" for stdin */
    char *source_id;  /* shown in REMOTE lines */
} target_t;

typedef struct target_list {
    target_t *items;  /* in the order given; glob matches sorted by name */
    size_t n;         /* items used */
    size_t cap;       /* items allocated */
} target_list_t;

void target_list_init(target_list_t *tl);
void target_list_free(target_list_t *tl);
/* Keeps the first n targets (no-op when there are not more). */
void target_list_truncate(target_list_t *tl, size_t n);
/* The next entry of a comma-separated spec at *pp: sets *entry and *len to
 * it, trimmed of spaces and tabs (empty entries are skipped), advances *pp
 * and returns 1; 0 when none is left. */
int target_spec_next(const char **pp, const char **entry, size_t *len);
/* Expands one comma-separated spec and appends the results. A glob that
 * matches nothing is reported through on_error (with the pattern) and the
 * rest continues; returns -1 only on allocation failure. A journal target
 * (`journal:<unit>`, exec/scan/journal_spec.h) is one target, its path
 * and source id the entry as given; an invalid one is reported through
 * on_error and skipped. */
int target_list_add_spec(target_list_t *tl, const char *spec,
                         void (*on_error)(void *ctx, const err_t *e), void *ctx,
                         err_t *e);
/* Source id of path matched by glob pattern (exposed for tests). The caller
 * frees the result. */
char *target_source_id(const char *pattern, const char *path);

#endif
