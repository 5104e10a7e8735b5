/* parser/tokenize.c: cuts query text into tokens.
 *
 * DTail's rules (dtail-behaviour.md §2.1): commas are separators like
 * whitespace; a `backticked` name is a literal field name; keywords and
 * string operators are case-insensitive; `append` is recognised only in
 * lower case. We additionally cut '(' and ')' as tokens of their own, so
 * that `count( $line )` reads like `count($line)`; a "quoted" string may
 * hold \" (ast.c decodes its escapes); and in the clauses that hold
 * expressions (QUERY_TOKEN_EXPR) the arithmetic operators are tokens:
 * '*' and '/' always, '+' and '-' as words of their own or right after a
 * ')' (`sum(a)-1`), so that `user-agent`, `1002-071949` and `-1` stay words.
 *
 * Tokens are {offset,len} views into the text. The lexer switches on a
 * 256-entry class table, as SQLite's sqlite3GetToken does: one load per byte
 * and no chain of comparisons in the loop that scans words. */
#include <string.h>

#include "parser/parse_int.h"
#include "query.h"

enum {
    CC_WORD = 0,   /* part of a bareword */
    CC_SPACE,      /* whitespace or comma: separates tokens */
    CC_QUOTE,      /* " starts a string */
    CC_BACKTICK,   /* ` starts a literal name when it starts a token */
    CC_LP,         /* ( */
    CC_RP,         /* ) */
    CC_NUL,        /* a NUL byte is never valid in a query */
    CC_OP,         /* '*' or '/' in a clause of expressions: a token */
};

#define CCLASS_COMMON \
    [0] = CC_NUL, \
    ['\t'] = CC_SPACE, ['\n'] = CC_SPACE, ['\v'] = CC_SPACE, ['\f'] = CC_SPACE, \
    ['\r'] = CC_SPACE, [' '] = CC_SPACE, [','] = CC_SPACE, \
    ['"'] = CC_QUOTE, ['`'] = CC_BACKTICK, ['('] = CC_LP, [')'] = CC_RP

/* The classes of the words of one-word clauses (from, outfile, ...), and of
 * the clauses of expressions. */
static const unsigned char cclass[256] = { CCLASS_COMMON };
static const unsigned char cclass_expr[256] = { CCLASS_COMMON, ['*'] = CC_OP, ['/'] = CC_OP };

/* Words with a meaning of their own. All are matched case-insensitively
 * except `append`, which DTail only recognises in lower case. */
static const struct keyword {
    const char *word;
    unsigned char len;
    int type;
} keywords[] = {
    {"select", 6, TK_SELECT},     {"from", 4, TK_FROM},
    {"where", 5, TK_WHERE},       {"set", 3, TK_SET},
    {"group", 5, TK_GROUP},       {"order", 5, TK_ORDER},
    {"rorder", 6, TK_RORDER},     {"interval", 8, TK_INTERVAL},
    {"limit", 5, TK_LIMIT},       {"outfile", 7, TK_OUTFILE},
    {"logformat", 9, TK_LOGFORMAT},
    {"by", 2, TK_BY},             {"and", 3, TK_AND},
    {"append", 6, TK_APPEND},
    {"eq", 2, TK_EQS},            {"ne", 2, TK_NES},
    {"contains", 8, TK_CONTAINS}, {"ncontains", 9, TK_NCONTAINS},
    {"lacks", 5, TK_LACKS},       {"hasprefix", 9, TK_HASPREFIX},
    {"nhasprefix", 10, TK_NHASPREFIX}, {"hassuffix", 9, TK_HASSUFFIX},
    {"nhassuffix", 10, TK_NHASSUFFIX},
    {"having", 6, TK_HAVING},     {"or", 2, TK_OR},
    {"not", 3, TK_NOT},           {"in", 2, TK_IN},
    {"matches", 7, TK_MATCHES},   {"nmatches", 8, TK_NMATCHES},
};

