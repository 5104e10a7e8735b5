/* fuzz_query.c: libFuzzer target over the query front end.
 *
 * Any input must either fail with an error that points inside the text, or
 * parse into a plan whose canonical text parses back to the same plan:
 * parse(print(parse(q))) == parse(q). ASan/LSan catch leaks on both paths. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "parser/parser.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *text = (const char *)data;
    query_t *q = NULL;
    err_t e;
    if (query_parse(text, size, NULL, &q, &e) != 0) {
        if (q || e.code == ERR_NONE || e.offset < 0 || (size_t)e.offset > size ||
            e.msg[0] == '\0')
            abort();
        char buf[512];
        query_error_format(text, size, &e, buf, sizeof buf);
        return 0;
    }
    const char *canon = query_canonical(q);
    const char *explain = query_explain(q);
    query_t *q2 = NULL;
    if (query_parse(canon, strlen(canon), NULL, &q2, &e) != 0) {
        fprintf(stderr, "canonical text does not parse: [%s]: %s at %ld\n", canon, e.msg,
                e.offset);
        abort();
    }
    if (strcmp(canon, query_canonical(q2)) != 0 || !explain ||
        strcmp(explain, query_explain(q2)) != 0) {
        fprintf(stderr, "round trip differs:\n[%s]\n[%s]\n%s---\n%s", canon,
                query_canonical(q2), explain, query_explain(q2));
        abort();
    }
    query_free(q2);
    query_free(q);
    return 0;
}
