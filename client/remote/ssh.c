/* ssh.c: connect, check the host key, authenticate, open the shell. */
#include "client/remote/ssh.h"

#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <pwd.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/tcp.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/clock.h"
#include "base/home.h"
#include "client/remote/agent_filter.h"
#include "client/tools/lazy_lib.h"
#include "transport/ssh_stream.h"

#define SSH_CLIENT_READ (16 * 1024 * 1024)  /* grows the window (see header): 16 MiB
                                            in flight is 320 MB/s at 50 ms RTT */

/* One connection: its session and channel, read and written through the
 * shared adapter (transport/ssh_stream.h). */
typedef struct ssh_conn {
    ssh_stream_t io;    /* sess, ch, the read-ahead buffer */
    pthread_mutex_t mu; /* one libssh call at a time: a reader thread and a
                           writer thread (interactive reloads) share sess */
    long long read_deadline_ms; /* a read waiting past it ends; 0: none */
    char user[128];     /* the user logged in as */
    int shell_pending;  /* the shell request's reply is still to be read */
} ssh_conn_t;

static int read_deadline_passed(void *ctx)
{
    const ssh_conn_t *c = ctx;
    return c->read_deadline_ms && clock_now_ms() >= c->read_deadline_ms;
}

void ssh_client_read_deadline(stream_t *s, long long deadline_ms)
{
    ssh_conn_t *c = s->ctx;
    c->read_deadline_ms = deadline_ms;
    c->io.read_ends = deadline_ms ? read_deadline_passed : NULL;
    c->io.read_ends_ctx = c;
}

int ssh_client_peer_tag(stream_t *s, char *buf, size_t cap)
{
    ssh_conn_t *c = s->ctx;
    struct sockaddr_storage sa;
    socklen_t len = sizeof sa;
    char ip[INET6_ADDRSTRLEN];
    int port;
    buf[0] = 0;
    if (getsockname(ssh_api.ssh_get_fd(c->io.sess), (struct sockaddr *)&sa, &len) < 0)
        return -1;
    if (sa.ss_family == AF_INET) {
        const struct sockaddr_in *v4 = (const struct sockaddr_in *)&sa;
        inet_ntop(AF_INET, &v4->sin_addr, ip, sizeof ip);
        port = ntohs(v4->sin_port);
        snprintf(buf, cap, "%s@%s:%d", c->user, ip, port);
    } else if (sa.ss_family == AF_INET6) {
        const struct sockaddr_in6 *v6 = (const struct sockaddr_in6 *)&sa;
        inet_ntop(AF_INET6, &v6->sin6_addr, ip, sizeof ip);
        port = ntohs(v6->sin6_port);
        snprintf(buf, cap, "%s@[%s]:%d", c->user, ip, port);   /* as Go's net.Addr */
    } else {
        return -1;
    }
    return 0;
}

static const ssh_stream_calls_t *client_calls(void)
{
    static ssh_stream_calls_t calls;
    calls.channel_read_timeout = ssh_api.ssh_channel_read_timeout;
    calls.channel_write = ssh_api.ssh_channel_write;
    calls.channel_is_eof = ssh_api.ssh_channel_is_eof;
    calls.channel_is_closed = ssh_api.ssh_channel_is_closed;
    calls.get_fd = ssh_api.ssh_get_fd;
    calls.get_error = ssh_api.ssh_get_error;
    return &calls;
}

int ssh_client_parse_server(const char *spec, int def_port, char *host, size_t cap, int *port,
                            err_t *e)
{
    const char *h = spec, *colon;
    size_t hlen;
    if (spec[0] == '[') {
        const char *rb = strchr(spec, ']');
        if (!rb)
            return err_set(e, ERR_USAGE, "server %s: missing ']'", spec);
        h = spec + 1;
        hlen = (size_t)(rb - h);
        colon = rb[1] == ':' ? rb + 1 : NULL;
        if (rb[1] && !colon)
            return err_set(e, ERR_USAGE, "server %s: expected ':' after ']'", spec);
    } else {
        colon = strrchr(spec, ':');
        if (colon && strchr(spec, ':') != colon)
            colon = NULL;   /* a bare IPv6 address without a port */
        hlen = colon ? (size_t)(colon - spec) : strlen(spec);
    }
    if (hlen == 0 || hlen >= cap)
        return err_set(e, ERR_USAGE, "server \"%s\": host name missing or too long", spec);
    memcpy(host, h, hlen);
    host[hlen] = '\0';
    *port = def_port;
    if (colon) {
        char *end;
        long p = strtol(colon + 1, &end, 10);
        if (!colon[1] || *end || p < 1 || p > 65535)
            return err_set(e, ERR_USAGE, "server \"%s\": port must be 1 to 65535", spec);
        *port = (int)p;
    }
    return 0;
}

