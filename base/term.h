/* term.h: data bytes shown on a terminal.
 *
 * Log lines, file names, host names and server-sent text can hold any
 * bytes; written to a terminal unchanged, ESC and the other control bytes
 * would act on it (clear it, move the cursor, set the window title, ...).
 * When the clients write to a terminal they show such bytes visibly, as
 * less(1) does (docs/dcat-dgrep.md "Terminal safety"):
 *
 *   - printable ASCII, TAB and newline as they are;
 *   - CR as it is when it ends a line (before a newline, or as the last
 *     byte of a span flagged TERM_LINE_END: CRLF files look as before),
 *     elsewhere as ^M;
 *   - the other C0 controls and DEL in caret notation: ^@ (NUL), ^H, ^[
 *     (ESC), ^?; 0x00-0x1f is '^' and the byte + 0x40;
 *   - valid UTF-8 sequences as they are, except the C1 controls
 *     U+0080-U+009F, shown as <U+009B>;
 *   - every byte that is not part of valid UTF-8 (stray continuation
 *     bytes, overlong forms, surrogates, beyond U+10FFFF, a sequence cut
 *     short) as <FF>, two upper-case hex digits.
 *
 * Only data is escaped: the clients' own colour sequences are written
 * around it unescaped. Output to a pipe or a file stays byte for byte: the
 * escaping is chosen once per run (term_escapes), never tested per byte
 * when it is off. --raw-terminal turns it off on a terminal too. */
#ifndef DTAIL_BASE_TERM_H
#define DTAIL_BASE_TERM_H

#include <stddef.h>
#include <stdio.h>

/* term_escape writes at most this many bytes per input byte (<FF>). */
#define TERM_ESCAPE_MAX 4

/* The span ends a line: a CR as its last byte is a line end, kept. */
#define TERM_LINE_END 0x1u

/* Escapes [p, p+n) into dst (room for TERM_ESCAPE_MAX * n bytes) and
 * returns the bytes written; dst NULL only counts them. */
size_t term_escape(char *dst, const char *p, size_t n, unsigned flags);

/* A place at most k (< n) to cut [p, p+n) into two spans whose escapes,
 * joined, are the escape of the whole: never inside a UTF-8 sequence or
 * between CR and LF. At least k - 4 (so k > 4 gives a cut > 0). */
size_t term_cut(const char *p, size_t n, size_t k);

/* The length of the valid UTF-8 sequence at p (lead byte >= 0x80, n > 0
 * bytes there), or 0 when it is none (Unicode's table 3-7 of well-formed
 * sequences: no overlong forms, surrogates or code points past U+10FFFF). */
size_t term_utf8_len(const unsigned char *p, size_t n);

/* Decides once, before any thread starts, for stdout and stderr: escape
 * when the descriptor is a terminal and raw (--raw-terminal) is 0. Until
 * it is called nothing is escaped (dserver never calls it). */
void term_setup(int raw);
/* Whether data written to fd (1 or 2) is escaped; 0 for other fds. */
int term_escapes(int fd);

/* [text, text+n) escaped onto f (term_escape, flags 0), in one write. */
void term_write_escaped(FILE *f, const char *text, size_t n);

/* fprintf to f, the whole text escaped when f's descriptor escapes (the
 * messages on stderr carry server text, file and host names; none of
 * them is painted by us). stderr is the clients' diagnostic stream: the
 * text goes through log_diag_write (base/log.h), to the terminal, the
 * client log file, both or neither, as --logger says. */
void term_fprintf(FILE *f, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
