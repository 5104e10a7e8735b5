/* lazy_lib.c: dlopen of libssh and libedit on first use (see lazy_lib.h). */
#include "client/tools/lazy_lib.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stddef.h>
#include <string.h>

ssh_api_t ssh_api;
edit_api_t edit_api;

typedef struct lazy_sym {
    const char *name;   /* the library's symbol */
    size_t off;         /* its slot in the table */
} lazy_sym_t;

typedef struct lazy_lib {
    const char *soname;         /* what dlopen is asked for */
    const char *purpose;        /* what it is needed for, for the error */
    const lazy_sym_t *syms;     /* the table's slots */
    size_t n_syms;              /* their count */
    void *table;                /* ssh_api or edit_api */
    int rc;                     /* the load's outcome */
    err_t err;                  /* its error when rc < 0 */
} lazy_lib_t;

#define LAZY_LIB_SYM(type, f) {#f, offsetof(type, f)},
#define SSH_SYM(f) LAZY_LIB_SYM(ssh_api_t, f)
#define EDIT_SYM(f) LAZY_LIB_SYM(edit_api_t, f)
static const lazy_sym_t ssh_syms[] = {SSH_API_FUNCS(SSH_SYM)};
static const lazy_sym_t edit_syms[] = {EDIT_API_FUNCS(EDIT_SYM)};

static lazy_lib_t ssh_lib = {DTAIL_LIBSSH_SONAME, "connecting to servers", ssh_syms,
                             sizeof ssh_syms / sizeof ssh_syms[0], &ssh_api, -1, {0}};
static lazy_lib_t edit_lib = {DTAIL_LIBEDIT_SONAME, "the interactive query", edit_syms,
                              sizeof edit_syms / sizeof edit_syms[0], &edit_api, -1, {0}};

static void lazy_lib_open(lazy_lib_t *l)
{
    void *h = dlopen(l->soname, RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        const char *why = dlerror();
        l->rc = err_set(&l->err, ERR_IO, "cannot load %s, needed for %s: %s", l->soname,
                        l->purpose, why ? why : "unknown error");
        return;
    }
    for (size_t i = 0; i < l->n_syms; i++) {
        void *sym = dlsym(h, l->syms[i].name);
        if (!sym) {
            l->rc = err_set(&l->err, ERR_IO, "%s, needed for %s, has no %s", l->soname,
                            l->purpose, l->syms[i].name);
            return;     /* h stays open: the process may hold pointers into it */
        }
        memcpy((char *)l->table + l->syms[i].off, &sym, sizeof sym);
    }
    l->rc = 0;
}

static void ssh_lib_open(void)
{
    lazy_lib_open(&ssh_lib);
}

static void edit_lib_open(void)
{
    lazy_lib_open(&edit_lib);
}

static int lazy_lib_result(const lazy_lib_t *l, err_t *e)
{
    if (l->rc < 0 && e)
        *e = l->err;
    return l->rc;
}

int ssh_api_load(err_t *e)
{
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, ssh_lib_open);
    return lazy_lib_result(&ssh_lib, e);
}

int edit_api_load(err_t *e)
{
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, edit_lib_open);
    return lazy_lib_result(&edit_lib, e);
}
