/* fuzz_interactive_cmd.c: libFuzzer target over the --interactive-query
 * command language (client/interactive/cmd.h), for every mode's flag set.
 *
 * Any line must either parse (a reload then changes at least one flag) or
 * fail with a message; tokens never contain more bytes than the line. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "client/interactive/cmd.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *line = malloc(size + 1);
    if (!line)
        return 0;
    memcpy(line, data, size);
    line[size] = '\0';   /* a control line ends at its first NUL, as a C string */
    static const unsigned modes[] = {
        ICMD_ALLOW_COMMON, ICMD_ALLOW_COMMON | ICMD_ALLOW_QUERY, ICMD_ALLOW_COMMON | ICMD_ALLOW_GREP};
    for (size_t i = 0; i < sizeof modes / sizeof *modes; i++) {
        icmd_t c;
        err_t e;
        err_clear(&e);
        if (icmd_parse(line, modes[i], &c, &e) < 0) {
            if (e.msg[0] == '\0')
                abort();
            continue;
        }
        if (c.kind == ICMD_RELOAD && !c.has)
            abort();
        cli_opts_t o;
        memset(&o, 0, sizeof o);
        icmd_apply(&c, &o);
        icmd_free(&c);
    }
    char **argv;
    int argc;
    err_t e;
    if (icmd_tokenize(line, &argv, &argc, &e) == 0) {
        size_t total = 0;
        for (int i = 0; i < argc; i++)
            total += strlen(argv[i]);
        if (total > strlen(line))
            abort();
        icmd_free_tokens(argv);
    }
    free(line);
    return 0;
}
