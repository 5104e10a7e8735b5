/* err.c: filling and mapping err_t values. */
#include "base/err.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

void err_clear(err_t *e)
{
    e->code = ERR_NONE;
    e->offset = -1;
    e->msg[0] = '\0';
}

static void err_vset(err_t *e, enum err_code code, long offset, const char *fmt, va_list ap)
{
    e->code = code;
    e->offset = offset;
    vsnprintf(e->msg, sizeof e->msg, fmt, ap);
}

int err_set(err_t *e, enum err_code code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    err_vset(e, code, -1, fmt, ap);
    va_end(ap);
    return -1;
}

int err_set_at(err_t *e, enum err_code code, long offset, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    err_vset(e, code, offset, fmt, ap);
    va_end(ap);
    return -1;
}

int err_exit_status(enum err_code code)
{
    switch (code) {
    case ERR_NONE: return 0;
    case ERR_USAGE: case ERR_PATTERN: case ERR_QUERY: case ERR_CONFIG: return 2;
    default: return 1;
    }
}
