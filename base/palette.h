/* palette.h: the colours the clients paint with (Client.TermColors).
 *
 * DTail's config names a foreground, a background and an attribute for
 * each painted part of its output, in five groups: Remote (a REMOTE line),
 * Client and Server (CLIENT| and SERVER| messages), Common (the severity
 * words WARN, ERROR, FATAL at the start of a line) and MaprTable (dmap's
 * table). The defaults are DTail's own paint, byte for byte (DTail's
 * dcatcolors acceptance file). Unlike DTail (its defect D13), colour and
 * attribute names are translated to ANSI codes, and a name or key that is
 * not DTail's is an error naming it.
 *
 * REMOTE lines are painted by whoever renders them, the dserver included,
 * so a palette that is not the default travels in the REQUEST
 * (palette_encode, docs/protocol.md). */
#ifndef DTAIL_BASE_PALETTE_H
#define DTAIL_BASE_PALETTE_H

#include <stddef.h>
#include <stdint.h>

#include "base/outbuf.h"

/* One painted part: ANSI SGR codes; attr PAINT_NO_ATTR for none. */
typedef struct paint {
    uint8_t fg;    /* 30-37, 39 (default) */
    uint8_t bg;    /* 40-47, 49 (default) */
    uint8_t attr;  /* 1-8, or PAINT_NO_ATTR */
} paint_t;

#define PAINT_NO_ATTR 0

enum palette_slot {
    /* Remote: REMOTE|host|100|lineno|source|text */
    PAL_REMOTE_DELIMITER, PAL_REMOTE_REMOTE, PAL_REMOTE_HOSTNAME, PAL_REMOTE_STATS_OK,
    PAL_REMOTE_STATS_WARN, PAL_REMOTE_COUNT, PAL_REMOTE_ID, PAL_REMOTE_TEXT,
    /* Common: a line's text that starts with its severity word */
    PAL_SEVERITY_WARN, PAL_SEVERITY_ERROR, PAL_SEVERITY_FATAL,
    /* Client: CLIENT|host|text; Server: SERVER|host|text */
    PAL_CLIENT_DELIMITER, PAL_CLIENT_CLIENT, PAL_CLIENT_HOSTNAME, PAL_CLIENT_TEXT,
    PAL_SERVER_DELIMITER, PAL_SERVER_SERVER, PAL_SERVER_HOSTNAME, PAL_SERVER_TEXT,
    /* MaprTable: dmap's table and the query line above it */
    PAL_TABLE_DATA, PAL_TABLE_DELIMITER, PAL_TABLE_HEADER, PAL_TABLE_HEADER_DELIMITER,
    PAL_TABLE_RAW_QUERY,
    PAL_N_SLOTS,
    /* The slots a dserver paints with: those of REMOTE lines. */
    PAL_N_REMOTE_SLOTS = PAL_SEVERITY_FATAL + 1,
};

typedef struct palette {
    paint_t slot[PAL_N_SLOTS];
    uint8_t sort_key_attr;    /* MaprTable.HeaderSortKeyAttr, default underline */
    uint8_t group_key_attr;   /* MaprTable.HeaderGroupKeyAttr, default reverse */
} palette_t;

/* DTail's paint. */
void palette_defaults(palette_t *p);
/* Whether the slots a dserver paints with are DTail's. */
int palette_remote_is_default(const palette_t *p);

/* Sets group.key (e.g. "Remote", "HostnameFg") to the colour or attribute
 * name value (DTail's: Black ... White, Default; None, Bold, Dim, Italic,
 * Underline, Blink, SlowBlink, RapidBlink, Reverse, Hidden; any case).
 * 0, or -1 with a message in why: "unknown colour group", "unknown
 * colour key", "unknown colour" or "unknown attribute", with what is known
 * (the caller names the key). */
int palette_set(palette_t *p, const char *group, const char *key, const char *value, char *why,
                size_t why_cap);

/* Whether group is one of DTail's five (any case, as Go's JSON). */
int palette_has_group(const char *group);

/* The remote slots as PAL_PALETTE_WIRE_LEN bytes, and back (-1 when a
 * byte is not a code palette_set could have made). */
#define PAL_PALETTE_WIRE_LEN (3 * PAL_N_REMOTE_SLOTS)
void palette_encode(const palette_t *p, uint8_t *out);
int palette_decode(palette_t *p, const uint8_t *in, size_t n);

/* Writes the SGR sequences that open a paint into dst (room for
 * PAINT_OPEN_MAX bytes): fg, bg, then c.attr and the n_extra attributes of
 * extra that are not PAINT_NO_ATTR (at most 2); returns their length. */
#define PAINT_OPEN_MAX 32
size_t paint_open(char *dst, paint_t c, const uint8_t *extra, size_t n_extra);
/* Whether paint_open(c, extra, n_extra) set an attribute. */
int paint_has_attr(paint_t c, const uint8_t *extra, size_t n_extra);
/* The sequences that close a paint (a reset when it set an attribute,
 * then the default bg and fg) into dst (room for PAINT_CLOSE_MAX). */
#define PAINT_CLOSE_MAX 16
size_t paint_close(char *dst, int had_attr);
/* text painted with c: open, text, close; dst has room for len +
 * PAINT_OPEN_MAX + PAINT_CLOSE_MAX. */
size_t paint_text(char *dst, paint_t c, const char *text, size_t len);
/* The same appended to o, with the n_extra attributes of extra (as
 * paint_open); the text escaped as data (base/term.h, a CR ending it
 * kept) when esc, the paint never. */
void paint_append(outbuf_t *o, paint_t c, const uint8_t *extra, size_t n_extra, const char *text,
                  size_t len, int esc);

#endif