static const struct keyword operators[] = {
    {"==", 2, TK_EQ}, {"!=", 2, TK_NE}, {"<", 1, TK_LT}, {"<=", 2, TK_LE},
    {"=<", 2, TK_LE}, {">", 1, TK_GT},  {">=", 2, TK_GE}, {"=>", 2, TK_GE},
    {"=", 1, TK_ASSIGN},
};

static int is_digit(char c)
{
    return c >= '0' && c <= '9';
}

bool query_is_number(const char *z, size_t n)
{
    size_t i = 0, digits = 0;
    if (i < n && (z[i] == '+' || z[i] == '-'))
        i++;
    while (i < n && is_digit(z[i]))
        i++, digits++;
    if (i < n && z[i] == '.') {
        i++;
        while (i < n && is_digit(z[i]))
            i++, digits++;
    }
    if (digits == 0)
        return false;
    if (i < n && (z[i] == 'e' || z[i] == 'E')) {
        size_t j = i + 1, exp = 0;
        if (j < n && (z[j] == '+' || z[j] == '-'))
            j++;
        while (j < n && is_digit(z[j]))
            j++, exp++;
        if (exp == 0)
            return false;
        i = j;
    }
    return i == n;
}

int query_word_type(const char *z, size_t n)
{
    char c = z[0];
    if (c == '=' || c == '!' || c == '<' || c == '>') {
        for (size_t i = 0; i < sizeof operators / sizeof operators[0]; i++)
            if (operators[i].len == n && memcmp(operators[i].word, z, n) == 0)
                return operators[i].type;
        return TK_ID;
    }
    /* Keywords are 2..10 ASCII letters: most field names ($time, 42,
     * lifetimeConnections) are rejected by the first test. */
    if (n >= 2 && n <= 10 && ((c | 0x20) >= 'a' && (c | 0x20) <= 'z')) {
        char low[10];
        for (size_t i = 0; i < n; i++) {
            char ch = z[i];
            low[i] = (ch >= 'A' && ch <= 'Z') ? (char)(ch + 32) : ch;
        }
        for (size_t i = 0; i < sizeof keywords / sizeof keywords[0]; i++) {
            const struct keyword *k = &keywords[i];
            if (k->len != n || k->word[0] != low[0] || memcmp(k->word, low, n) != 0)
                continue;
            if (k->type == TK_APPEND && memcmp(z, "append", 6) != 0)
                return TK_ID;
            return k->type;
        }
    }
    if (is_digit(c) || c == '.' || c == '-' || c == '+')
        if (query_is_number(z, n))
            return TK_NUMBER;
    return TK_ID;
}

/* The end of the "string" that starts at z[i]: the index of its closing
 * quote, or n when it has none. A backslash escapes the byte after it. */
static size_t string_end(const char *z, size_t n, size_t i)
{
    for (size_t j = i + 1; j < n; j++) {
        if (z[j] == '\\')
            j++;
        else if (z[j] == '"')
            return j;
    }
    return n;
}

