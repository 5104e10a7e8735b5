/* interrupt.c: see interrupt.h. */
#include "client/tools/interrupt.h"

#include <string.h>
#include <time.h>
#include <unistd.h>

#define SECOND_INTERRUPT_S 3

volatile sig_atomic_t interrupt_stop;
static volatile sig_atomic_t presses;       /* Ctrl-C presses that asked for stats */
static volatile sig_atomic_t last_press;    /* time of the last one */
static volatile sig_atomic_t stats_wanted;  /* the loop prints them */

static void on_interrupt(int sig)
{
    (void)sig;
    time_t now = time(NULL);
    if (presses && now - last_press <= SECOND_INTERRUPT_S) {
        interrupt_stop = 1;
        return;
    }
    presses++;
    last_press = (sig_atomic_t)now;
    stats_wanted = 1;
}

static void on_terminate(int sig)
{
    (void)sig;
    interrupt_stop = 1;
}

void interrupt_install(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_interrupt;
    sigaction(SIGINT, &sa, NULL);
    sa.sa_handler = on_terminate;
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGHUP, &sa, NULL);
    sigaction(SIGQUIT, &sa, NULL);
    signal(SIGPIPE, SIG_IGN);
}

int interrupt_take_stats_request(void)
{
    if (!stats_wanted)
        return 0;
    stats_wanted = 0;
    return 1;
}

void interrupt_print_hint(void)
{
    static const char hint[] = " Hint: Hit Ctrl+C again to exit\n";
    ssize_t w = write(STDERR_FILENO, hint, sizeof hint - 1);
    (void)w;
}
