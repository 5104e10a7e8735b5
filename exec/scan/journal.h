/* journal.h: a systemd journal target (`journal:<unit>`) as an input: the
 * lines `journalctl -u <unit>` prints (exec/scan/journal_fmt.h), read
 * through libsystemd's sd-journal rather than by running journalctl, so
 * the cat/grep and mapreduce plans read them as they read a file and a
 * follow run follows them as it follows one.
 *
 * Which entries: those journalctl -u picks for the unit (its own,
 * coredumps of it, systemd's and other authorised daemons' messages about
 * it, a slice's units), of the unit as journalctl mangles the name
 * (journal_spec.h: "sshd" is "sshd.service"). A unit glob ("journal:
 * app-*.service") stands for every unit the journal has entries of whose
 * name it matches when the journal is opened; a glob that matches none is
 * an error, as journalctl's. A unit without entries gives no line (no
 * "-- No entries --").
 *
 * Which journal: the files in the journal directory (journal_set_dir:
 * Common.JournalDirectory, as `journalctl -D DIR`), else the machine's,
 * as journalctl without -D opens it (the system journal, and the user
 * journals the process may read), in either case as the process's own
 * user may read them.
 *
 * The entries of all the files are read in time order (sd-journal
 * interleaves them). A cat reads what is there and ends; a follow starts
 * at the end, as `journalctl -f -n 0`, and returns INPUT_AGAIN when it has
 * read everything, new entries and new files in the directory being seen
 * at the next read. Memory: the largest entry seen, once. */
#ifndef DTAIL_EXEC_JOURNAL_H
#define DTAIL_EXEC_JOURNAL_H

#include "base/err.h"
#include "exec/scan/input.h"

/* The journal directory every journal target is read from: dir (copied;
 * NULL or "": the machine's journal). Set once at start, from the config,
 * before any journal is opened. */
void journal_set_dir(const char *dir);

/* Opens the journal target spec ("journal:<unit>"; its name for
 * messages, borrowed for the input's life); follow: start at the end and
 * wait for new entries. An invalid target, a directory that cannot be
 * opened, a glob that matches no unit, or a libsystemd that cannot be
 * loaded is an error naming the target (and the directory). */
input_t *journal_open(const char *spec, int follow, err_t *e);

/* Whether journal targets can be read here (libsystemd loads): 1, or 0
 * with e (if not NULL) saying why not. dserver's capability journal-v1. */
int journal_available(err_t *e);

#endif
