/* logtime.h: the timestamps log lines write, read as instants.
 *
 * One parser for every form the engine understands (docs/log-formats.md,
 * "Time"): DTail's MMDD-HHMMSS and YYYYMMDD-HHMMSS, ISO 8601 / RFC 3339
 * (zones, fractions), epoch seconds, milliseconds, microseconds and
 * nanoseconds, the access logs' time_local (10/Oct/2000:13:55:36 -0700)
 * and RFC 3164's "Oct 11 22:14:15" (no year: inferred). Two writers: the
 * instant in UTC as ISO 8601 (what $time holds in the formats that
 * carry a timestamp) and the start of a bucket() in the layout of its
 * input. No allocation, no syscall, no locale: safe per line. */
#ifndef DTAIL_EXEC_EXTRACT_LOGTIME_H
#define DTAIL_EXEC_EXTRACT_LOGTIME_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define LOGTIME_MAX 40   /* bytes any writer below writes, at most */

struct logzone;          /* exec/extract/logzone.h */

enum logtime_layout {
    LOGTIME_DTAIL_SHORT = 0, /* MMDD-HHMMSS: no year (2000 for arithmetic,
                                so 0229 exists) and no zone */
    LOGTIME_DTAIL_LONG,      /* YYYYMMDD-HHMMSS, no zone */
    LOGTIME_ISO,             /* YYYY-MM-DD[T ]HH:MM[:SS[.f]][zone] */
    LOGTIME_EPOCH,           /* seconds (9-11 digits, a fraction allowed),
                                ms (12-14), us (15-17), ns (18-19) */
    LOGTIME_CLF,             /* DD/Mon/YYYY:HH:MM:SS +HHMM */
    LOGTIME_BSD,             /* Mon DD HH:MM:SS, year inferred */
};

enum logtime_zone {
    LOGTIME_ZONE_NONE = 0,   /* none written: the context's offset applies */
    LOGTIME_ZONE_Z,          /* Z (UTC) */
    LOGTIME_ZONE_OFFSET,     /* +HH:MM, +HHMM or +HH */
};

typedef struct logtime {
    int64_t local;           /* seconds since 1970-01-01T00:00 of the wall
                                clock as written */
    int32_t off;             /* seconds east of UTC: as written, or the
                                context's for a time without zone (epoch: 0) */
    uint32_t nsec;           /* the fraction, in nanoseconds */
    uint8_t frac_digits;     /* its digits as written (0-9) */
    uint8_t layout;          /* enum logtime_layout */
    uint8_t zone;            /* enum logtime_zone */
    char sep;                /* ISO: the byte between date and time ('T'
                                or ' ') */
    const struct logzone *out; /* the zone the writers write t in (the
                                context's), NULL: as below */
} logtime_t;

/* What a timestamp does not say. */
typedef struct logtime_ctx {
    int64_t now;             /* the instant (seconds, UTC) a year is
                                inferred against: a BSD time takes the year
                                of now, or the one before when that would
                                put it more than 7 days after now */
    int32_t off;             /* seconds east of UTC of a time without zone */
    const char *layout;      /* a strptime-style layout (`timeformat`):
                                when set, logtime_parse tries it before
                                the forms above; NULL: those only */
    const struct logzone *out; /* `--timezone`: the zone times are written
                                in (logtime_write_*); NULL: UTC for the
                                instant, the written zone for buckets */
} logtime_ctx_t;

/* The context of this host now: the clock and its zone's offset. A
 * syscall and the zone database: once per run, never per line. */
logtime_ctx_t logtime_ctx_local(void);

/* Reads [p, p+n) as a timestamp into *t: by c->layout when set and it
 * fits (logtime_parse_layout), else as one of the forms above. False when it is
 * none of them, or a field is out of range (month 13, day 31 of April,
 * hour 24, minute 60, second 61, offset past 23:59; second 60 counts as
 * the next minute's 00). */
bool logtime_parse(const char *p, size_t n, const logtime_ctx_t *c, logtime_t *t);

/* Whether [p, p+n) is already what logtime_write_utc writes for it:
 * YYYY-MM-DDTHH:MM:SS, then '.' and 1-9 digits or nothing, then Z, with
 * every field in range (second 60 is not: it reads as the next minute).
 * Then $time is the text itself, neither parsed nor written. */
bool logtime_is_utc_iso(const char *p, size_t n);

/* Reads [p, p+n) by the strptime-style layout (NUL-terminated), which
 * must take all of it: %Y %m %d %e %H %I %p %M %S %f (a fraction's
 * digits) %z (Z, +HH:MM, +HHMM, +HH) %Z (a zone name: UTC and GMT are
 * UTC, others ignored) %b %h %B (month names, any case) %a %A (day names,
 * skipped) %y (69-99: 19xx, else 20xx) %j %s (epoch seconds) %T %D %F %R,
 * %n %t and a space (any run of spaces, also none) and %% ; any other byte
 * stands for itself. A layout without a year infers it as RFC 3164's;
 * without month or day they are 1. The time's layout is LOGTIME_ISO (an
 * epoch's LOGTIME_EPOCH): bucket() writes it as ISO 8601. */
bool logtime_parse_layout(const char *p, size_t n, const char *layout, const logtime_ctx_t *c,
                          logtime_t *t);

/* The instant t as ISO 8601 into out (LOGTIME_MAX bytes):
 * YYYY-MM-DDTHH:MM:SS, the fraction with the digits it was written with,
 * then Z, in UTC; with an output zone (t->out) its wall clock and offset
 * (+HH:MM; Z for UTC). Returns the length, 0 when the year is outside
 * 0000-9999. */
size_t logtime_write_utc(const logtime_t *t, char *out);

/* The start of t's bucket of w seconds (w > 0) into out (LOGTIME_MAX
 * bytes), in t's layout: DTail's two as written; every other form as ISO
 * 8601 without fraction, aligned on and followed by the zone it was
 * written with (Z, +HH:MM, or none), an epoch time as UTC with Z; with an
 * output zone (t->out), aligned on that zone's wall clock at the time's
 * offset and followed by it (Z for UTC). Returns the length, 0 when the
 * year is outside 0000-9999. */
size_t logtime_write_bucket(const logtime_t *t, int64_t w, char *out);

/* Days since 1970-01-01 of a proleptic Gregorian date (m 1-12). */
int64_t logtime_days_from_civil(int64_t y, unsigned m, unsigned d);

#endif
