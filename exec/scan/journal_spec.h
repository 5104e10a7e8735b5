/* journal_spec.h: systemd journal targets in a file list, DTail's
 * `journal:<unit>`: which entries are ones, whether one is well formed,
 * and the unit name it stands for, as `journalctl -u <unit>` reads it.
 *
 * No libsystemd here (exec/scan/journal.h reads the journal): this is
 * the text of the target, checked wherever a file list is expanded. */
#ifndef DTAIL_EXEC_JOURNAL_SPEC_H
#define DTAIL_EXEC_JOURNAL_SPEC_H

#include <stddef.h>

#include "base/err.h"

#define JOURNAL_SPEC_PREFIX "journal:"
#define JOURNAL_SPEC_PREFIX_LEN 8
/* The longest unit name journalctl takes (systemd's UNIT_NAME_MAX - 1). */
#define JOURNAL_UNIT_MAX 255
/* Room for a unit as journal_unit_mangle writes it: every byte escaped
 * (\xNN), ".service" and the NUL. */
#define JOURNAL_UNIT_CAP (4 * JOURNAL_UNIT_MAX + 16)

/* Whether the list entry s (len bytes) is a journal target: it starts
 * with "journal:". Such an entry is never a path. */
int journal_spec_is(const char *s, size_t len);

/* Whether the comma list has a journal target (a request that needs a
 * server with the journal capability). */
int journal_spec_in_list(const char *list);

/* Checks the journal target spec (NUL-terminated, "journal:..."), as
 * DTail does: the unit is not empty, does not start with '-', and has no
 * whitespace or control character (ASCII, and the Unicode spaces and C1
 * controls in UTF-8). 0, or -1 with e (ERR_INPUT) naming the target and
 * what is wrong with it. */
int journal_spec_check(const char *spec, err_t *e);

/* The unit `journalctl -u unit` looks for, into out (JOURNAL_UNIT_CAP
 * bytes): a valid unit name or unit glob as it is; otherwise '/' becomes
 * '-' and every byte a unit name cannot hold becomes \xNN, and a name
 * that is not a glob and has no unit type suffix gets ".service"
 * (systemd's unit_name_mangle with globs allowed). Returns 1 when the
 * result is a glob (it has '*', '?' or '['), 0 when it is a name, -1
 * when unit is longer than JOURNAL_UNIT_MAX. */
int journal_unit_mangle(const char *unit, char *out);

#endif
