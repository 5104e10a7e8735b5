/* detect_plan.c: see detect_plan.h. */
#include "exec/run/detect_plan.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "exec/extract/detect.h"
#include "exec/scan/input.h"

int exec_plan_detects(const exec_plan_t *p)
{
    return p->map && !p->map->logformat_given && !p->map->table;
}

const char *exec_detect_file(const char *path)
{
    err_t e;
    err_clear(&e);
    input_t *in = input_open(path, &e);
    if (!in)
        return NULL;
    /* On the heap, once per file: a thread-local buffer would be zeroed
     * into every thread of the process when it starts (a dmap client's
     * thread per server, a dserver's per session). */
    char *buf = malloc(DETECT_SAMPLE);
    if (!buf) {
        input_close(in);
        return NULL;
    }
    size_t len = 0;
    while (len < DETECT_SAMPLE) {
        ssize_t n = input_read(in, buf + len, DETECT_SAMPLE - len, &e);
        if (n <= 0)
            break;
        len += (size_t)n;
    }
    input_close(in);
    size_t i = 0;
    while (i < len && (buf[i] == ' ' || buf[i] == '\t' || buf[i] == '\r' || buf[i] == '\n'))
        i++;
    const char *f = i == len ? NULL : extract_detect(buf, len);
    free(buf);
    if (!f)
        return NULL;
    /* A query without from reads DTail's lines as DTail does: all of them. */
    return strcmp(f, "default") == 0 ? "generic" : f;
}

int exec_detect_files(const char *const *paths, const char *const *names, size_t n,
                      exec_detection_t *d, err_t *e)
{
    *d = (exec_detection_t){.format = "generic"};
    if (!names)
        names = paths;
    for (size_t i = 0; i < n; i++) {
        const char *f = exec_detect_file(paths[i]);
        if (!f)
            continue;
        if (!d->first) {
            d->format = f;
            d->first = names[i];
        } else if (strcmp(f, d->format) != 0) {
            return err_set(e, ERR_USAGE, "%s is %s, %s is %s: the files have different log "
                                         "formats; give the query a logformat clause (or query "
                                         "them apart)", d->first, d->format, names[i], f);
        }
        d->n_files++;
    }
    return 0;
}

void exec_detection_text(const exec_detection_t *d, char *buf, size_t cap)
{
    if (d->n_files > 1)
        snprintf(buf, cap, "%s and %zu more: detected logformat %s", d->first, d->n_files - 1,
                 d->format);
    else
        snprintf(buf, cap, "%s: detected logformat %s", d->first ? d->first : "-", d->format);
}

/* The clause replaced one of the query's if it warns at its own offset. */
int exec_plan_init_format(exec_plan_t *p, const exec_request_t *rq, const exec_env_t *env,
                            const char *name, err_t *e)
{
    /* The grammar's own clause, on a line of its own (after a comment, if
     * the query ends in one), so the plan is exactly the one the user
     * would get by writing it. */
    size_t qlen = strlen(rq->query), n = qlen + strlen(name) + 16;
    char *text = malloc(n);
    if (!text)
        return err_set(e, ERR_NOMEM, "out of memory");
    snprintf(text, n, "%s\nlogformat %s", rq->query, name);
    exec_request_t again = *rq;
    again.query = text;
    int rc = exec_plan_init(p, &again, env, e);
    free(text);
    if (rc < 0)
        return -1;
    int own = p->map->table != NULL;
    for (size_t i = 0; i < p->map->n_warnings; i++)
        own |= p->map->warnings[i].offset > qlen;
    if (own) {
        exec_plan_free(p);
        return 1;
    }
    return 0;
}

static const char *const detectable[] = {"json", "logfmt", "nginx", "syslog", "csv", NULL};

int exec_plan_init_detect(exec_plan_t *p, const exec_request_t *rq, const exec_env_t *env,
                          const char *const *paths, const char *const *names, size_t n,
                          exec_detection_t *d, err_t *e)
{
    *d = (exec_detection_t){.format = "generic"};
    int rc = exec_plan_init(p, rq, env, e);
    if (rq->kind != EXEC_MAP || (rc == 0 && !exec_plan_detects(p)) ||
        (rc < 0 && e->code != ERR_QUERY))
        return rc;
    err_t first = *e;
    if (!paths) {
        for (int i = 0; rc < 0 && detectable[i]; i++) {
            err_t ignored;
            if (exec_plan_init_format(p, rq, env, detectable[i], &ignored) == 0)
                return 0;
        }
        *e = first;
        return rc;
    }
    if (exec_detect_files(paths, names, n, d, e) < 0) {
        if (rc == 0)
            exec_plan_free(p);
        d->first = NULL;
        return -1;
    }
    if (strcmp(d->format, "generic") == 0) {
        d->first = NULL;
        *e = first;
        return rc;
    }
    if (rc == 0)
        exec_plan_free(p);
    int got = exec_plan_init_format(p, rq, env, d->format, e);
    if (got == 0)
        return 0;
    d->first = NULL;
    if (got < 0 && rc == 0)
        return -1;
    /* The query's own format after all: its own plan and error. */
    *e = first;
    return rc == 0 ? exec_plan_init(p, rq, env, e) : rc;
}
