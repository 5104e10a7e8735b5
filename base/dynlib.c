/* dynlib.c: dlopen on first use (see dynlib.h). */
#include "base/dynlib.h"

#include <dlfcn.h>
#include <pthread.h>
#include <string.h>

/* Loads are rare (a connection, a journal opened): one lock for all. */
static pthread_mutex_t load_mu = PTHREAD_MUTEX_INITIALIZER;

static void dynlib_open(dynlib_t *l)
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

int dynlib_load(dynlib_t *l, err_t *e)
{
    pthread_mutex_lock(&load_mu);
    if (!l->tried) {
        dynlib_open(l);
        l->tried = 1;
    }
    int rc = l->rc;
    if (rc < 0 && e)
        *e = l->err;
    pthread_mutex_unlock(&load_mu);
    return rc;
}
