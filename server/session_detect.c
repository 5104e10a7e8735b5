/* session_detect.c: the log format of a map request's files, for a query
 * with neither logformat nor from (exec/run/detect_plan.h): the server
 * sees the files, the client does not, so the server detects, on the
 * files the user may read (each through the permission check, sampled
 * through the checked descriptor), and tells the client the choice in a
 * MESSAGE. The same files give the same choice serverless and here, so
 * the results are the same bytes. Refused and missing files have no say
 * (the run reports them as always). */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/log.h"
#include "exec/run/detect_plan.h"
#include "exec/scan/journal_spec.h"
#include "exec/scan/targets.h"
#include "server/permissions.h"
#include "server/session_int.h"

#define DETECT_MAX_FILES 64   /* files sampled: the first of the request's */

typedef struct sampled {
    char *link[DETECT_MAX_FILES];   /* /proc/self/fd/N of the checked file */
    char *name[DETECT_MAX_FILES];   /* the path as the target list has it */
    int fd[DETECT_MAX_FILES];
    size_t n;
} sampled_t;

static void sample_target(session_t *ss, const target_t *t, sampled_t *s)
{
    if (s->n == DETECT_MAX_FILES || journal_spec_is(t->path, strlen(t->path)))
        return;
    char canonical[4096], detail[4096], link[64];
    int fd = -1;
    if (perm_open(ss->rules, &ss->user, t->path, &fd, canonical, sizeof canonical, detail,
                  sizeof detail) != PERM_OK)
        return;
    snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
    s->link[s->n] = strdup(link);
    s->name[s->n] = strdup(t->path);
    s->fd[s->n] = fd;
    if (!s->link[s->n] || !s->name[s->n]) {
        free(s->link[s->n]);
        free(s->name[s->n]);
        close(fd);
        return;
    }
    s->n++;
}

int session_plan_map(session_t *ss, exec_plan_t *p, const exec_request_t *rq,
                     const exec_env_t *env)
{
    err_t e;
    int rc = exec_plan_init(p, rq, env, &e);
    if (rc == 0 ? !exec_plan_detects(p) : e.code != ERR_QUERY) {
        if (rc == 0)
            return 0;
        char buf[4096];
        exec_plan_error(rq, &e, buf, sizeof buf);
        return session_send_end(ss, WIRE_END_FAILED, buf) < 0 ? -1 : 1;
    }
    if (rc == 0)
        exec_plan_free(p);
    sampled_t s = {.n = 0};
    const char *list = rq->files;
    char *spec = NULL;
    while (s.n < DETECT_MAX_FILES && session_next_spec(&list, &spec) > 0) {
        target_list_t tl;
        target_list_init(&tl);
        session_expand_spec(ss, spec, &tl, 0, NULL, NULL);
        for (size_t i = 0; i < tl.n; i++)
            sample_target(ss, &tl.items[i], &s);
        target_list_free(&tl);
        free(spec);
        spec = NULL;
    }
    free(spec);
    exec_detection_t d;
    err_clear(&e);
    rc = exec_plan_init_detect(p, rq, env, (const char *const *)s.link,
                               (const char *const *)s.name, s.n, &d, &e);
    if (rc == 0 && d.first) {
        char text[4400];
        exec_detection_text(&d, text, sizeof text);
        LOG_INFO("Detected log format|%s", text);
        session_send_message(ss, LOG_WARN, text);   /* shown, as serverless */
    }
    for (size_t i = 0; i < s.n; i++) {
        free(s.link[i]);
        free(s.name[i]);
        close(s.fd[i]);
    }
    if (rc == 0)
        return 0;
    char buf[4096];
    exec_plan_error(rq, &e, buf, sizeof buf);
    return session_send_end(ss, WIRE_END_FAILED, buf) < 0 ? -1 : 1;
}
