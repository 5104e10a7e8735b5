/* repl.c: the prompt loop, libedit set-up, Ctrl-C and the dot commands. */
#include "exec/run/request.h"
#include "client/repl/repl.h"

#include "exec/run/detect_plan.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <wchar.h>

#include "base/home.h"
#include "base/log.h"
#include "base/term.h"
#include "client/tools/common.h"
#include "client/tools/request.h"
#include "client/serverless/map_run.h"
#include "client/tools/lazy_lib.h"
#include "client/repl/cmd.h"
#include "client/repl/complete.h"
#include "client/repl/data.h"
#include "client/repl/lines.h"
#include "client/repl/schema.h"
#include "exec/mapscan.h"
#include "parser/parser.h"

#define HISTORY_SIZE 1000
#define READ_DEPTH_MAX 16   /* .read inside .read, as deep as this */
#define STATUS_CANCELLED 130
#define N_FORMATS 16   /* at least the number of log formats in the registry */

/* Set by SIGINT: at the prompt it drops the pending input, during a query
 * the engine stops (map_opts_t.cancel). */
static volatile sig_atomic_t repl_interrupted;

typedef struct repl {
    const cli_opts_t *o;              /* flags */
    const config_t *cfg;              /* config */
    const char *host;                 /* $hostname */
    repl_data_t data;                 /* the inputs */
    repl_lines_t lines;               /* the query being typed */
    enum result_form form;            /* .mode (--output at start) */
    int bail;                         /* stdin is no terminal: read it line by
                                         line, and leave at the first error */
    int quit;                         /* .quit ran */
    int read_depth;                   /* .read files open */
    int timer;                        /* .timer on: the summary after each query */
    char *output;                     /* .output FILE, NULL: the terminal */
    int output_append;                /* .output append FILE */
    enum plan_outfile_format output_format; /* by FILE's suffix, as outfile decides */
    const logformat_t *fmt;           /* the current log format */
    repl_schema_t schema[N_FORMATS];  /* per format of the registry, built lazily */
    int have_schema[N_FORMATS];       /* schema[i] is built */
    extract_env_t env;                /* common variables for samples */
    char tz[64], tzoff[32];           /* storage behind env */
    client_run_t run;                 /* error reporting */
    int wake[2];                      /* SIGINT's pipe: read end, write end */
    mbstate_t mb;                     /* decoding typed bytes */
    EditLine *el;                     /* libedit */
    History *hist;                    /* its history */
    char hist_path[4096];             /* ~/.dtail_history, "" if HOME is unknown */
} repl_t;

/* Set by SIGWINCH: libedit learns the new width before the next key. */
static volatile sig_atomic_t repl_resized;

static void on_sigwinch(int sig)
{
    (void)sig;
    repl_resized = 1;
}

/* The write end of a pipe the handler writes to, so the key reader sees a
 * Ctrl-C that arrives before it blocks, not only one that interrupts it. */
static int repl_wake_fd = -1;

static void on_sigint(int sig)
{
    (void)sig;
    repl_interrupted = 1;
    if (repl_wake_fd >= 0) {
        int saved = errno;
        ssize_t n = write(repl_wake_fd, "", 1);
        (void)n;
        errno = saved;
    }
}

/* Forgets a Ctrl-C that was handled (or pressed as a query ended). */
static void clear_interrupt(repl_t *r)
{
    char drain[64];
    while (r->wake[0] >= 0 && read(r->wake[0], drain, sizeof drain) > 0)
        ;
    repl_interrupted = 0;
}

static const char help_text[] =
    "Type a query; it runs when a line ends with ';' or after an empty line:\n"
    "  from STATS select count($line), avg($goroutines) group by $hostname;\n"
    "Tab completes keywords, functions, log formats and the fields of the data.\n"
    "Ctrl-C cancels the running query (or the input typed so far), Ctrl-D exits.\n"
    "\n"
    ".help                  this text\n"
    ".files                 the inputs, and whether they are kept in memory\n"
    ".mode table|csv|tsv|json  how results are shown (also .format)\n"
    ".output [append] FILE  write results to FILE (CSV, or SQLite for .sqlite/.db)\n"
    ".output                results back to the terminal\n"
    ".read FILE             run the queries and commands in FILE\n"
    ".timer on|off          the run summary (lines, groups, seconds) after each query\n"
    ".schema [LOGFORMAT]    the fields of the log format, with sample values\n"
    ".quit                  leave (also .exit, Ctrl-D)\n";

