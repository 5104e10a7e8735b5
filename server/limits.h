/* limits.h: server-wide limits shared by every session: at most
 * MaxConcurrentCats files read by cat/grep/map requests and at most
 * MaxConcurrentTails followed at once. A read beyond the limit waits its
 * turn (DTail queues them too) rather than failing. Turns are fair between
 * users: a freed slot goes to the waiter whose user (owner) holds the
 * fewest slots of that kind, the longest waiting among equals, so a user
 * with many requests cannot keep the others out. */
#ifndef DTAIL_SERVER_LIMITS_H
#define DTAIL_SERVER_LIMITS_H

#include "base/config.h"
#include "base/err.h"

typedef struct server_limits server_limits_t;

server_limits_t *server_limits_create(const config_t *cfg, err_t *e);
void server_limits_free(server_limits_t *l);

enum limit_kind { LIMIT_CAT = 0, LIMIT_TAIL = 1 };

/* Waits for a slot for owner (the SSH user); returns 0 with the slot
 * taken, -1 when *stopping became non-zero while waiting, or -2 when
 * clock_now_ms() reached deadline_ms (0: none) first; no slot is taken
 * then. stopping may be NULL. */
int server_limits_acquire(server_limits_t *l, enum limit_kind k, const char *owner,
                          const volatile int *stopping, long long deadline_ms);
/* Gives back a slot that owner took. */
void server_limits_release(server_limits_t *l, enum limit_kind k, const char *owner);

/* How one kind stands now, for the health check. */
typedef struct limit_state {
    int used, max;            /* slots taken, slots in all */
    int waiting;              /* requests waiting for one */
    long long last_release_ms; /* clock_now_ms() of the last release (0: none) */
} limit_state_t;
void server_limits_state(server_limits_t *l, enum limit_kind k, limit_state_t *st);

#endif
