/* authlog.h: authentication failures in the log, one line per address and
 * interval, not one per attempt (100 000 key attempts must not write
 * megabytes of log). The first failure of an address in an interval is
 * logged at once with its reason; the rest of that interval are counted
 * and logged as one line when it ends. */
#ifndef DTAIL_SERVER_AUTHLOG_H
#define DTAIL_SERVER_AUTHLOG_H

#define AUTHLOG_INTERVAL_MS 60000   /* one summary per address per minute */

typedef struct authlog authlog_t;

authlog_t *authlog_new(void);
void authlog_free(authlog_t *a);
/* One failed attempt from source (user and reason as the client gave them;
 * the log escapes them). */
void authlog_failure(authlog_t *a, const char *source, const char *user, const char *reason);
/* Logs the summaries of intervals that ended (all of them with all). */
void authlog_flush(authlog_t *a, long long now_ms, int all);

#endif
