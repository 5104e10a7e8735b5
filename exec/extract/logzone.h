/* logzone.h: the zone dmap writes times in (`--timezone`): a fixed offset
 * or an IANA zone of the system's tz database, read from its TZif file
 * once (no libc time functions, no TZ variable: a server formats for
 * each client in its client's zone, in threads). Per line only a binary
 * search over the zone's transitions. */
#ifndef DTAIL_EXEC_EXTRACT_LOGZONE_H
#define DTAIL_EXEC_EXTRACT_LOGZONE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/err.h"

#define LOGZONE_NAME_MAX 64     /* bytes of a zone's spec */
#define LOGZONE_TRANS_MAX 2048  /* transitions kept (Debian's fat files:
                                   ~300 for a zone with DST to 2037) */

typedef struct logzone {
    char spec[LOGZONE_NAME_MAX];  /* as given: "UTC", "+02:00", "Europe/Berlin" */
    bool utc;                     /* UTC itself: times end in Z */
    int32_t fixed;                /* a fixed offset (seconds east), when n == 0 */
    size_t n;                     /* transitions */
    int64_t at[LOGZONE_TRANS_MAX];  /* their instants, ascending */
    int32_t off[LOGZONE_TRANS_MAX]; /* the offset from at[k] on */
    int32_t before;               /* the offset before at[0] */
} logzone_t;

/* Reads spec into *z: "UTC", "Z", "GMT", an offset "+02:00", "-0530",
 * "+02", or an IANA name ("Europe/Berlin", "America/New_York"), read from
 * $TZDIR or /usr/share/zoneinfo. Fails with ERR_USAGE naming the zone
 * when it is none of these. */
int logzone_load(logzone_t *z, const char *spec, err_t *e);

/* The spec of this host's zone, for the client to send (its TZ variable,
 * else the zone /etc/localtime links to, else its offset now as
 * "+HH:MM"); "UTC" for UTC. */
void logzone_local_spec(char *out, size_t cap);

/* The offset (seconds east) of zone z at instant utc (seconds since 1970). */
int32_t logzone_offset(const logzone_t *z, int64_t utc);

#endif
