/* agent_filter.c: see agent_filter.h. Frames are a 4-byte big-endian
 * length and the message, whose first byte is its type. */
#include "client/remote/agent_filter.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "base/fdio.h"
#include "wire/frame.h"

#define AGENT_FAILURE 5
#define AGENTC_REQUEST_IDENTITIES 11
#define AGENT_IDENTITIES_ANSWER 12
#define AGENTC_SIGN_REQUEST 13
#define AGENT_FRAME_MAX (256 * 1024)   /* libssh's own bound on an answer */

struct agent_filter {
    int agent;               /* connection to the user's ssh-agent */
    int ours;                /* the socketpair's end the thread serves */
    int theirs;              /* libssh's end */
    pthread_t thread;        /* serves ours until libssh's end closes */
    unsigned char *key;      /* the chosen key's blob */
    uint32_t key_len;        /* its length */
    unsigned char *comment;  /* its comment, as the agent has it */
    uint32_t comment_len;    /* its length */
};

static int read_full(int fd, void *buf, size_t n)
{
    unsigned char *p = buf;
    while (n > 0) {
        ssize_t r = read(fd, p, n);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            return -1;
        p += r;
        n -= (size_t)r;
    }
    return 0;
}

/* One frame's message into *msg (malloc'd, the caller frees). */
static int read_frame(int fd, unsigned char **msg, uint32_t *len)
{
    unsigned char head[4];
    if (read_full(fd, head, 4) < 0)
        return -1;
    *len = wire_be32_get(head);
    if (*len == 0 || *len > AGENT_FRAME_MAX || !(*msg = malloc(*len)))
        return -1;
    if (read_full(fd, *msg, *len) < 0) {
        free(*msg);
        return -1;
    }
    return 0;
}

static int write_frame(int fd, const unsigned char *msg, uint32_t len)
{
    unsigned char head[4];
    wire_be32_put(head, len);
    return fdio_write_all(fd, head, 4) < 0 || fdio_write_all(fd, msg, len) < 0 ? -1 : 0;
}

/* The SSH string at *p (length-prefixed) within [*p, end): its bytes and
 * length, *p moved past it. */
static int take_string(const unsigned char **p, const unsigned char *end,
                       const unsigned char **s, uint32_t *n)
{
    if (end - *p < 4)
        return -1;
    *n = wire_be32_get(*p);
    if ((uint32_t)(end - *p - 4) < *n)
        return -1;
    *s = *p + 4;
    *p += 4 + *n;
    return 0;
}

/* Keeps the index-th key of an identities answer. */
static int pick_key(agent_filter_t *f, const unsigned char *msg, uint32_t len, int index,
                    err_t *e)
{
    const unsigned char *p = msg + 1, *end = msg + len;
    if (len < 5 || msg[0] != AGENT_IDENTITIES_ANSWER)
        return err_set(e, ERR_IO, "--agentKeyIndex %d: the ssh-agent did not list its keys",
                       index);
    uint32_t count = wire_be32_get(p);
    p += 4;
    if (count == 0)
        return err_set(e, ERR_USAGE, "--agentKeyIndex %d: the ssh-agent holds no keys", index);
    if (count == 1 && index > 0)
        return err_set(e, ERR_USAGE, "--agentKeyIndex %d: the ssh-agent holds 1 key (index 0)",
                       index);
    if ((uint32_t)index >= count)
        return err_set(e, ERR_USAGE, "--agentKeyIndex %d: the ssh-agent holds %u keys (index 0 "
                                     "to %u)", index, count, count - 1);
    for (int i = 0; i <= index; i++) {
        const unsigned char *blob, *comment;
        uint32_t nb, nc;
        if (take_string(&p, end, &blob, &nb) < 0 || take_string(&p, end, &comment, &nc) < 0)
            return err_set(e, ERR_IO, "--agentKeyIndex %d: the ssh-agent's list is cut short",
                           index);
        if (i < index)
            continue;
        f->key = malloc(nb ? nb : 1);
        f->comment = malloc(nc ? nc : 1);
        if (!f->key || !f->comment)
            return err_set(e, ERR_NOMEM, "out of memory");
        memcpy(f->key, blob, nb);
        memcpy(f->comment, comment, nc);
        f->key_len = nb;
        f->comment_len = nc;
    }
    return 0;
}

/* Asks the agent for its keys and keeps the index-th. */
static int list_and_pick(agent_filter_t *f, int index, err_t *e)
{
    static const unsigned char list[] = {AGENTC_REQUEST_IDENTITIES};
    unsigned char *answer;
    uint32_t n;
    if (write_frame(f->agent, list, sizeof list) < 0 || read_frame(f->agent, &answer, &n) < 0)
        return err_set(e, ERR_IO, "--agentKeyIndex %d: the ssh-agent did not answer", index);
    int rc = pick_key(f, answer, n, index, e);
    free(answer);
    return rc;
}

