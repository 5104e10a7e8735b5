/* journal_api.h: libsystemd's sd-journal, loaded when a journal target is
 * first read (base/dynlib.h): a run without one does not pay for loading
 * libsystemd and what it pulls in. The headers are libsystemd-dev's, the
 * soname that of the library pkg-config found.
 *
 * Calls go through the table, by the library's own names:
 * journal_api.sd_journal_next(j). */
#ifndef DTAIL_EXEC_JOURNAL_API_H
#define DTAIL_EXEC_JOURNAL_API_H

#include <systemd/sd-journal.h>   /* includes syslog.h: its LOG_* are not base/log.h's */

#include "base/dynlib.h"
#include "base/err.h"

#define JOURNAL_API_FUNCS(X)                                                                \
    X(sd_journal_open) X(sd_journal_open_directory) X(sd_journal_close)                     \
    X(sd_journal_add_match) X(sd_journal_add_disjunction) X(sd_journal_add_conjunction)    \
    X(sd_journal_next) X(sd_journal_previous) X(sd_journal_seek_tail)                       \
    X(sd_journal_seek_head) X(sd_journal_restart_data) X(sd_journal_enumerate_data)         \
    X(sd_journal_get_realtime_usec) X(sd_journal_set_data_threshold) X(sd_journal_get_fd)   \
    X(sd_journal_process) X(sd_journal_query_unique) X(sd_journal_enumerate_unique)         \
    X(sd_journal_restart_unique)

typedef struct journal_api {
    JOURNAL_API_FUNCS(DYNLIB_SLOT)
} journal_api_t;

extern journal_api_t journal_api;

/* Loads libsystemd and fills the table, once for the process: 0, or -1
 * with e (if not NULL) naming the library and what went wrong. */
int journal_api_load(err_t *e);

#endif
