/* dynlib.h: a shared library loaded when first needed, its functions
 * called through a table of pointers filled from dlsym.
 *
 * For libraries most runs do not use: linked at start, a library and
 * what it pulls in cost every run its loading and symbol binding
 * (client/tools/lazy_lib.h: libssh and libedit for the clients;
 * exec/scan/journal_api.h: libsystemd for journal targets). The headers
 * still come from pkg-config, and the soname is that of the library
 * pkg-config found (dtail_soname in CMakeLists.txt), so the table's types
 * are the library's own (__typeof__ of each function).
 *
 *     #define FOO_FUNCS(X) X(foo_open) X(foo_close)
 *     typedef struct foo_api { FOO_FUNCS(DYNLIB_SLOT) } foo_api_t;
 *     foo_api_t foo_api;
 *     static const dynlib_sym_t syms[] = {FOO_FUNCS(FOO_SYM)};  // DYNLIB_SYM
 *     static dynlib_t lib = DYNLIB_INIT("libfoo.so.1", "foo files", syms, &foo_api);
 *     ... dynlib_load(&lib, e) ... foo_api.foo_open(...) */
#ifndef DTAIL_BASE_DYNLIB_H
#define DTAIL_BASE_DYNLIB_H

#include <stddef.h>

#include "base/err.h"

/* A slot of a table: the function's pointer, with its own type. */
#define DYNLIB_SLOT(f) __typeof__(f) *f;

typedef struct dynlib_sym {
    const char *name;   /* the library's symbol */
    size_t off;         /* its slot in the table */
} dynlib_sym_t;

/* One entry of a symbol list: DYNLIB_SYM(foo_api_t, foo_open). */
#define DYNLIB_SYM(type, f) {#f, offsetof(type, f)},

typedef struct dynlib {
    const char *soname;         /* what dlopen is asked for */
    const char *purpose;        /* what it is needed for, for the error */
    const dynlib_sym_t *syms;   /* the table's slots */
    size_t n_syms;              /* their count */
    void *table;                /* filled from dlsym */
    int tried;                  /* the load happened (under dynlib.c's lock) */
    int rc;                     /* its outcome */
    err_t err;                  /* its error when rc < 0 */
} dynlib_t;

#define DYNLIB_INIT(soname, purpose, syms, table) \
    {(soname), (purpose), (syms), sizeof(syms) / sizeof((syms)[0]), (table), 0, -1, {0}}

/* Loads l and fills its table, once for the process (any thread may call
 * it, any number of times): 0, or -1 with e (if not NULL) naming the
 * library, what it is needed for and what went wrong; later calls give
 * the same answer. */
int dynlib_load(dynlib_t *l, err_t *e);

#endif
