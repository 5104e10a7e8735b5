/* test_parser_tokenize.c: the query tokenizer (parser/tokenize.c) against
 * DTail's rules (dtail-behaviour.md §2.1). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "parser/parse_int.h"
#include "query.h"

typedef struct {
    int type;
    size_t off, len;
} tok_t;

/* Tokenizes s as the words of a clause with query_token flags `flags`,
 * skipping separators; returns the number of tokens. */
static size_t lex_in(const char *s, unsigned flags, tok_t *out, size_t max)
{
    size_t n = strlen(s), k = 0;
    for (size_t i = 0; i < n;) {
        int type;
        size_t l = query_token(s, n, i, flags, &type);
        assert_true(l >= 1);
        if (type != TK_SPACE && k < max)
            out[k++] = (tok_t){ type, i, l };
        i += l;
    }
    return k;
}

/* The words of a one-word clause (from, outfile, ...). */
static size_t lex(const char *s, tok_t *out, size_t max)
{
    return lex_in(s, 0, out, max);
}

static void test_separators(void **state)
{
    (void)state;
    tok_t t[16];
    /* Commas are separators like spaces (DTail replaces them). */
    assert_int_equal(lex("select a,b ,, c\t\n", t, 16), 4);
    assert_int_equal(t[0].type, TK_SELECT);
    assert_int_equal(t[1].type, TK_ID);
    assert_int_equal(t[1].off, 7);
    assert_int_equal(t[1].len, 1);
    assert_int_equal(t[2].off, 9);
    assert_int_equal(t[3].off, 14);
}

static void test_keywords_case_insensitive(void **state)
{
    (void)state;
    static const struct { const char *w; int type; } cases[] = {
        {"select", TK_SELECT}, {"SELECT", TK_SELECT}, {"SeLeCt", TK_SELECT},
        {"from", TK_FROM}, {"FROM", TK_FROM}, {"where", TK_WHERE},
        {"set", TK_SET}, {"group", TK_GROUP}, {"order", TK_ORDER},
        {"rorder", TK_RORDER}, {"Interval", TK_INTERVAL}, {"LIMIT", TK_LIMIT},
        {"outfile", TK_OUTFILE}, {"logformat", TK_LOGFORMAT},
        {"by", TK_BY}, {"BY", TK_BY}, {"and", TK_AND}, {"AND", TK_AND},
        {"eq", TK_EQS}, {"EQ", TK_EQS}, {"ne", TK_NES},
        {"contains", TK_CONTAINS}, {"NCONTAINS", TK_NCONTAINS},
        {"lacks", TK_LACKS}, {"hasprefix", TK_HASPREFIX},
        {"nhasprefix", TK_NHASPREFIX}, {"hassuffix", TK_HASSUFFIX},
        {"nhassuffix", TK_NHASSUFFIX},
        /* append is only a keyword in lower case (DTail compares exactly) */
        {"append", TK_APPEND}, {"APPEND", TK_ID}, {"Append", TK_ID},
        /* the extensions: having is a clause keyword; or, not, in, matches
         * and nmatches words of their own that fall back to names */
        {"having", TK_HAVING}, {"HAVING", TK_HAVING}, {"or", TK_OR}, {"Or", TK_OR},
        {"not", TK_NOT}, {"in", TK_IN}, {"IN", TK_IN}, {"matches", TK_MATCHES},
        {"nmatches", TK_NMATCHES}, {"inn", TK_ID}, {"ors", TK_ID},
        /* not keywords */
        {"selects", TK_ID}, {"count", TK_ID}, {"desc", TK_ID}, {"s", TK_ID},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        int type = query_word_type(cases[i].w, strlen(cases[i].w));
        if (type != cases[i].type)
            fail_msg("%s: got %d, want %d", cases[i].w, type, cases[i].type);
    }
}

