/* flagparse.c: the table-driven flag parser. */
#include "base/flagparse.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static const flagparse_def_t *find(const flagparse_def_t *defs, size_t n, const char *name,
                                   size_t len)
{
    for (size_t k = 0; k < n; k++)
        if (strlen(defs[k].name) == len && strncmp(defs[k].name, name, len) == 0)
            return &defs[k];
    if (len == 1 && name[0] == 'h')
        return find(defs, n, "help", 4);
    return NULL;
}

int flagparse_bool(const char *v, int *out)
{
    if (!strcasecmp(v, "true") || !strcmp(v, "1") || !strcasecmp(v, "t")) {
        *out = 1;
        return 0;
    }
    if (!strcasecmp(v, "false") || !strcmp(v, "0") || !strcasecmp(v, "f")) {
        *out = 0;
        return 0;
    }
    return -1;
}

int flagparse_int(const char *v, long long *out)
{
    char *end;
    long long n = strtoll(v, &end, 10);
    if (!*v || *end || n < 0)
        return -1;
    *out = n;
    return 0;
}

int flagparse(const flagparse_def_t *defs, size_t n_defs, void *out, int argc, char **argv,
              const char *tool, err_t *e)
{
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i];
        if (arg[0] != '-' || arg[1] == '\0')
            return err_set(e, ERR_USAGE, "unexpected argument %s (%s takes only flags; see --help)",
                           arg, tool);
        const char *name = arg + (arg[1] == '-' ? 2 : 1);
        const char *eq = strchr(name, '=');
        const flagparse_def_t *d = find(defs, n_defs, name, eq ? (size_t)(eq - name) : strlen(name));
        if (!d)
            return err_set(e, ERR_USAGE, "flag provided but not defined: %s (see %s --help)", arg, tool);
        char *field = (char *)out + d->offset;
        if (d->type == FP_BOOL) {
            const char *v = eq ? eq + 1 : "true";
            if (flagparse_bool(v, (int *)field) < 0)
                return err_set(e, ERR_USAGE, "invalid boolean value \"%s\" for flag -%s", v, d->name);
            continue;
        }
        const char *val = eq ? eq + 1 : i + 1 < argc ? argv[++i] : NULL;
        if (!val)
            return err_set(e, ERR_USAGE, "flag needs an argument: -%s", d->name);
        if (d->type == FP_STRING) {
            *(const char **)field = val;
            continue;
        }
        if (flagparse_int(val, (long long *)field) < 0)
            return err_set(e, ERR_USAGE, "invalid value \"%s\" for flag -%s: not a non-negative integer",
                           val, d->name);
    }
    return 0;
}

void flagparse_help(const flagparse_def_t *defs, size_t n_defs)
{
    for (size_t k = 0; k < n_defs; k++) {
        char left[64];
        snprintf(left, sizeof left, "--%s", defs[k].name);
        printf("  %-16s %s\n", left, defs[k].help);
    }
}
