/* journal_api.c: dlopen of libsystemd on first use (see journal_api.h). */
#include "exec/scan/journal_api.h"

journal_api_t journal_api;

#define JOURNAL_SYM(f) DYNLIB_SYM(journal_api_t, f)
static const dynlib_sym_t journal_syms[] = {JOURNAL_API_FUNCS(JOURNAL_SYM)};
static dynlib_t journal_lib = DYNLIB_INIT(DTAIL_LIBSYSTEMD_SONAME, "journal targets",
                                          journal_syms, &journal_api);

int journal_api_load(err_t *e)
{
    return dynlib_load(&journal_lib, e);
}