int ssh_client_ask_trust(const char *hostport, const char *fingerprint, FILE *answer_in,
                         FILE *prompt_out)
{
    fprintf(prompt_out, "Encountered 1 unknown hosts: '%s'\n", hostport);
    for (;;) {
        fprintf(prompt_out, "Do you want to trust these hosts?? (y=yes,a=all,n=no,d=details): ");
        fflush(prompt_out);
        char line[64];
        if (!fgets(line, sizeof line, answer_in))
            return 0;
        switch (line[0]) {
        case 'y': case 'Y': case 'a': case 'A':
            return 1;
        case 'n': case 'N':
            return 0;
        case 'd': case 'D':
            fprintf(prompt_out, "%s %s\n", hostport, fingerprint);
            break;
        default:
            break;
        }
    }
}

/* $HOME/.ssh (the user database's home without HOME), as DTail finds it.
 * libssh itself would take the home from the user database only, so a
 * HOME of one's own (sudo -E, tests) would find other keys than it names. */
static void default_ssh_dir(char *out, size_t cap)
{
    const char *home = home_dir();
    snprintf(out, cap, "%s/.ssh", home ? home : "");
}

static int check_host(ssh_session s, const ssh_client_opts_t *o, const char *path,
                      const char *hostport, err_t *e)
{
    enum ssh_known_hosts_e k = ssh_api.ssh_session_is_known_server(s);
    if (k == SSH_KNOWN_HOSTS_OK)
        return 0;
    if (k == SSH_KNOWN_HOSTS_CHANGED || k == SSH_KNOWN_HOSTS_OTHER)
        return err_set(e, ERR_IO,
                       "the host key differs from the one in %s: possible man-in-the-middle "
                       "attack; remove the old entry if the key really changed",
                       path);
    if (k == SSH_KNOWN_HOSTS_ERROR)
        return err_set(e, ERR_IO, "cannot check known hosts %s: %s", path, ssh_api.ssh_get_error(s));
    int trust = o->trust_all_hosts;
    if (!trust) {
        ssh_key key = NULL;
        char *fp = NULL;
        unsigned char *hash = NULL;
        size_t hlen = 0;
        if (ssh_api.ssh_get_server_publickey(s, &key) == SSH_OK &&
            ssh_api.ssh_get_publickey_hash(key, SSH_PUBLICKEY_HASH_SHA256, &hash, &hlen) == 0)
            fp = ssh_api.ssh_get_fingerprint_hash(SSH_PUBLICKEY_HASH_SHA256, hash, hlen);
        if (isatty(STDIN_FILENO) && isatty(STDERR_FILENO))
            trust = ssh_client_ask_trust(hostport, fp ? fp : "?", stdin, stderr);
        ssh_api.ssh_string_free_char(fp);
        ssh_api.ssh_clean_pubkey_hash(&hash);
        ssh_api.ssh_key_free(key);
        if (!trust)
            return err_set(e, ERR_IO,
                           "unknown host key, not trusted (answer the prompt on a terminal, "
                           "use --trustAllHosts, or add it to %s)",
                           path);
    }
    if (ssh_api.ssh_session_update_known_hosts(s) != SSH_OK)
        return err_set(e, ERR_IO, "cannot add the host key to %s: %s", path, ssh_api.ssh_get_error(s));
    chmod(path, 0600);
    return 0;
}

/* --agentKeyIndex: libssh's own order (the agent, then ~/.ssh/id_*) with
 * an agent that holds only that key; *rc the SSH_AUTH_* outcome. Returns
 * 0, or -1 with e when the agent cannot give the key. */