static int format_index(const logformat_t *fmt)
{
    for (int i = 0; logformat_all[i] && i < N_FORMATS; i++)
        if (logformat_all[i] == fmt)
            return i;
    return -1;
}

/* The schema of fmt over the sample (built once per format). */
static const repl_schema_t *schema_for(repl_t *r, const logformat_t *fmt)
{
    int i = format_index(fmt);
    if (i < 0)
        return NULL;
    if (!r->have_schema[i]) {
        err_t e;
        if (repl_schema_build(&r->schema[i], fmt, r->data.sample ? r->data.sample : "",
                              r->data.sample_len, &r->env, &e) < 0)
            return NULL;
        r->have_schema[i] = 1;
    }
    return &r->schema[i];
}

static int print_schema(repl_t *r, const char *name)
{
    const logformat_t *fmt = *name ? logformat_find(name) : r->fmt;
    if (!fmt) {
        fprintf(stderr, "unknown log format '%s'\n", name);
        return 2;
    }
    const repl_schema_t *s = schema_for(r, fmt);
    if (!s) {
        fprintf(stderr, "out of memory\n");
        return 1;
    }
    printf("log format %s: %s\n", fmt->name, fmt->summary);
    printf("(%u of %u sample lines parsed)\n", s->n_parsed, s->n_lines);
    size_t w = 0;
    for (size_t i = 0; i < s->n; i++)
        if (strlen(s->fields[i].name) > w)
            w = strlen(s->fields[i].name);
    for (size_t i = 0; i < s->n; i++)
        term_fprintf(stdout, "  %-*s  %s\n", (int)w, s->fields[i].name,   /* names and samples are data */
               s->fields[i].sample ? s->fields[i].sample : "(not in the sample)");
    fflush(stdout);
    return 0;
}

/* What .output says goes to stderr: stdout holds the results. */
static int set_output(repl_t *r, const repl_cmd_t *cmd)
{
    if (!cmd->arg[0]) {
        free(r->output);
        r->output = NULL;
        fprintf(stderr, "results go to the terminal\n");
        return 0;
    }
    char *path = strdup(cmd->arg);
    if (!path) {
        fprintf(stderr, "out of memory\n");
        return 1;
    }
    enum plan_outfile_format f = plan_outfile_format_of(path, strlen(path));
    free(r->output);
    r->output = path;
    r->output_append = cmd->append;
    r->output_format = f;
    fprintf(stderr, "results go to %s (%s%s)\n", path, f == PLAN_OUT_SQLITE ? "SQLite" : "CSV",
            cmd->append ? ", appended" : "");
    return 0;
}

static int read_file(repl_t *r, const char *path);

/* Runs a dot command; returns 0, or the exit status of its error. */
static int run_command(repl_t *r, const char *text)
{
    repl_cmd_t cmd;
    err_t e;
    if (repl_cmd_parse(text, &cmd, &e) < 0) {
        fprintf(stderr, "%s\n", e.msg);
        return err_exit_status(e.code);
    }
    int status = 0;
    switch (cmd.kind) {
    case REPL_CMD_HELP: fputs(help_text, stdout); break;
    case REPL_CMD_FILES: repl_data_describe(&r->data, stdout); break;
    case REPL_CMD_MODE: r->form = cmd.form; break;
    case REPL_CMD_OUTPUT: status = set_output(r, &cmd); break;
    case REPL_CMD_READ: status = read_file(r, cmd.arg); break;
    case REPL_CMD_TIMER: r->timer = cmd.on; break;
    case REPL_CMD_SCHEMA: status = print_schema(r, cmd.arg); break;
    case REPL_CMD_QUIT: r->quit = 1; break;
    }
    fflush(stdout);
    return status;
}

