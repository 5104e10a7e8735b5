/* delayproxy.c: a TCP proxy that delays each direction by a fixed time,
 * to measure dcat through a server at a real round-trip time on loopback.
 *
 *   delayproxy LISTEN_PORT TARGET_PORT DELAY_MS
 *
 * Listens on 127.0.0.1:LISTEN_PORT (0: any free port, printed as
 * "port N" on stdout), forwards each connection to 127.0.0.1:TARGET_PORT.
 * Each direction is a thread pair: a reader stamps each chunk with the
 * time it arrived and queues it; a writer sends it DELAY_MS later. The
 * queue is unbounded (the sender's TCP window bounds what is in flight), so
 * the proxy adds latency and no bandwidth limit: one direction's delay is
 * DELAY_MS, the round trip 2 * DELAY_MS. Built by benchmarks/server.sh. */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define CHUNK (256 * 1024)

typedef struct chunk {
    struct chunk *next;
    struct timespec due;     /* when it may be sent */
    size_t len;              /* 0: the reader saw end of stream */
    char data[];
} chunk_t;

typedef struct pipe_dir {
    int from, to;            /* sockets */
    long delay_ms;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    chunk_t *head, *tail;    /* queue */
} pipe_dir_t;

static void add_ms(struct timespec *t, long ms)
{
    t->tv_sec += ms / 1000;
    t->tv_nsec += (ms % 1000) * 1000000L;
    if (t->tv_nsec >= 1000000000L) {
        t->tv_sec++;
        t->tv_nsec -= 1000000000L;
    }
}

static void *reader(void *arg)
{
    pipe_dir_t *p = arg;
    for (;;) {
        chunk_t *c = malloc(sizeof *c + CHUNK);
        if (!c)
            abort();
        ssize_t n = read(p->from, c->data, CHUNK);
        c->len = n > 0 ? (size_t)n : 0;
        c->next = NULL;
        clock_gettime(CLOCK_MONOTONIC, &c->due);
        add_ms(&c->due, p->delay_ms);
        pthread_mutex_lock(&p->mu);
        if (p->tail)
            p->tail->next = c;
        else
            p->head = c;
        p->tail = c;
        pthread_cond_signal(&p->cv);
        pthread_mutex_unlock(&p->mu);
        if (n <= 0)
            return NULL;
    }
}

static void *writer(void *arg)
{
    pipe_dir_t *p = arg;
    for (;;) {
        pthread_mutex_lock(&p->mu);
        while (!p->head)
            pthread_cond_wait(&p->cv, &p->mu);
        chunk_t *c = p->head;
        p->head = c->next;
        if (!p->head)
            p->tail = NULL;
        pthread_mutex_unlock(&p->mu);
        clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &c->due, NULL);
        if (c->len == 0) {
            shutdown(p->to, SHUT_WR);
            free(c);
            return NULL;
        }
        const char *d = c->data;
        size_t left = c->len;
        while (left) {
            ssize_t w = write(p->to, d, left);
            if (w <= 0) {
                free(c);
                shutdown(p->from, SHUT_RD);
                return NULL;
            }
            d += w;
            left -= (size_t)w;
        }
        free(c);
    }
}

typedef struct conn {
    int a, b;
    long delay_ms;
} conn_t;

static void *serve(void *arg)
{
    conn_t *c = arg;
    pipe_dir_t up = {.from = c->a, .to = c->b, .delay_ms = c->delay_ms};
    pipe_dir_t down = {.from = c->b, .to = c->a, .delay_ms = c->delay_ms};
    pipe_dir_t *dirs[2] = {&up, &down};
    pthread_t th[4];
    for (int i = 0; i < 2; i++) {
        pthread_mutex_init(&dirs[i]->mu, NULL);
        pthread_cond_init(&dirs[i]->cv, NULL);
        pthread_create(&th[2 * i], NULL, reader, dirs[i]);
        pthread_create(&th[2 * i + 1], NULL, writer, dirs[i]);
    }
    for (int i = 0; i < 4; i++)
        pthread_join(th[i], NULL);
    close(c->a);
    close(c->b);
    free(c);
    return NULL;
}

static void nodelay(int fd)
{
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
}

int main(int argc, char **argv)
{
    if (argc != 4) {
        fprintf(stderr, "usage: delayproxy LISTEN_PORT TARGET_PORT DELAY_MS\n");
        return 2;
    }
    signal(SIGPIPE, SIG_IGN);
    int ls = socket(AF_INET, SOCK_STREAM, 0), one = 1;
    setsockopt(ls, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)atoi(argv[1])),
                            .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    if (bind(ls, (struct sockaddr *)&a, sizeof a) < 0 || listen(ls, 16) < 0) {
        perror("delayproxy: listen");
        return 1;
    }
    socklen_t al = sizeof a;
    getsockname(ls, (struct sockaddr *)&a, &al);
    printf("port %d\n", ntohs(a.sin_port));
    fflush(stdout);
    struct sockaddr_in t = {.sin_family = AF_INET, .sin_port = htons((uint16_t)atoi(argv[2])),
                            .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    for (;;) {
        int c = accept(ls, NULL, NULL);
        if (c < 0)
            continue;
        int s = socket(AF_INET, SOCK_STREAM, 0);
        if (connect(s, (struct sockaddr *)&t, sizeof t) < 0) {
            close(c);
            close(s);
            continue;
        }
        nodelay(c);
        nodelay(s);
        conn_t *cn = malloc(sizeof *cn);
        *cn = (conn_t){c, s, atol(argv[3])};
        pthread_t th;
        pthread_create(&th, NULL, serve, cn);
        pthread_detach(th);
    }
}