static int userauth_agent_key(ssh_session s, int index, const char *pass, int *rc, err_t *e)
{
    agent_filter_t *f;
    int fd;
    if (agent_filter_start(index, &f, &fd, e) < 0)
        return -1;
    *rc = SSH_AUTH_ERROR;
    if (ssh_api.ssh_set_agent_socket(s, fd) == SSH_OK) {
        *rc = ssh_api.ssh_userauth_publickey_auto(s, NULL, pass);
        ssh_api.ssh_set_agent_socket(s, -1);   /* the filter's end is ours to close */
    }
    agent_filter_stop(f);
    return 0;
}

static int authenticate(ssh_session s, const ssh_client_opts_t *o, const char *user, err_t *e)
{
    const char *pass = getenv("DTAIL_KEY_PASSPHRASE");
    int rc;
    /* libssh (before 0.12) picks an RSA key's signature algorithm from the
     * server's server-sig-algs before it asks for the ssh-userauth service,
     * so whether it has read the server's EXT_INFO by then is a race: lost,
     * it picks ssh-rsa (SHA-1), which it refuses itself ("not allowed by
     * PUBLICKEY_ACCEPTED_TYPES"). The service's accept comes after EXT_INFO
     * (RFC 8308 sends that right after NEWKEYS), and the request is made
     * once per session (later calls return the accepted state). */
    if (ssh_api.ssh_service_request(s, "ssh-userauth") != SSH_OK)
        return err_set(e, ERR_IO, "the server refused the ssh-userauth service: %s",
                       ssh_api.ssh_get_error(s));
    if (o->password) {
        rc = ssh_api.ssh_userauth_password(s, NULL, o->password);
    } else if (o->key_path && *o->key_path) {
        ssh_key key = NULL;
        if (ssh_api.ssh_pki_import_privkey_file(o->key_path, pass, NULL, NULL, &key) != SSH_OK)
            return err_set(e, ERR_USAGE, "cannot read private key %s (encrypted keys need "
                           "DTAIL_KEY_PASSPHRASE)", o->key_path);
        rc = ssh_api.ssh_userauth_publickey(s, NULL, key);
        ssh_api.ssh_key_free(key);
        /* DTail's order with --agentKeyIndex: the key, then that agent key. */
        if (rc != SSH_AUTH_SUCCESS && o->agent_key_pick &&
            userauth_agent_key(s, o->agent_key_pick - 1, pass, &rc, e) < 0)
            return -1;
    } else if (o->agent_key_pick) {
        if (userauth_agent_key(s, o->agent_key_pick - 1, pass, &rc, e) < 0)
            return -1;
    } else {
        rc = ssh_api.ssh_userauth_publickey_auto(s, NULL, pass);
    }
    if (rc == SSH_AUTH_SUCCESS)
        return 0;
    return err_set(e, ERR_IO, "authentication failed for user %s (%s)", user,
                   o->password ? "password refused"
                   : o->agent_key_pick ? "neither the ssh-agent's key of --agentKeyIndex nor "
                                         "--key nor ~/.ssh/id_ed25519, id_ecdsa, id_rsa accepted"
                   : o->key_path ? "key not accepted"
                                 : "no key from ssh-agent, ~/.ssh/id_ed25519, id_ecdsa or id_rsa accepted");
}

/* The reply to the shell request that ssh_client_open sent without
 * waiting: it comes in the flight that answers the first bytes written
 * after it, so waiting for it before the first read costs no round trip. */
static int finish_shell(ssh_conn_t *c, err_t *e)
{
    pthread_mutex_lock(&c->mu);
    int rc = ssh_api.ssh_channel_request_shell(c->io.ch);
    pthread_mutex_unlock(&c->mu);
    c->shell_pending = 0;
    if (rc != SSH_OK)
        return err_set(e, ERR_IO, "the server did not open the shell: %s",
                       ssh_api.ssh_get_error(c->io.sess));
    return 0;
}

static ssize_t stream_read_fn(void *ctx, void *buf, size_t n, err_t *e)
{
    ssh_conn_t *c = ctx;
    if (c->shell_pending && finish_shell(c, e) < 0)
        return -1;
    return ssh_stream_read(&c->io, buf, n, e);
}