/* Whether fmt is one detection reads a query without logformat with. */
static int repl_detected(const logformat_t *fmt)
{
    static const char *const names[] = {"json", "logfmt", "nginx", "syslog", "csv", NULL};
    for (int i = 0; names[i]; i++)
        if (strcmp(fmt->name, names[i]) == 0)
            return 1;
    return 0;
}

/* Runs a query; returns 0, or the exit status of what failed (2 a query
 * error, 1 an input or the outfile, 130 cancelled). */
static int run_query(repl_t *r, const char *text)
{
    size_t len = strlen(text);
    if (len == 0)
        return 0;
    exec_request_t rq = {.kind = EXEC_MAP, .query = text, .timezone = client_timezone(r->o)};
    exec_env_t env = client_env(r->o, r->cfg, r->host);
    env.cancel = &repl_interrupted;
    exec_plan_t ep;
    err_t e;
    int rc = exec_plan_init(&ep, &rq, &env, &e);
    /* Without logformat and from, the format the session detected (the
     * one .schema shows), as dmap reads a file; DTail's lines and plain
     * text keep generic there too. */
    if ((rc == 0 ? exec_plan_detects(&ep) : e.code == ERR_QUERY) && repl_detected(r->fmt)) {
        err_t fe;
        if (rc == 0)
            exec_plan_free(&ep);
        int got = exec_plan_init_format(&ep, &rq, &env, r->fmt->name, &fe);
        if (got == 0)
            rc = 0;
        else if (rc == 0)
            rc = exec_plan_init(&ep, &rq, &env, &e);
    }
    if (rc < 0) {
        char buf[8192];
        exec_plan_error(&rq, &e, buf, sizeof buf);
        term_fprintf(stderr, "%s\n", buf);
        return err_exit_status(e.code);
    }
    const plan_t *plan = ep.map;
    for (size_t i = 0; i < plan->n_warnings; i++)
        fprintf(stderr, "warning: %s\n", plan->warnings[i].msg);
    /* A query that names its format makes it the one completion offers. */
    if (plan->logformat_given || plan->table)
        r->fmt = plan->logformat;
    /* .output is where a query without an outfile writes. */
    plan_t p = *plan;
    if (r->output && !p.outfile) {
        p.outfile = r->output;
        p.outfile_append = r->output_append;
        p.outfile_format = r->output_format;
        exec_plan_retarget(&ep, &p);
    }
    dmap_job_t job = {
        .plan = &ep,
        .query = text,
        .targets = r->data.targets,
        .n_targets = r->data.n,
        .mem_fds = r->data.mem_fds,
        .quiet = !r->timer,
        .color = client_palette(r->o, r->cfg),
        .form = r->form,
    };
    clear_interrupt(r);
    r->run.status = 0;
    int status;
    if (dmap_run(&job, &r->run)) {
        fprintf(stderr, "Query cancelled.\n");
        status = STATUS_CANCELLED;
    } else {
        status = r->run.status;
        if (p.outfile && status == 0)
            fprintf(stderr, "%s %s\n", p.outfile_append ? "appended to" : "wrote", p.outfile);
    }
    clear_interrupt(r);
    exec_plan_free(&ep);
    return status;
}

static char *prompt(EditLine *el)
{
    repl_t *r;
    edit_api.el_get(el, EL_CLIENTDATA, &r);
    return r->lines.n_lines ? (char *)"   ...> " : (char *)"dmap> ";
}

/* Prints candidates below the line, as many as fit on a row at a time. */
static void list_candidates(const repl_cands_t *c)
{
    size_t w = 0;
    for (size_t i = 0; i < c->n; i++)
        if (strlen(c->items[i]) > w)
            w = strlen(c->items[i]);
    size_t per_row = 100 / (w + 2) ? 100 / (w + 2) : 1;
    fputc('\n', stdout);
    for (size_t i = 0; i < c->n; i++)
        term_fprintf(stdout, "%-*s%s", (int)w + 2, c->items[i], (i + 1) % per_row == 0 || i + 1 == c->n ? "\n" : "");
    fflush(stdout);
}

