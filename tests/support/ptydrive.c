/* ptydrive: runs a program on a pseudo-terminal and drives it from a
 * script, for the end-to-end tests of interactive programs (dmap's REPL with
 * the real libedit).
 *
 *   ptydrive [-t SECONDS] [-o TRANSCRIPT] SCRIPT -- PROGRAM [ARGS...]
 *
 * Script lines (blank lines and lines starting with '#' are skipped):
 *   send TEXT     write TEXT to the terminal (escapes: \n \r \t \\ \xHH,
 *                 so \x03 is Ctrl-C and \x04 Ctrl-D)
 *   expect TEXT   wait until the output since the last match holds TEXT
 *                 (same escapes); fails after the timeout (default 10 s)
 *   sleep MS      wait MS milliseconds, reading output
 *   exit N        wait for the program to end; its exit status must be N
 * Everything the program printed goes to TRANSCRIPT. Exit status: 0 when
 * every step passed, 1 otherwise (the failing step and the end of the
 * output on stderr), 2 for a usage error. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pty.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

typedef struct drive {
    int fd;            /* pty master */
    pid_t pid;         /* the program */
    char *out;         /* everything read */
    size_t len, cap;   /* bytes read, allocated */
    size_t mark;       /* output before mark was matched already */
    int exited;        /* the program has been waited for */
    int status;        /* its wait status */
    double timeout;    /* seconds per expect or exit */
} drive_t;

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Reads what is there within ms milliseconds; 0 at the end of output. */
static int pump(drive_t *d, int ms)
{
    struct pollfd p = {d->fd, POLLIN, 0};
    int rc = poll(&p, 1, ms);
    if (rc <= 0)
        return 1;
    if (d->len + 65536 > d->cap) {
        d->cap = (d->cap + 65536) * 2;
        d->out = realloc(d->out, d->cap + 1);
        if (!d->out) {
            perror("ptydrive");
            exit(2);
        }
    }
    ssize_t n = read(d->fd, d->out + d->len, 65536);
    if (n <= 0)
        return 0;   /* EIO once the program closed the terminal */
    d->len += (size_t)n;
    d->out[d->len] = '\0';
    return 1;
}

static size_t unescape(const char *s, char *out)
{
    size_t k = 0;
    for (; *s; s++) {
        if (*s != '\\' || !s[1]) {
            out[k++] = *s;
            continue;
        }
        s++;
        switch (*s) {
        case 'n': out[k++] = '\n'; break;
        case 'r': out[k++] = '\r'; break;
        case 't': out[k++] = '\t'; break;
        case 'x': {
            char hex[3] = {s[1], s[1] ? s[2] : 0, 0};
            out[k++] = (char)strtol(hex, NULL, 16);
            s += 2;
            break;
        }
        default: out[k++] = *s; break;
        }
    }
    return k;
}

static void show_tail(const drive_t *d)
{
    size_t from = d->len > 3000 ? d->len - 3000 : 0;
    fprintf(stderr, "--- last output (from byte %zu, matched up to %zu) ---\n", from, d->mark);
    for (size_t i = from; i < d->len; i++) {
        unsigned char c = (unsigned char)d->out[i];
        if (c == '\n' || c == '\t' || (c >= 32 && c < 127))
            fputc(c, stderr);
        else if (c != '\r')
            fprintf(stderr, "\\x%02x", c);
    }
    fprintf(stderr, "\n--- end ---\n");
}

static int step_expect(drive_t *d, const char *text, size_t n)
{
    double until = now() + d->timeout;
    for (;;) {
        char *hit = d->out && d->len >= d->mark
                        ? memmem(d->out + d->mark, d->len - d->mark, text, n) : NULL;
        if (hit) {
            d->mark = (size_t)(hit - d->out) + n;
            return 0;
        }
        if (now() > until || !pump(d, 50))
            return hit ? 0 : -1;
    }
}

static int step_exit(drive_t *d, int want)
{
    double until = now() + d->timeout;
    while (!d->exited) {
        pump(d, 20);
        pid_t w = waitpid(d->pid, &d->status, WNOHANG);
        if (w == d->pid)
            d->exited = 1;
        else if (now() > until)
            return -1;
    }
    while (pump(d, 20) && d->len)
        if (poll(&(struct pollfd){d->fd, POLLIN, 0}, 1, 0) <= 0)
            break;
    int got = WIFEXITED(d->status) ? WEXITSTATUS(d->status) : 128 + WTERMSIG(d->status);
    if (got != want) {
        fprintf(stderr, "ptydrive: exit status %d, want %d\n", got, want);
        return -1;
    }
    return 0;
}

int main(int argc, char **argv)
{
    drive_t d = {.timeout = 10};
    const char *transcript = NULL;
    int opt;
    while ((opt = getopt(argc, argv, "+t:o:")) != -1) {
        if (opt == 't')
            d.timeout = atof(optarg);
        else if (opt == 'o')
            transcript = optarg;
        else
            return 2;
    }
    if (optind + 2 >= argc || strcmp(argv[optind + 1], "--") != 0) {
        fprintf(stderr, "usage: ptydrive [-t SECONDS] [-o TRANSCRIPT] SCRIPT -- PROGRAM [ARGS...]\n");
        return 2;
    }
    FILE *script = fopen(argv[optind], "r");
    if (!script) {
        perror(argv[optind]);
        return 2;
    }
    struct winsize ws = {.ws_row = 50, .ws_col = 200};
    d.pid = forkpty(&d.fd, NULL, NULL, &ws);
    if (d.pid < 0) {
        perror("forkpty");
        return 2;
    }
    if (d.pid == 0) {
        execvp(argv[optind + 2], argv + optind + 2);
        perror(argv[optind + 2]);
        _exit(127);
    }
    char line[8192], text[8192];
    int lineno = 0, failed = 0;
    while (!failed && fgets(line, sizeof line, script)) {
        lineno++;
        line[strcspn(line, "\n")] = '\0';
        if (!line[0] || line[0] == '#')
            continue;
        char *arg = strchr(line, ' ');
        arg = arg ? arg + 1 : line + strlen(line);
        size_t n = unescape(arg, text);
        int rc = 0;
        if (!strncmp(line, "send ", 5)) {
            rc = write(d.fd, text, n) == (ssize_t)n ? 0 : -1;
            pump(&d, 0);
        } else if (!strncmp(line, "expect ", 7)) {
            rc = step_expect(&d, text, n);
        } else if (!strncmp(line, "sleep ", 6)) {
            double until = now() + atof(arg) / 1000;
            while (now() < until)
                pump(&d, 10);
        } else if (!strncmp(line, "exit ", 5)) {
            rc = step_exit(&d, atoi(arg));
        } else {
            fprintf(stderr, "ptydrive: script line %d: unknown step '%s'\n", lineno, line);
            rc = -1;
        }
        if (rc < 0) {
            fprintf(stderr, "ptydrive: script line %d failed: %s\n", lineno, line);
            show_tail(&d);
            failed = 1;
        }
    }
    fclose(script);
    if (!d.exited) {
        kill(d.pid, SIGKILL);
        waitpid(d.pid, &d.status, 0);
    }
    if (transcript) {
        FILE *t = fopen(transcript, "w");
        if (!t || fwrite(d.out ? d.out : "", 1, d.len, t) != d.len || fclose(t) != 0) {
            perror(transcript);
            return 2;
        }
    }
    free(d.out);
    return failed;
}
