/* journal_fmt.h: a journal entry as `journalctl` prints it in its
 * default output, `-o short` (systemd 252's output_short, with --full,
 * which is journalctl's default, and no colours), byte for byte:
 *
 *   Mon DD HH:MM:SS host ident[pid]: message
 *
 *  - the time: _SOURCE_REALTIME_TIMESTAMP when it is a valid number of
 *    microseconds, else the entry's own, in the local time zone (TZ), the
 *    month in English whatever the locale (journalctl's follows LC_TIME);
 *  - host: _HOSTNAME; ident: SYSLOG_IDENTIFIER, else _COMM, else
 *    "unknown"; pid: _PID, else SYSLOG_PID. A field of 300 bytes or more,
 *    or one that is not printable UTF-8, is left out;
 *  - the message: tabs become 8 spaces, ANSI colour (ESC [ ... m) and
 *    operating system (ESC ] ... BEL) sequences are dropped, and so are
 *    carriage returns before a newline or at the end. A message that is
 *    then not printable UTF-8 (a control character, invalid UTF-8) is
 *    shown as "[<size> blob data]". A message of several lines is shown
 *    as several lines, each after the first indented to the message's
 *    column;
 *  - an entry without MESSAGE is not shown.
 * No allocation per entry once the buffers have grown to the largest
 * entry seen. */
#ifndef DTAIL_EXEC_JOURNAL_FMT_H
#define DTAIL_EXEC_JOURNAL_FMT_H

#include <stddef.h>
#include <stdint.h>

/* A field's value (without "NAME="); p NULL: the entry has no such field. */
typedef struct journal_text {
    const char *p;
    size_t n;
} journal_text_t;

typedef struct journal_entry {
    uint64_t realtime_us;            /* the entry's __REALTIME_TIMESTAMP */
    journal_text_t source_realtime;  /* _SOURCE_REALTIME_TIMESTAMP */
    journal_text_t hostname;         /* _HOSTNAME */
    journal_text_t identifier;       /* SYSLOG_IDENTIFIER */
    journal_text_t comm;             /* _COMM */
    journal_text_t pid;              /* _PID */
    journal_text_t syslog_pid;       /* SYSLOG_PID */
    journal_text_t message;          /* MESSAGE */
} journal_entry_t;

/* Where entries are formatted to: out holds whole lines, each ending in
 * '\n'; the caller takes them and empties it (len = 0). */
typedef struct journal_fmt {
    char *out;                       /* the formatted lines */
    size_t len;                      /* bytes in out */
    size_t cap;                      /* allocated */
    char *msg;                       /* the message with tabs and escapes done */
    size_t msg_cap;                  /* allocated */
    long long time_s;                /* the second time_text shows (-1: none) */
    char time_text[32];              /* "Mon DD HH:MM:SS" of time_s */
    size_t time_len;                 /* its length */
} journal_fmt_t;

void journal_fmt_init(journal_fmt_t *f);
void journal_fmt_free(journal_fmt_t *f);

/* Appends the lines of entry en to f->out: 0, or -1 when out of memory
 * (f->out is then as it was). */
int journal_fmt_short(journal_fmt_t *f, const journal_entry_t *en);

/* Whether p[0..n) is printable UTF-8 as systemd's utf8_is_printable
 * decides (tabs and newlines are). Exposed for tests. */
int journal_utf8_printable(const char *p, size_t n);

#endif
