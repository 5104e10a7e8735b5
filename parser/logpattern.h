/* parser/logpattern.h: the layout of `logformat pattern "..."`, an nginx
 * `log_format` or Apache `LogFormat` line, read into literals and fields.
 *
 * Both dialects in one pattern: `$name` and `${name}` are nginx variables,
 * `%h`, `%>s`, `%{Referer}i` ... Apache directives, read as the nginx
 * variable that writes the same thing (%h is $remote_addr, %t is
 * [$time_local], %{User-Agent}i is $http_user_agent); `%%` is a '%'.
 * Everything else is literal text a line must hold where the pattern has
 * it. The parser reads a pattern to check it (errors point into it) and to
 * know its fields; exec/extract/fmt_pattern.c reads it again to match
 * lines. Fixed size, no allocation: a pattern is short. */
#ifndef DTAIL_PARSER_LOGPATTERN_H
#define DTAIL_PARSER_LOGPATTERN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define LOGPATTERN_ITEMS 64     /* fields and literals a pattern may have */
#define LOGPATTERN_TEXT 2048    /* bytes of literal text and field names */

enum logpattern_kind {
    LOGPATTERN_LITERAL = 0,     /* text the line holds as written */
    LOGPATTERN_FIELD,           /* a field's value: up to the next literal */
};

typedef struct logpattern_item {
    uint8_t kind;               /* enum logpattern_kind */
    bool zero_dash;             /* a field whose "-" means 0 (%b) */
    uint16_t off;               /* text[off..off+len): the literal, or the
                                   field's name with its '$' */
    uint16_t len;
    uint16_t src;               /* byte in the pattern it came from */
} logpattern_item_t;

typedef struct logpattern {
    logpattern_item_t item[LOGPATTERN_ITEMS];
    size_t n;                   /* items; literals merged, never two
                                   fields side by side */
    char text[LOGPATTERN_TEXT];
    size_t text_len;
} logpattern_t;

/* Reads the pattern p[0..n) into *lp. False with *why (a static message)
 * and *at (the byte of p it is about) when it is no pattern: an unknown
 * or unsupported Apache directive, an unclosed ${ or %{, two fields with
 * no text between them, an empty pattern, too many items. */
bool logpattern_read(const char *p, size_t n, logpattern_t *lp, const char **why, size_t *at);

/* Item k's text (a literal or a field name with '$'). */
static inline const char *logpattern_text(const logpattern_t *lp, size_t k)
{
    return lp->text + lp->item[k].off;
}

#endif