static int connect_agent(int index, err_t *e)
{
    const char *path = getenv("SSH_AUTH_SOCK");
    if (!path || !*path)
        return err_set(e, ERR_USAGE, "--agentKeyIndex %d: no ssh-agent (SSH_AUTH_SOCK is not set)",
                       index);
    struct sockaddr_un a = {.sun_family = AF_UNIX};
    if (strlen(path) >= sizeof a.sun_path)
        return err_set(e, ERR_USAGE, "--agentKeyIndex %d: SSH_AUTH_SOCK is too long", index);
    memcpy(a.sun_path, path, strlen(path) + 1);
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0 || connect(fd, (struct sockaddr *)&a, sizeof a) < 0) {
        err_set(e, ERR_IO, "--agentKeyIndex %d: cannot reach the ssh-agent at %s: %s", index, path,
                strerror(errno));
        if (fd >= 0)
            close(fd);
        return -1;
    }
    return fd;
}

static int answer_identities(const agent_filter_t *f)
{
    uint32_t len = 1 + 4 + 4 + f->key_len + 4 + f->comment_len;
    unsigned char *m = malloc(len);
    if (!m)
        return -1;
    m[0] = AGENT_IDENTITIES_ANSWER;
    wire_be32_put(m + 1, 1);
    wire_be32_put(m + 5, f->key_len);
    memcpy(m + 9, f->key, f->key_len);
    wire_be32_put(m + 9 + f->key_len, f->comment_len);
    memcpy(m + 13 + f->key_len, f->comment, f->comment_len);
    int rc = write_frame(f->ours, m, len);
    free(m);
    return rc;
}

/* A sign request for the chosen key: the real agent signs it. */
static int is_sign_for_key(const agent_filter_t *f, const unsigned char *msg, uint32_t len)
{
    const unsigned char *p = msg + 1, *blob;
    uint32_t n;
    return len > 1 && msg[0] == AGENTC_SIGN_REQUEST && take_string(&p, msg + len, &blob, &n) == 0 &&
           n == f->key_len && memcmp(blob, f->key, n) == 0;
}

static int serve_one(agent_filter_t *f, const unsigned char *msg, uint32_t len)
{
    static const unsigned char failure[] = {AGENT_FAILURE};
    if (msg[0] == AGENTC_REQUEST_IDENTITIES)
        return answer_identities(f);
    if (!is_sign_for_key(f, msg, len))
        return write_frame(f->ours, failure, sizeof failure);
    unsigned char *answer;
    uint32_t n;
    if (write_frame(f->agent, msg, len) < 0 || read_frame(f->agent, &answer, &n) < 0)
        return write_frame(f->ours, failure, sizeof failure);
    int rc = write_frame(f->ours, answer, n);
    free(answer);
    return rc;
}

static void *serve(void *arg)
{
    agent_filter_t *f = arg;
    unsigned char *msg;
    uint32_t len;
    while (read_frame(f->ours, &msg, &len) == 0) {
        int rc = serve_one(f, msg, len);
        free(msg);
        if (rc < 0)
            break;
    }
    return NULL;
}

static void filter_free(agent_filter_t *f)
{
    if (f->agent >= 0)
        close(f->agent);
    if (f->ours >= 0)
        close(f->ours);
    if (f->theirs >= 0)
        close(f->theirs);
    free(f->key);
    free(f->comment);
    free(f);
}

/* The thread with every signal blocked: the client's own threads take them. */
static int start_thread(agent_filter_t *f, err_t *e)
{
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    int rc = pthread_create(&f->thread, NULL, serve, f);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    return rc ? err_set(e, ERR_IO, "cannot start the ssh-agent filter: %s", strerror(rc)) : 0;
}

int agent_filter_start(int index, agent_filter_t **out, int *lib_fd, err_t *e)
{
    agent_filter_t *f = calloc(1, sizeof *f);
    if (!f)
        return err_set(e, ERR_NOMEM, "out of memory");
    f->ours = f->theirs = -1;
    if ((f->agent = connect_agent(index, e)) < 0 || list_and_pick(f, index, e) < 0) {
        filter_free(f);
        return -1;
    }
    int fds[2];
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) < 0) {
        err_set(e, ERR_IO, "cannot make the ssh-agent filter's socket: %s", strerror(errno));
        filter_free(f);
        return -1;
    }
    f->ours = fds[0];
    f->theirs = fds[1];
    if (start_thread(f, e) < 0) {
        filter_free(f);
        return -1;
    }
    *out = f;
    *lib_fd = f->theirs;
    return 0;
}

void agent_filter_stop(agent_filter_t *f)
{
    if (!f)
        return;
    shutdown(f->theirs, SHUT_RDWR);   /* the thread's read ends */
    pthread_join(f->thread, NULL);
    filter_free(f);
}