static unsigned char complete(EditLine *el, int ch)
{
    (void)ch;
    repl_t *r;
    edit_api.el_get(el, EL_CLIENTDATA, &r);
    const LineInfo *li = edit_api.el_line(el);
    size_t len = (size_t)(li->lastchar - li->buffer), cur = (size_t)(li->cursor - li->buffer);
    char *line = strndup(li->buffer, len);
    if (!line)
        return CC_ERROR;
    /* The format named in the query so far, else the session's. */
    char name[64];
    const char *named = repl_complete_logformat(line, name, sizeof name);
    if (!named && r->lines.text)
        named = repl_complete_logformat(r->lines.text, name, sizeof name);
    const logformat_t *fmt = named && logformat_find(named) ? logformat_find(named) : r->fmt;
    const repl_schema_t *s = schema_for(r, fmt);
    const char **names = s ? calloc(s->n + 1, sizeof *names) : NULL;
    for (size_t i = 0; names && i < s->n; i++)
        names[i] = s->fields[i].name;
    repl_cands_t c;
    repl_cands_init(&c);
    size_t ws;
    int n = repl_complete(line, cur, names, names ? s->n : 0, &c, &ws);
    unsigned char rc = CC_ERROR;
    size_t typed = cur - ws, common = repl_cands_common(&c);
    if (n == 1 || (n > 1 && common > typed)) {
        char *ins = n == 1 ? strdup(c.items[0]) : strndup(c.items[0], common);
        if (ins) {
            edit_api.el_deletestr(el, (int)typed);
            edit_api.el_insertstr(el, ins);
            size_t k = strlen(ins);
            if (n == 1 && k && ins[k - 1] != '(')
                edit_api.el_insertstr(el, " ");
            rc = CC_REFRESH;
        }
        free(ins);
    } else if (n > 1) {
        list_candidates(&c);
        rc = CC_REDISPLAY;
    }
    repl_cands_free(&c);
    free(names);
    free(line);
    return rc;
}

/* libedit's key reader: one character from the terminal, or -1 with
 * EINTR once Ctrl-C was pressed (then el_gets returns NULL). */
static int read_key(EditLine *el, wchar_t *wc)
{
    repl_t *r;
    edit_api.el_get(el, EL_CLIENTDATA, &r);
    char buf[MB_LEN_MAX];
    size_t n = 0;
    for (;;) {
        struct pollfd p[2] = {{STDIN_FILENO, POLLIN, 0}, {r->wake[0], POLLIN, 0}};
        if (poll(p, 2, -1) < 0 && errno != EINTR)
            return -1;
        if (repl_resized) {
            repl_resized = 0;
            edit_api.el_resize(el);
        }
        if (repl_interrupted || (p[1].revents & POLLIN)) {
            char drain[64];
            while (read(r->wake[0], drain, sizeof drain) > 0)
                ;
            repl_interrupted = 1;
            errno = EINTR;
            return -1;
        }
        if (!(p[0].revents & (POLLIN | POLLHUP | POLLERR)))
            continue;
        ssize_t k = read(STDIN_FILENO, buf + n, 1);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0)
            return (int)k;
        n++;
        size_t rc = mbrtowc(wc, buf, n, &r->mb);
        if (rc == (size_t)-2 && n < sizeof buf)
            continue;   /* more bytes of this character to come */
        if (rc == (size_t)-1 || rc == (size_t)-2) {
            memset(&r->mb, 0, sizeof r->mb);
            *wc = (unsigned char)buf[0];   /* not in the locale's encoding: the byte */
        }
        return 1;
    }
}

static void history_path(repl_t *r)
{
    const char *home = home_dir();
    r->hist_path[0] = '\0';
    if (home)
        snprintf(r->hist_path, sizeof r->hist_path, "%s/.dtail_history", home);
}

