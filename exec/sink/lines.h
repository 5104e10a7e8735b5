/* lines.h: the line sink of cat, grep and tail plans.
 *
 * Formats selected lines for their destination, straight into the output
 * block: raw (--plain), DTail's `REMOTE|host|100|lineno|source|line`, or the
 * same painted with DTail's ANSI colours. Formatting is decided once per
 * run, never per line (lesson 4). When the output block ends on a terminal
 * (outbuf escape_data) the data in it, the lines, the host name and the
 * source id, is escaped (base/term.h) and the paint around it is not. */
#ifndef DTAIL_EXEC_SINK_LINES_H
#define DTAIL_EXEC_SINK_LINES_H

#include <stddef.h>

#include "base/outbuf.h"
#include "base/palette.h"
#include "wire/msg.h"

enum line_format {
    LINE_PLAIN = 0,   /* the line and '\n' */
    LINE_REMOTE,      /* REMOTE|host|100|n|source|line */
    LINE_COLOR,       /* REMOTE line with DTail's colours */
    /* DTail 4.1 messages (wire/dt41.h), each ended by the byte 0xAC: a
     * cat or grep line keeps its '\n', a tail line goes without it. */
    LINE_DT41_REMOTE,      /* REMOTE|host|100|n|source|line\n 0xAC */
    LINE_DT41_REMOTE_NONL, /* REMOTE|host|100|n|source|line 0xAC */
    LINE_DT41_PLAIN,       /* line\n 0xAC (--plain) */
    LINE_DT41_PLAIN_NONL,  /* line 0xAC */
};

/* The format a request's LINES render (wire/msg.h) asks for, and back:
 * each value named, so neither enum's numbering is the other's. An
 * unknown render (wire_decode_request refuses it) is plain. */
static inline enum line_format line_format_of_render(uint8_t render)
{
    switch (render) {
    case WIRE_RENDER_REMOTE: return LINE_REMOTE;
    case WIRE_RENDER_COLOR: return LINE_COLOR;
    default: return LINE_PLAIN;
    }
}
static inline enum wire_render line_format_render(enum line_format f)
{
    switch (f) {
    case LINE_REMOTE: return WIRE_RENDER_REMOTE;
    case LINE_COLOR: return WIRE_RENDER_COLOR;
    default: return WIRE_RENDER_PLAIN;
    }
}

/* The paint of a line's content and the close that ends it with '\n'. */
typedef struct content_paint {
    char open[PAINT_OPEN_MAX];
    char close[PAINT_CLOSE_MAX + 1];
    size_t open_len, close_len;
} content_paint_t;

typedef struct line_sink {
    outbuf_t *out;            /* borrowed destination */
    enum line_format format;  /* chosen once per run */
    char *host;               /* short host name, owned */
    int escape;               /* out->escape_data at init: escape the data */
    char head[1024];          /* everything before the line number */
    size_t head_len;          /* bytes in head */
    char mid[2048];           /* between line number and content */
    size_t mid_len;           /* bytes in mid */
    unsigned long long n_lines; /* lines written */
    palette_t palette;        /* LINE_COLOR's paint */
    content_paint_t content[4]; /* the text's paint, then WARN, ERROR, FATAL's */
} line_sink_t;

/* palette: LINE_COLOR's paint (copied), NULL for DTail's. */
int line_sink_init(line_sink_t *s, outbuf_t *out, enum line_format format, const char *host,
                   const palette_t *palette);
void line_sink_free(line_sink_t *s);
/* Sets the source id shown for the lines that follow. */
void line_sink_set_source(line_sink_t *s, const char *source_id);
/* Whether the format shows line numbers (so the scan must count them).
 * Also every 4.1 format: each line is a message of its own, so they take
 * the per-line path (line_sink_put), never line_sink_put_run. */
static inline int line_sink_numbers(const line_sink_t *s) { return s->format != LINE_PLAIN; }
/* Writes one line of content [p, p+len) (no '\n'), numbered lineno. */
void line_sink_put(line_sink_t *s, const char *p, size_t len, unsigned long long lineno);
/* Writes a run of complete lines ending in '\n' unchanged (plain format). */
void line_sink_put_run(line_sink_t *s, const char *p, size_t len, unsigned long long n_lines);

/* Escapes a block of whole lines rendered by a line sink in format f
 * elsewhere (a dserver's LINES) into dst, as a sink writing to a terminal
 * would have: in the painted format the paint stays, the host name, source
 * id and content are escaped; a line not of the painted form is escaped
 * whole. */
void line_sink_escape_rendered(outbuf_t *dst, enum line_format f, const palette_t *palette,
                               const char *p, size_t n);

#endif
