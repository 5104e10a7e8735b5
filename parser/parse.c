/* parser/parse.c: placeholder driver until the query-language issue lands. */
#include <stdlib.h>
#include "query.h"

void *QueryParseAlloc(void *(*)(size_t));
void QueryParse(void *, int, int, int *);
void QueryParseFree(void *, void (*)(void *));

int parse_count_words(int n)
{
    int count = 0;
    void *p = QueryParseAlloc(malloc);
    for (int i = 0; i < n; i++)
        QueryParse(p, TK_WORD, 0, &count);
    QueryParse(p, 0, 0, &count);
    QueryParseFree(p, free);
    return count;
}