size_t query_token(const char *z, size_t n, size_t i, unsigned flags, int *type)
{
    size_t j = i;
    const int expr = (flags & QUERY_TOKEN_EXPR) != 0;
    const unsigned char *cls = expr ? cclass_expr : cclass;
    switch (cls[(unsigned char)z[i]]) {
    case CC_SPACE:
        while (j < n && cls[(unsigned char)z[j]] == CC_SPACE)
            j++;
        *type = TK_SPACE;
        return j - i;
    case CC_QUOTE: {
        size_t q = string_end(z, n, i);
        if (q >= n) {
            *type = TK_ILLEGAL;
            return n - i;
        }
        *type = TK_STRING;
        return q - i + 1;
    }
    case CC_BACKTICK: {
        const char *q = memchr(z + i + 1, '`', n - i - 1);
        if (!q || q == z + i + 1) {
            /* unterminated, or the empty name `` */
            *type = TK_ILLEGAL;
            return q ? 2 : n - i;
        }
        *type = TK_BQUOTED;
        return (size_t)(q - (z + i)) + 1;
    }
    case CC_LP:
        *type = TK_LP;
        return 1;
    case CC_RP:
        *type = TK_RP;
        return 1;
    case CC_NUL:
        *type = TK_ILLEGAL;
        return 1;
    case CC_OP:
        *type = z[i] == '*' ? TK_STAR : TK_SLASH;
        return 1;
    default:
        if (expr && (z[i] == '+' || z[i] == '-') && i > 0 && z[i - 1] == ')') {
            *type = z[i] == '+' ? TK_PLUS : TK_MINUS;
            return 1;
        }
        /* A backtick inside a word is an ordinary byte, as in DTail. */
        j++;
        while (j < n) {
            unsigned char cc = cls[(unsigned char)z[j]];
            if (cc != CC_WORD && cc != CC_BACKTICK)
                break;
            j++;
        }
        *type = query_word_type(z + i, j - i);
        /* `json($log).level`: a path right after a call's ')'. */
        if (z[i] == '.' && j - i > 1 && i > 0 && z[i - 1] == ')')
            *type = TK_PATH;
        if (expr && j - i == 1 && (z[i] == '+' || z[i] == '-'))
            *type = z[i] == '+' ? TK_PLUS : TK_MINUS;
        return j - i;
    }
}

const char *const query_clause_words[] = {
    "select", "from", "where", "set", "group", "order", "rorder", "interval",
    "limit", "outfile", "logformat", "having", NULL,
};

const char *query_token_name(int type)
{
    switch (type) {
    case 0: return "end of query";
    case TK_SELECT: return "select";
    case TK_FROM: return "from";
    case TK_WHERE: return "where";
    case TK_SET: return "set";
    case TK_GROUP: return "group";
    case TK_ORDER: return "order";
    case TK_RORDER: return "rorder";
    case TK_INTERVAL: return "interval";
    case TK_LIMIT: return "limit";
    case TK_OUTFILE: return "outfile";
    case TK_LOGFORMAT: return "logformat";
    case TK_HAVING: return "having";
    case TK_OR: return "or";
    case TK_NOT: return "not";
    case TK_IN: return "in";
    case TK_MATCHES: return "matches";
    case TK_NMATCHES: return "nmatches";
    case TK_BY: return "by";
    case TK_AND: return "and";
    case TK_APPEND: return "append";
    case TK_EQS: return "eq";
    case TK_NES: return "ne";
    case TK_CONTAINS: return "contains";
    case TK_NCONTAINS: return "ncontains";
    case TK_LACKS: return "lacks";
    case TK_HASPREFIX: return "hasprefix";
    case TK_NHASPREFIX: return "nhasprefix";
    case TK_HASSUFFIX: return "hassuffix";
    case TK_NHASSUFFIX: return "nhassuffix";
    case TK_EQ: return "==";
    case TK_NE: return "!=";
    case TK_LT: return "<";
    case TK_LE: return "<=";
    case TK_GT: return ">";
    case TK_GE: return ">=";
    case TK_ASSIGN: return "=";
    case TK_LP: case TK_LPS: return "(";
    case TK_RP: return ")";
    case TK_PLUS: return "+";
    case TK_MINUS: return "-";
    case TK_STAR: case TK_STARF: return "*";
    case TK_SLASH: return "/";
    case TK_NUMBER: return "number";
    case TK_STRING: return "string";
    case TK_BQUOTED: return "`name`";
    case TK_PATH: return "path";
    default: return "word";
    }
}

unsigned query_token_flags(int clause)
{
    switch (clause) {
    case TK_FROM: case TK_INTERVAL: case TK_LIMIT: case TK_LOGFORMAT: case TK_OUTFILE:
        return 0;
    default:
        return QUERY_TOKEN_EXPR;
    }
}