static int stream_write_fn(void *ctx, const void *buf, size_t n, err_t *e)
{
    return ssh_stream_write(&((ssh_conn_t *)ctx)->io, buf, n, e);
}

static void stream_close_fn(void *ctx)
{
    ssh_conn_t *c = ctx;
    ssh_stream_t *st = &c->io;
    if (st->ch) {
        if (ssh_api.ssh_channel_is_open(st->ch)) {
            ssh_api.ssh_channel_send_eof(st->ch);
            ssh_api.ssh_channel_close(st->ch);
        }
        ssh_api.ssh_channel_free(st->ch);
    }
    if (st->sess) {
        ssh_api.ssh_disconnect(st->sess);
        ssh_api.ssh_free(st->sess);
    }
    pthread_mutex_destroy(&c->mu);
    ssh_stream_free(st);
    free(c);
}

/* A TCP connection to host:port, trying each address the name resolves
 * to in turn within timeout_ms in all. libssh tries only the first:
 * with Debian's /etc/hosts "localhost" is ::1 first, and a dserver on
 * 0.0.0.0 was then "Connection refused" though 127.0.0.1 answers.
 * TCP_NODELAY is set here: libssh applies its NODELAY option only to a
 * socket it made. */
static int connect_any(const char *host, int port, int timeout_ms, err_t *e)
{
    char service[16];
    snprintf(service, sizeof service, "%d", port);
    struct addrinfo hints = {.ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM}, *ai = NULL;
    int g = getaddrinfo(host, service, &hints, &ai);
    if (g != 0)
        return err_set(e, ERR_IO, "cannot connect: cannot resolve %s: %s", host, gai_strerror(g));
    long long deadline = clock_now_ms() + timeout_ms;
    int last = 0, fd = -1, timed_out = 0;
    for (struct addrinfo *a = ai; a && fd < 0; a = a->ai_next) {
        fd = socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC | SOCK_NONBLOCK, a->ai_protocol);
        if (fd < 0) {
            last = errno;
            continue;
        }
        int rc = connect(fd, a->ai_addr, a->ai_addrlen);
        if (rc < 0 && errno == EINPROGRESS) {
            long long left = deadline - clock_now_ms();
            struct pollfd p = {.fd = fd, .events = POLLOUT};
            int pr = left > 0 ? poll(&p, 1, (int)left) : 0;
            socklen_t len = sizeof last;
            if (pr > 0 && getsockopt(fd, SOL_SOCKET, SO_ERROR, &last, &len) == 0 && last == 0)
                rc = 0;
            else if (pr == 0)
                timed_out = 1;
        } else if (rc < 0) {
            last = errno;
        }
        if (rc < 0) {
            close(fd);
            fd = -1;
            if (timed_out)
                break;
        }
    }
    freeaddrinfo(ai);
    if (fd < 0)
        return timed_out ? err_set(e, ERR_IO, "cannot connect: Timeout connecting to %s", host)
                         : err_set(e, ERR_IO, "cannot connect: %s", strerror(last ? last : ECONNREFUSED));
    int yes = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &yes, sizeof yes);
    fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
    return fd;
}

static const char *default_user(void)
{
    const char *u = getenv("USER");
    if (u && *u)
        return u;
    struct passwd *pw = getpwuid(getuid());
    return pw ? pw->pw_name : "root";
}