static void test_operators(void **state)
{
    (void)state;
    static const struct { const char *w; int type; } cases[] = {
        {"==", TK_EQ}, {"!=", TK_NE}, {"<", TK_LT}, {"<=", TK_LE}, {"=<", TK_LE},
        {">", TK_GT}, {">=", TK_GE}, {"=>", TK_GE}, {"=", TK_ASSIGN},
        {"<>", TK_ID}, {"===", TK_ID}, {"!", TK_ID}, {"~", TK_ID},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        assert_int_equal(query_word_type(cases[i].w, strlen(cases[i].w)), cases[i].type);
    /* An operator must be its own word: a>1 is one bareword, as in DTail. */
    tok_t t[4];
    assert_int_equal(lex("a>1", t, 4), 1);
    assert_int_equal(t[0].type, TK_ID);
}

static void test_numbers(void **state)
{
    (void)state;
    const char *num[] = {"0", "3", "-1", "+2", "0.5", ".5", "5.", "1e3", "1.5E-2", "42"};
    const char *not_num[] = {"1002-071949", "1e", "e3", "-", ".", "5m", "1.2.3", "0x10",
                             "inf", "nan", "1_000"};
    for (size_t i = 0; i < sizeof num / sizeof num[0]; i++) {
        assert_true(query_is_number(num[i], strlen(num[i])));
        assert_int_equal(query_word_type(num[i], strlen(num[i])), TK_NUMBER);
    }
    for (size_t i = 0; i < sizeof not_num / sizeof not_num[0]; i++) {
        if (query_is_number(not_num[i], strlen(not_num[i])))
            fail_msg("%s read as a number", not_num[i]);
        assert_int_not_equal(query_word_type(not_num[i], strlen(not_num[i])), TK_NUMBER);
    }
}

static void test_strings(void **state)
{
    (void)state;
    tok_t t[8];
    /* A string keeps spaces and commas (its escapes are ast.c's). */
    const char *s = "where $line contains \"a, b  c\" x";
    assert_int_equal(lex(s, t, 8), 5);
    assert_int_equal(t[3].type, TK_STRING);
    assert_int_equal(t[3].off, 21);
    assert_int_equal(t[3].len, 9);
    /* A quote always ends a word: foo"bar" is foo then "bar". */
    assert_int_equal(lex("foo\"bar\"", t, 8), 2);
    assert_int_equal(t[0].type, TK_ID);
    assert_int_equal(t[1].type, TK_STRING);
    /* The empty string is a token (DTail drops it; see docs). */
    assert_int_equal(lex("\"\"", t, 8), 1);
    assert_int_equal(t[0].type, TK_STRING);
    assert_int_equal(t[0].len, 2);
    /* Unterminated: ILLEGAL up to the end. */
    assert_int_equal(lex("a \"bc", t, 8), 2);
    assert_int_equal(t[1].type, TK_ILLEGAL);
    assert_int_equal(t[1].off, 2);
    assert_int_equal(t[1].len, 3);
}

static void test_backticks(void **state)
{
    (void)state;
    tok_t t[8];
    assert_int_equal(lex("select `count($time)`,`from`", t, 8), 3);
    assert_int_equal(t[1].type, TK_BQUOTED);
    assert_int_equal(t[1].len, 14);
    assert_int_equal(t[2].type, TK_BQUOTED);
    /* Inside a word a backtick is an ordinary byte. */
    assert_int_equal(lex("a`b", t, 8), 1);
    assert_int_equal(t[0].type, TK_ID);
    /* Unterminated and empty names are illegal. */
    assert_int_equal(lex("`abc", t, 8), 1);
    assert_int_equal(t[0].type, TK_ILLEGAL);
    assert_int_equal(lex("``", t, 8), 1);
    assert_int_equal(t[0].type, TK_ILLEGAL);
}

static void test_parens_and_words(void **state)
{
    (void)state;
    tok_t t[16];
    /* Parentheses are tokens of their own; paths and times stay words. */
    assert_int_equal(lex("count($line) /tmp/a-b.csv append:X 1002-071949 *", t, 16), 8);
    assert_int_equal(t[0].type, TK_ID);
    assert_int_equal(t[1].type, TK_LP);
    assert_int_equal(t[2].type, TK_ID);
    assert_int_equal(t[3].type, TK_RP);
    assert_int_equal(t[4].len, 12);
    assert_int_equal(t[5].type, TK_ID);   /* append:X is not `append` */
    assert_int_equal(t[5].len, 8);
    assert_int_equal(t[6].type, TK_ID);
    assert_int_equal(t[7].type, TK_ID);
    /* A NUL byte is illegal. */
    int type;
    assert_int_equal(query_token("a\0b", 3, 1, 0, &type), 1);
    assert_int_equal(type, TK_ILLEGAL);
    /* UTF-8 is part of a word. */
    assert_int_equal(lex("caf\xc3\xa9 x", t, 16), 2);
    assert_int_equal(t[0].len, 5);
}

/* A backslash escapes the byte after it: \" does not end a string, \\"
 * does (the escape is the backslash's). */
static void test_string_escapes(void **state)
{
    (void)state;
    tok_t t[8];
    assert_int_equal(lex("\"a\\\"b\" x", t, 8), 2);
    assert_int_equal(t[0].type, TK_STRING);
    assert_int_equal(t[0].len, 6);
    assert_int_equal(lex("\"a\\\\\" x", t, 8), 2);
    assert_int_equal(t[0].type, TK_STRING);
    assert_int_equal(t[0].len, 5);
    /* "x\" never closes: the quote is escaped. */
    assert_int_equal(lex("\"x\\\"", t, 8), 1);
    assert_int_equal(t[0].type, TK_ILLEGAL);
}

/* In the clauses of expressions * and / are tokens; + and - only as words
 * of their own or right after ')'; a one-word clause keeps them all. */
static void test_arith_tokens(void **state)
{
    (void)state;
    tok_t t[16];
    assert_int_equal(lex_in("sum(bytes)/1024", QUERY_TOKEN_EXPR, t, 16), 6);
    assert_int_equal(t[4].type, TK_SLASH);
    assert_int_equal(t[5].type, TK_NUMBER);
    assert_int_equal(lex_in("count($line)*100/sum(total)", QUERY_TOKEN_EXPR, t, 16), 11);
    assert_int_equal(t[4].type, TK_STAR);
    assert_int_equal(t[5].type, TK_NUMBER);
    assert_int_equal(t[6].type, TK_SLASH);
    assert_int_equal(t[7].type, TK_ID);
    assert_int_equal(t[7].len, 3);
    /* a-b, 1002-071949 and -1 stay words; a - b and a)-1 are operators */
    assert_int_equal(lex_in("user-agent 1002-071949 -1 +2", QUERY_TOKEN_EXPR, t, 16), 4);
    assert_int_equal(t[0].type, TK_ID);
    assert_int_equal(t[0].len, 10);
    assert_int_equal(t[2].type, TK_NUMBER);
    assert_int_equal(t[3].type, TK_NUMBER);
    assert_int_equal(lex_in("a - b + c", QUERY_TOKEN_EXPR, t, 16), 5);
    assert_int_equal(t[1].type, TK_MINUS);
    assert_int_equal(t[3].type, TK_PLUS);
    assert_int_equal(lex_in("sum(a)-1 max(b)+2", QUERY_TOKEN_EXPR, t, 16), 12);
    assert_int_equal(t[4].type, TK_MINUS);
    assert_int_equal(t[5].type, TK_NUMBER);
    assert_int_equal(t[10].type, TK_PLUS);
    /* a*b and a/b: three tokens; a lone * too */
    assert_int_equal(lex_in("a*b a/b *", QUERY_TOKEN_EXPR, t, 16), 7);
    assert_int_equal(t[1].type, TK_STAR);
    assert_int_equal(t[4].type, TK_SLASH);
    assert_int_equal(t[6].type, TK_STAR);
    /* one-word clauses: paths and globs are words */
    assert_int_equal(lex("/tmp/a*.csv - +", t, 16), 3);
    assert_int_equal(t[0].type, TK_ID);
    assert_int_equal(t[0].len, 11);
    assert_int_equal(t[1].type, TK_ID);
    assert_int_equal(t[2].type, TK_ID);
    assert_int_equal(query_token_flags(TK_OUTFILE), 0);
    assert_int_equal(query_token_flags(TK_HAVING), QUERY_TOKEN_EXPR);
}

static void test_token_names(void **state)
{
    (void)state;
    assert_string_equal(query_token_name(0), "end of query");
    assert_string_equal(query_token_name(TK_SELECT), "select");
    assert_string_equal(query_token_name(TK_LE), "<=");
    assert_string_equal(query_token_name(TK_LACKS), "lacks");
    assert_string_equal(query_token_name(TK_HAVING), "having");
    assert_string_equal(query_token_name(TK_SLASH), "/");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_separators),
        cmocka_unit_test(test_keywords_case_insensitive),
        cmocka_unit_test(test_operators),
        cmocka_unit_test(test_numbers),
        cmocka_unit_test(test_strings),
        cmocka_unit_test(test_backticks),
        cmocka_unit_test(test_parens_and_words),
        cmocka_unit_test(test_string_escapes),
        cmocka_unit_test(test_arith_tokens),
        cmocka_unit_test(test_token_names),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
