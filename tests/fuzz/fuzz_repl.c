/* fuzz_repl.c: libFuzzer target over what the REPL reads from the data and
 * from the user without the engine's parser: the field names of a sample
 * (every log format, including JSON keys and CSV headers), dot commands,
 * multi-line assembly and completion candidates.
 *
 * The first byte picks the log format; the rest is the sample, also used
 * as a command line and a line being completed. Nothing may crash, leak or
 * report a field without a name. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "client/repl/cmd.h"
#include "client/repl/complete.h"
#include "client/repl/lines.h"
#include "client/repl/schema.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0)
        return 0;
    size_t n_formats = 0;
    while (logformat_all[n_formats])
        n_formats++;
    const logformat_t *fmt = logformat_all[data[0] % n_formats];
    const char *text = (const char *)data + 1;
    size_t len = size - 1;
    const extract_env_t env = {"host", "UTC", "0"};
    repl_schema_t s;
    err_t e;
    if (repl_schema_build(&s, fmt, text, len, &env, &e) == 0) {
        const char **names = calloc(s.n + 1, sizeof *names);
        for (size_t i = 0; i < s.n; i++) {
            if (!s.fields[i].name[0])
                abort();
            if (names)
                names[i] = s.fields[i].name;
        }
        /* The sample as one NUL-terminated line, completed at its end. */
        char *line = strndup(text, len);
        if (line && names) {
            repl_cands_t c;
            repl_cands_init(&c);
            size_t ws;
            size_t cur = strlen(line);
            if (repl_complete(line, cur, names, s.n, &c, &ws) >= 0 &&
                (ws > cur || repl_cands_common(&c) > (c.n ? strlen(c.items[0]) : 0)))
                abort();
            repl_cands_free(&c);
            repl_cmd_t cmd;
            repl_cmd_parse(line, &cmd, &e);
            repl_lines_t q;
            repl_lines_init(&q);
            for (char *p = line, *nl; p; p = nl ? nl + 1 : NULL) {
                nl = strchr(p, '\n');
                if (nl)
                    *nl = '\0';
                if (repl_lines_add(&q, p) != REPL_LINE_MORE)
                    repl_lines_clear(&q);
            }
            free(repl_lines_history(&q));
            repl_lines_free(&q);
        }
        free(line);
        free(names);
        repl_schema_free(&s);
    }
    (void)repl_schema_guess(text, len);
    return 0;
}
