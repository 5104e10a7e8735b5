/* counters.h: process-wide dserver counters, shared by the SSH layer (which
 * counts connections) and the sessions (which count requests and what they
 * serve). dserver logs them as MAPREDUCE:STATS lines (§5.9), so dmap can
 * query dserver's own log. Lock-free: sessions add from many threads. */
#ifndef DTAIL_SERVER_COUNTERS_H
#define DTAIL_SERVER_COUNTERS_H

#include <stdatomic.h>

typedef struct server_counters {
    atomic_ullong connections;          /* open, authenticated */
    atomic_ullong preauth_connections;  /* accepted, not yet authenticated */
    atomic_ullong lifetime_connections; /* accepted since start */
    atomic_ullong requests;             /* requests started */
    atomic_ullong lines_served;         /* lines sent to clients */
    atomic_ullong bytes_served;         /* payload bytes sent to clients */
} server_counters_t;

#endif
