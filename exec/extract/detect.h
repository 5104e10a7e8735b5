/* detect.h: which log format the first lines of a file are written in.
 *
 * dmap and its REPL, given a query with neither `logformat` nor `from`,
 * look at the first lines of each input and read them with the format
 * this picks (docs/log-formats.md, "Detection"). The decision reads at
 * most DETECT_LINES non-empty whole lines of a sample (the first
 * DETECT_SAMPLE bytes of the file) and is deliberately strict: a format
 * is chosen only when every one of those lines is of it (CSV: the same
 * number of fields on each, under a header of names), else "generic", the
 * meaning of such a query without detection. */
#ifndef DTAIL_EXEC_EXTRACT_DETECT_H
#define DTAIL_EXEC_EXTRACT_DETECT_H

#include <stddef.h>

#define DETECT_LINES 8                /* non-empty lines looked at */
#define DETECT_SAMPLE (64 * 1024)     /* bytes of a file read for them */

/* The format of sample[0..len): "default" (DTail's own lines), "json",
 * "logfmt", "nginx" (combined or common), "syslog" (RFC 3164 or 5424),
 * "csv", or "generic" (plain text, too few lines, or lines of different
 * formats). A final line without '\n' counts only when it is the only
 * one. */
const char *extract_detect(const char *sample, size_t len);

#endif
