/* lazy_lib.c: dlopen of libssh and libedit on first use (see lazy_lib.h). */
#include "client/tools/lazy_lib.h"

ssh_api_t ssh_api;
edit_api_t edit_api;

#define SSH_SYM(f) DYNLIB_SYM(ssh_api_t, f)
#define EDIT_SYM(f) DYNLIB_SYM(edit_api_t, f)
static const dynlib_sym_t ssh_syms[] = {SSH_API_FUNCS(SSH_SYM)};
static const dynlib_sym_t edit_syms[] = {EDIT_API_FUNCS(EDIT_SYM)};

static dynlib_t ssh_lib = DYNLIB_INIT(DTAIL_LIBSSH_SONAME, "connecting to servers", ssh_syms,
                                      &ssh_api);
static dynlib_t edit_lib = DYNLIB_INIT(DTAIL_LIBEDIT_SONAME, "the interactive query", edit_syms,
                                       &edit_api);

int ssh_api_load(err_t *e)
{
    return dynlib_load(&ssh_lib, e);
}

int edit_api_load(err_t *e)
{
    return dynlib_load(&edit_lib, e);
}