int ssh_client_open(const char *host, int port, const ssh_client_opts_t *o, stream_t *out, err_t *e)
{
    if (ssh_api_load(e) < 0)
        return -1;
    ssh_conn_t *c = calloc(1, sizeof *c);
    if (!c)
        return err_set(e, ERR_NOMEM, "out of memory");
    pthread_mutex_init(&c->mu, NULL);
    ssh_stream_t *st = &c->io;
    st->api = client_calls();
    st->mu = &c->mu;
    snprintf(st->who, sizeof st->who, "the server");
    st->read_max = o->read_max ? o->read_max : SSH_CLIENT_READ;
    if (ssh_stream_init(st, e) < 0 || !(st->sess = ssh_api.ssh_new())) {
        if (!st->sess && st->buf)
            err_set(e, ERR_NOMEM, "out of memory");
        stream_close_fn(c);
        return -1;
    }
    const char *user = o->user && *o->user ? o->user : default_user();
    snprintf(c->user, sizeof c->user, "%s", user);
    char dir[3072], kh[4096];
    default_ssh_dir(dir, sizeof dir);
    if (o->known_hosts) {
        snprintf(kh, sizeof kh, "%s", o->known_hosts);
    } else {
        mkdir(dir, 0700);   /* DTail creates it too; EEXIST is fine */
        snprintf(kh, sizeof kh, "%s/known_hosts", dir);
    }
    char hostport[300];
    snprintf(hostport, sizeof hostport, "%s:%d", host, port);
    int timeout_ms = o->connect_timeout_ms > 0 ? o->connect_timeout_ms : 2000;
    long usec = (long)timeout_ms * 1000L;
    int no = 0;
    ssh_session s = st->sess;
    if (ssh_api.ssh_options_set(s, SSH_OPTIONS_HOST, host) != SSH_OK ||
        ssh_api.ssh_options_set(s, SSH_OPTIONS_PORT, &port) != SSH_OK ||
        ssh_api.ssh_options_set(s, SSH_OPTIONS_USER, user) != SSH_OK ||
        ssh_api.ssh_options_set(s, SSH_OPTIONS_PROCESS_CONFIG, &no) != SSH_OK ||
        ssh_api.ssh_options_set(s, SSH_OPTIONS_TIMEOUT_USEC, &usec) != SSH_OK ||
        ssh_api.ssh_options_set(s, SSH_OPTIONS_SSH_DIR, dir) != SSH_OK ||
        ssh_api.ssh_options_set(s, SSH_OPTIONS_KNOWNHOSTS, kh) != SSH_OK ||
        ssh_api.ssh_options_set(s, SSH_OPTIONS_CIPHERS_C_S,
                        "aes128-gcm@openssh.com,aes256-gcm@openssh.com,chacha20-poly1305@openssh.com,"
                        "aes128-ctr,aes256-ctr") != SSH_OK ||
        ssh_api.ssh_options_set(s, SSH_OPTIONS_CIPHERS_S_C,
                        "aes128-gcm@openssh.com,aes256-gcm@openssh.com,chacha20-poly1305@openssh.com,"
                        "aes128-ctr,aes256-ctr") != SSH_OK) {
        err_set(e, ERR_USAGE, "invalid SSH option: %s", ssh_api.ssh_get_error(s));
        goto fail;
    }
    int fd = connect_any(host, port, timeout_ms, e);
    if (fd < 0)
        goto fail;
    /* libssh owns fd from here: it closes it with the session */
    if (ssh_api.ssh_options_set(s, SSH_OPTIONS_FD, &fd) != SSH_OK) {
        close(fd);
        err_set(e, ERR_USAGE, "invalid SSH option: %s", ssh_api.ssh_get_error(s));
        goto fail;
    }
    if (ssh_api.ssh_connect(s) != SSH_OK) {
        err_set(e, ERR_IO, "cannot connect: %s", ssh_api.ssh_get_error(s));
        goto fail;
    }
    if ((!o->no_host_key_check && check_host(s, o, kh, hostport, e) < 0) ||
        authenticate(s, o, user, e) < 0)
        goto fail;
    st->ch = ssh_api.ssh_channel_new(s);
    if (!st->ch || ssh_api.ssh_channel_open_session(st->ch) != SSH_OK) {
        err_set(e, ERR_IO, "cannot open the session channel: %s", ssh_api.ssh_get_error(s));
        goto fail;
    }
    /* The shell request goes out now and its reply is read with the
     * answer to what the caller writes next (finish_shell): one round trip
     * fewer for every connection (docs/protocol.md "Round trips"). */
    ssh_api.ssh_set_blocking(s, 0);
    int shell = ssh_api.ssh_channel_request_shell(st->ch);
    ssh_api.ssh_set_blocking(s, 1);
    if (shell == SSH_ERROR) {
        err_set(e, ERR_IO, "cannot open the shell: %s", ssh_api.ssh_get_error(s));
        goto fail;
    }
    c->shell_pending = shell == SSH_AGAIN;
    out->ctx = c;
    out->read = stream_read_fn;
    out->write = stream_write_fn;
    out->close = stream_close_fn;
    return 0;
fail:
    stream_close_fn(c);
    return -1;
}
