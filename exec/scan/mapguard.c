/* mapguard.c: the SIGBUS handler. */
#include "exec/scan/mapguard.h"

#include <pthread.h>
#include <signal.h>
#include <string.h>

static _Thread_local map_guard_t *current_guard;
static pthread_once_t install_once = PTHREAD_ONCE_INIT;

static void on_sigbus(int sig, siginfo_t *si, void *uctx)
{
    (void)uctx;
    map_guard_t *g = current_guard;
    const char *addr = si->si_addr;
    if (g && g->lo && addr >= g->lo && addr < g->hi)
        siglongjmp(g->jb, 1);
    /* Not ours: restore the default action; the fault repeats and kills. */
    signal(sig, SIG_DFL);
}

static void install(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_sigbus;
    sa.sa_flags = SA_SIGINFO | SA_NODEFER;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGBUS, &sa, NULL);
}

void map_guard_install(void)
{
    pthread_once(&install_once, install);
}

void map_guard_set(map_guard_t *g)
{
    current_guard = g;
}
