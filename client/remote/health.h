/* health.h: dtailhealth's check of one dserver (shared reference
 * §1.6, §5.8): log in as DTail's health user DTAIL-HEALTH (password
 * DTAIL-HEALTH; any host key is trusted and none recorded, as DTail does),
 * send HELLO and a HEALTH request, and read to END. The server answers with
 * a MESSAGE "OK"; as DTail, the last '|'-separated field of a message
 * decides. */
#ifndef DTAIL_CLIENT_HEALTH_CHECK_H
#define DTAIL_CLIENT_HEALTH_CHECK_H

#include "base/err.h"

enum health_status { HEALTH_OK = 0, HEALTH_WARNING = 1, HEALTH_CRITICAL = 2 };

/* HEALTH_OK when the server answered OK; HEALTH_WARNING or HEALTH_CRITICAL
 * when it said it is at a limit or wedged (server/health.h), with its
 * words in e; else HEALTH_CRITICAL with the reason in e (for the log). */
enum health_status health_check_run(const char *host, int port, int connect_timeout_ms, err_t *e);

#endif
