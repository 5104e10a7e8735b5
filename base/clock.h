/* clock.h: the time helpers every thread loop needs: monotonic
 * milliseconds for intervals and deadlines, the absolute time a timed
 * condition wait takes, and a sleep. Header only: each is a call or two. */
#ifndef DTAIL_BASE_CLOCK_H
#define DTAIL_BASE_CLOCK_H

#include <time.h>

/* Milliseconds on the monotonic clock (not moved by clock changes). */
static inline long long clock_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* *ts = now + ms on CLOCK_REALTIME: the deadline pthread_cond_timedwait
 * takes for a condition variable with default attributes. */
static inline void clock_abs_in(struct timespec *ts, long long ms)
{
    clock_gettime(CLOCK_REALTIME, ts);
    ts->tv_sec += (time_t)(ms / 1000);
    ts->tv_nsec += (long)(ms % 1000) * 1000000L;
    if (ts->tv_nsec >= 1000000000L) {
        ts->tv_sec++;
        ts->tv_nsec -= 1000000000L;
    }
}

/* Sleeps about ms milliseconds (a signal may end it early). */
static inline void clock_sleep_ms(long long ms)
{
    struct timespec ts = {(time_t)(ms / 1000), (long)(ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

#endif