static int editor_init(repl_t *r, err_t *e)
{
    HistEvent ev;
    if (edit_api_load(e) < 0)
        return -1;
    r->hist = edit_api.history_init();
    r->el = edit_api.el_init("dmap", stdin, stdout, stderr);
    if (!r->hist || !r->el)
        return err_set(e, ERR_IO, "cannot set up the terminal for the prompt");
    edit_api.history(r->hist, &ev, H_SETSIZE, HISTORY_SIZE);
    edit_api.history(r->hist, &ev, H_SETUNIQUE, 1);
    history_path(r);
    if (r->hist_path[0])
        edit_api.history(r->hist, &ev, H_LOAD, r->hist_path);   /* none yet is fine */
    edit_api.el_set(r->el, EL_CLIENTDATA, r);
    if (isatty(STDIN_FILENO))
        edit_api.el_set(r->el, EL_GETCFN, read_key);
    edit_api.el_set(r->el, EL_EDITOR, "emacs");
    edit_api.el_set(r->el, EL_PROMPT, prompt);
    edit_api.el_set(r->el, EL_HIST, edit_api.history, r->hist);
    /* The wide call: the narrow one copies the names and never frees them. */
    edit_api.el_wset(r->el, EL_ADDFN, L"dmap-complete", L"complete a keyword, function, format or field",
            complete);
    edit_api.el_set(r->el, EL_BIND, "^I", "dmap-complete", NULL);
    return 0;
}

static void remember(repl_t *r, const repl_lines_t *q)
{
    if (!r->hist)
        return;
    char *h = repl_lines_history(q);
    if (!h)
        return;
    HistEvent ev;
    edit_api.history(r->hist, &ev, H_ENTER, h);
    if (r->hist_path[0] && edit_api.history(r->hist, &ev, H_SAVE, r->hist_path) < 0)
        LOG_WARN("cannot write history file|%s", r->hist_path);
    free(h);
}

/* One input line into q (typed: from the terminal, into the history);
 * "" at the end of the input runs a query still pending without its ';'.
 * Returns 0, or the exit status of what failed. */
static int handle_line(repl_t *r, repl_lines_t *q, const char *line, int typed)
{
    int status = 0;
    switch (repl_lines_add(q, line)) {
    case REPL_LINE_MORE:
    case REPL_LINE_NOTHING:
        return 0;
    case REPL_LINE_NOMEM:
        fprintf(stderr, "out of memory: the query was dropped\n");
        return 1;
    case REPL_LINE_COMMAND:
        if (typed)
            remember(r, q);
        status = run_command(r, q->text);
        break;
    case REPL_LINE_QUERY:
        if (typed)
            remember(r, q);
        status = run_query(r, q->text);
        break;
    }
    repl_lines_clear(q);
    return status;
}

/* Whether to stop after status: .quit, a cancel, or any error when
 * bailing (stdin is no terminal). */
static int stops(const repl_t *r, int status)
{
    return r->quit || status == STATUS_CANCELLED || (status && r->bail);
}

/* Feeds the lines of f to handle_line, then the end of input. Returns 0,
 * or the status of the error it stopped at (bailing; else the last). */
static int feed_lines(repl_t *r, FILE *f, repl_lines_t *q, int typed)
{
    char *line = NULL;
    size_t cap = 0;
    int status = 0;
    for (;;) {
        ssize_t n = getline(&line, &cap, f);
        if (n < 0 && repl_interrupted) {
            status = STATUS_CANCELLED;   /* Ctrl-C while reading a pipe */
            break;
        }
        int st = handle_line(r, q, n < 0 ? "" : (line[strcspn(line, "\n")] = '\0', line), typed);
        if (st)
            status = st;
        if (n < 0 || stops(r, st))
            break;
    }
    if (ferror(f) && !status && !repl_interrupted) {
        fprintf(stderr, "reading the input failed\n");
        status = 1;
    }
    free(line);
    return status;
}

static int read_file(repl_t *r, const char *path)
{
    if (r->read_depth >= READ_DEPTH_MAX) {
        fprintf(stderr, ".read %s: .read nested more than %d deep\n", path, READ_DEPTH_MAX);
        return 2;
    }
    FILE *f = fopen(path, "re");
    if (!f) {
        term_fprintf(stderr, ".read %s: %s\n", path, strerror(errno));
        return 1;
    }
    repl_lines_t q;
    repl_lines_init(&q);
    r->read_depth++;
    int status = feed_lines(r, f, &q, 0);
    r->read_depth--;
    repl_lines_free(&q);
    fclose(f);
    return status;
}

