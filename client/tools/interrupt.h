/* interrupt.h: DTail's signal behaviour, the same in every client.
 *
 * A first Ctrl-C does not end the run: it asks the client to print its
 * hint (and connection stats where there are connections); a second one
 * within 3 seconds ends the run. SIGTERM, SIGHUP and SIGQUIT end it at
 * once. SIGPIPE is ignored (a closed stdout is an error of the write).
 * The handlers only set flags; the client's loop acts on them. */
#ifndef DTAIL_CLIENT_INTERRUPT_H
#define DTAIL_CLIENT_INTERRUPT_H

#include <signal.h>

/* Non-zero once the run should end (also set by the client itself). */
extern volatile sig_atomic_t interrupt_stop;

void interrupt_install(void);
/* 1 once for each first Ctrl-C: the caller prints the hint and its stats. */
int interrupt_take_stats_request(void);
/* Writes DTail's hint " Hint: Hit Ctrl+C again to exit" to stderr. */
void interrupt_print_hint(void);

#endif