static void loop(repl_t *r)
{
    for (;;) {
        int count = 0;
        /* The terminal in editing mode before the prompt shows, so that
         * keys typed ahead (while a query ran) reach libedit, not the
         * cooked line discipline (which would swallow a Ctrl-D). */
        edit_api.el_set(r->el, EL_PREP_TERM, 1);
        const char *line = edit_api.el_gets(r->el, &count);
        if (!line && repl_interrupted) {
            /* Ctrl-C at the prompt: drop what was typed, prompt again. */
            clear_interrupt(r);
            repl_lines_clear(&r->lines);
            fputs("^C\n", stdout);
            edit_api.el_reset(r->el);
            continue;
        }
        if (!line) {
            fputc('\n', stdout);   /* Ctrl-D: a query typed without ';' still runs */
            handle_line(r, &r->lines, "", 1);
            return;
        }
        clear_interrupt(r);
        char *copy = strdup(line);
        if (!copy)
            return;
        copy[strcspn(copy, "\n")] = '\0';
        handle_line(r, &r->lines, copy, 1);
        free(copy);
        if (r->quit)
            return;
    }
}

int repl_main(const cli_opts_t *o, const config_t *cfg, const char *host,
              const target_list_t *targets)
{
    repl_t *r = calloc(1, sizeof *r);
    if (!r) {
        fprintf(stderr, "dmap: out of memory\n");
        return 1;
    }
    r->o = o;
    r->cfg = cfg;
    r->wake[0] = r->wake[1] = -1;
    r->host = host;
    r->run = (client_run_t){"dmap", 0};
    mapscan_local_zone(r->tz, sizeof r->tz, r->tzoff, sizeof r->tzoff);
    r->env = (extract_env_t){.hostname = host, .timezone = r->tz, .timeoffset = r->tzoff};
    repl_lines_init(&r->lines);
    r->form = o->form;
    r->bail = !isatty(STDIN_FILENO);
    err_t e;
    int status = 0;
    if (repl_data_load(&r->data, targets->items, targets->n, REPL_MEMORY_BUDGET, &r->run, &e) < 0) {
        fprintf(stderr, "dmap: %s\n", e.msg);
        status = 1;
    } else if (!r->bail && editor_init(r, &e) < 0) {
        fprintf(stderr, "dmap: %s\n", e.msg);
        status = 1;
    } else {
        r->fmt = repl_schema_guess(r->data.sample ? r->data.sample : "", r->data.sample_len);
        if (repl_detected(r->fmt))
            term_fprintf(stderr, "dmap: %s: detected logformat %s\n",
                         targets->n ? targets->items[0].path : "-", r->fmt->name);
        if (pipe2(r->wake, O_CLOEXEC | O_NONBLOCK) == 0)
            repl_wake_fd = r->wake[1];
        else
            r->wake[0] = r->wake[1] = -1;
        struct sigaction sa;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = on_sigint;   /* no SA_RESTART: a blocked read returns */
        sigemptyset(&sa.sa_mask);
        struct sigaction old, old_winch;
        sigaction(SIGINT, &sa, &old);
        if (r->bail) {
            /* A pipe: its lines as typed, no prompt, and stdout holds only
             * what the queries and commands print. */
            status = feed_lines(r, stdin, &r->lines, 0);
        } else {
            sa.sa_handler = on_sigwinch;
            sigaction(SIGWINCH, &sa, &old_winch);
            printf("dmap %zu input(s), log format %s; .help for help, Ctrl-D to leave\n",
                   targets->n, r->fmt->name);
            fflush(stdout);
            loop(r);
            sigaction(SIGWINCH, &old_winch, NULL);
        }
        sigaction(SIGINT, &old, NULL);
        repl_wake_fd = -1;
        if (r->wake[0] >= 0) {
            close(r->wake[0]);
            close(r->wake[1]);
        }
    }
    if (r->el)
        edit_api.el_end(r->el);
    if (r->hist)
        edit_api.history_end(r->hist);
    for (int i = 0; i < N_FORMATS; i++)
        if (r->have_schema[i])
            repl_schema_free(&r->schema[i]);
    repl_data_free(&r->data);
    repl_lines_free(&r->lines);
    free(r->output);
    free(r);
    return status;
}
