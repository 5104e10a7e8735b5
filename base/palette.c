/* palette.c: see palette.h. */
#include "base/palette.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "base/term.h"

enum { BLACK = 0, RED, GREEN, YELLOW, BLUE, MAGENTA, CYAN, WHITE, DEFAULT = 9 };
#define FG(c) (uint8_t)(30 + (c))
#define BG(c) (uint8_t)(40 + (c))
enum { BOLD = 1, DIM = 2, UNDERLINE = 4, BLINK = 5, REVERSE = 7 };
#define P(fg, bg, attr) {FG(fg), BG(bg), attr}

void palette_defaults(palette_t *p)
{
    /* DTail's paint as its dcatcolors acceptance file shows it. */
    static const paint_t d[PAL_N_SLOTS] = {
        [PAL_REMOTE_DELIMITER] = P(CYAN, BLUE, DIM),
        [PAL_REMOTE_REMOTE] = P(WHITE, BLUE, DIM),
        [PAL_REMOTE_HOSTNAME] = P(WHITE, BLUE, BOLD),
        [PAL_REMOTE_STATS_OK] = P(BLACK, GREEN, PAINT_NO_ATTR),
        [PAL_REMOTE_STATS_WARN] = P(WHITE, RED, PAINT_NO_ATTR),
        [PAL_REMOTE_COUNT] = P(WHITE, BLUE, DIM),
        [PAL_REMOTE_ID] = P(WHITE, BLUE, DIM),
        [PAL_REMOTE_TEXT] = P(WHITE, BLACK, PAINT_NO_ATTR),
        [PAL_SEVERITY_WARN] = P(WHITE, BLACK, BOLD),
        [PAL_SEVERITY_ERROR] = P(WHITE, RED, BOLD),
        [PAL_SEVERITY_FATAL] = P(WHITE, MAGENTA, BOLD),
        [PAL_CLIENT_DELIMITER] = P(BLACK, YELLOW, DIM),
        [PAL_CLIENT_CLIENT] = P(BLACK, YELLOW, DIM),
        [PAL_CLIENT_HOSTNAME] = P(BLACK, YELLOW, DIM),
        [PAL_CLIENT_TEXT] = P(WHITE, BLACK, PAINT_NO_ATTR),
        [PAL_SERVER_DELIMITER] = P(BLACK, CYAN, DIM),
        [PAL_SERVER_SERVER] = P(BLACK, CYAN, DIM),
        [PAL_SERVER_HOSTNAME] = P(BLACK, CYAN, BOLD),
        [PAL_SERVER_TEXT] = P(BLACK, CYAN, PAINT_NO_ATTR),
        [PAL_TABLE_DATA] = P(WHITE, BLUE, PAINT_NO_ATTR),
        [PAL_TABLE_DELIMITER] = P(WHITE, BLUE, DIM),
        [PAL_TABLE_HEADER] = P(WHITE, BLUE, BOLD),
        [PAL_TABLE_HEADER_DELIMITER] = P(WHITE, BLUE, DIM),
        [PAL_TABLE_RAW_QUERY] = P(CYAN, BLACK, DIM),
    };
    memcpy(p->slot, d, sizeof d);
    p->sort_key_attr = UNDERLINE;
    p->group_key_attr = REVERSE;
}

int palette_remote_is_default(const palette_t *p)
{
    palette_t d;
    palette_defaults(&d);
    return memcmp(p->slot, d.slot, PAL_N_REMOTE_SLOTS * sizeof(paint_t)) == 0;
}

/* ---- names --------------------------------------------------------------- */

static const char *const color_names[] = {"Black", "Red", "Green", "Yellow", "Blue",
                                          "Magenta", "Cyan", "White", NULL, "Default"};
static const struct {
    const char *name;
    uint8_t code;
} attr_names[] = {{"None", PAINT_NO_ATTR}, {"Bold", 1},      {"Dim", 2},
                  {"Italic", 3},           {"Underline", 4}, {"Blink", 5},
                  {"SlowBlink", 5},        {"RapidBlink", 6}, {"Reverse", 7},
                  {"Hidden", 8}};

/* The groups and the part each of their names paints. */
typedef struct part {
    const char *name;
    int slot;
} part_t;
static const part_t remote_parts[] = {
    {"Delimiter", PAL_REMOTE_DELIMITER}, {"Remote", PAL_REMOTE_REMOTE},
    {"Hostname", PAL_REMOTE_HOSTNAME},   {"StatsOk", PAL_REMOTE_STATS_OK},
    {"StatsWarn", PAL_REMOTE_STATS_WARN}, {"Count", PAL_REMOTE_COUNT},
    {"Id", PAL_REMOTE_ID},               {"Text", PAL_REMOTE_TEXT},
    {NULL, 0}};
static const part_t common_parts[] = {{"SeverityWarn", PAL_SEVERITY_WARN},
                                      {"SeverityError", PAL_SEVERITY_ERROR},
                                      {"SeverityFatal", PAL_SEVERITY_FATAL},
                                      {NULL, 0}};
static const part_t client_parts[] = {
    {"Delimiter", PAL_CLIENT_DELIMITER}, {"Client", PAL_CLIENT_CLIENT},
    {"Hostname", PAL_CLIENT_HOSTNAME},   {"Text", PAL_CLIENT_TEXT},
    {NULL, 0}};
static const part_t server_parts[] = {
    {"Delimiter", PAL_SERVER_DELIMITER}, {"Server", PAL_SERVER_SERVER},
    {"Hostname", PAL_SERVER_HOSTNAME},   {"Text", PAL_SERVER_TEXT},
    {NULL, 0}};
static const part_t table_parts[] = {
    {"Data", PAL_TABLE_DATA},     {"Delimiter", PAL_TABLE_DELIMITER},
    {"Header", PAL_TABLE_HEADER}, {"HeaderDelimiter", PAL_TABLE_HEADER_DELIMITER},
    {"RawQuery", PAL_TABLE_RAW_QUERY},
    /* attributes only, no slot of their own */
    {"HeaderSortKey", -1},        {"HeaderGroupKey", -2},
    {NULL, 0}};
static const struct {
    const char *name;
    const part_t *parts;
} groups[] = {{"Remote", remote_parts}, {"Client", client_parts}, {"Server", server_parts},
              {"Common", common_parts}, {"MaprTable", table_parts}};

/* value, without the prefix DTail's Go names carry ("FgBlue", "AttrDim"). */
static const char *unprefixed(const char *value, const char *prefix)
{
    size_t n = strlen(prefix);
    return strncasecmp(value, prefix, n) == 0 && value[n] ? value + n : value;
}

static int color_code(const char *value, const char *prefix, int *out)
{
    const char *v = unprefixed(value, prefix);
    for (int i = 0; i < (int)(sizeof color_names / sizeof color_names[0]); i++)
        if (color_names[i] && strcasecmp(v, color_names[i]) == 0) {
            *out = i;
            return 0;
        }
    return -1;
}

static int attr_code(const char *value, uint8_t *out)
{
    const char *v = unprefixed(value, "Attr");
    for (size_t i = 0; i < sizeof attr_names / sizeof attr_names[0]; i++)
        if (strcasecmp(v, attr_names[i].name) == 0) {
            *out = attr_names[i].code;
            return 0;
        }
    return -1;
}

/* The part of key ("HostnameFg") and what of it the key sets ("Fg"). */
static const part_t *find_part(const part_t *parts, const char *key, const char **what)
{
    static const char *const suffixes[] = {"Fg", "Bg", "Attr"};
    size_t kl = strlen(key);
    for (size_t s = 0; s < 3; s++) {
        size_t sl = strlen(suffixes[s]);
        if (kl <= sl || strcasecmp(key + kl - sl, suffixes[s]) != 0)
            continue;
        for (const part_t *p = parts; p->name; p++)
            if (strlen(p->name) == kl - sl && strncasecmp(key, p->name, kl - sl) == 0) {
                *what = suffixes[s];
                return p;
            }
    }
    return NULL;
}

static void list_keys(const part_t *parts, char *out, size_t cap)
{
    size_t n = 0;
    out[0] = '\0';
    for (const part_t *p = parts; p->name && n < cap; p++)
        n += (size_t)snprintf(out + n, cap - n, "%s%s{%s}", n ? ", " : "", p->name,
                              p->slot < 0 ? "Attr" : "Fg,Bg,Attr");
}

static const part_t *group_parts(const char *group)
{
    for (size_t g = 0; g < sizeof groups / sizeof groups[0]; g++)
        if (strcasecmp(group, groups[g].name) == 0)
            return groups[g].parts;
    return NULL;
}

int palette_has_group(const char *group)
{
    return group_parts(group) != NULL;
}

int palette_set(palette_t *p, const char *group, const char *key, const char *value, char *why,
                size_t why_cap)
{
    const part_t *parts = group_parts(group);
    if (!parts) {
        snprintf(why, why_cap, "unknown colour group (known: Remote, Client, Server, Common, "
                               "MaprTable)");
        return -1;
    }
    const char *what = NULL;
    const part_t *part = find_part(parts, key, &what);
    if (!part || (part->slot < 0 && strcmp(what, "Attr") != 0)) {
        char known[512];
        list_keys(parts, known, sizeof known);
        snprintf(why, why_cap, "unknown colour key (%s has %s)", group, known);
        return -1;
    }
    if (strcmp(what, "Attr") == 0) {
        uint8_t a;
        if (attr_code(value, &a) < 0) {
            snprintf(why, why_cap, "unknown attribute \"%s\" (known: None, Bold, Dim, Italic, "
                                   "Underline, Blink, SlowBlink, RapidBlink, Reverse, Hidden)", value);
            return -1;
        }
        if (part->slot == -1)
            p->sort_key_attr = a;
        else if (part->slot == -2)
            p->group_key_attr = a;
        else
            p->slot[part->slot].attr = a;
        return 0;
    }
    int c;
    if (color_code(value, what, &c) < 0) {
        snprintf(why, why_cap, "unknown colour \"%s\" (known: Black, Red, Green, Yellow, Blue, "
                               "Magenta, Cyan, White, Default)", value);
        return -1;
    }
    if (what[0] == 'F')
        p->slot[part->slot].fg = FG(c);
    else
        p->slot[part->slot].bg = BG(c);
    return 0;
}

/* ---- the wire ------------------------------------------------------------ */

void palette_encode(const palette_t *p, uint8_t *out)
{
    for (size_t i = 0; i < PAL_N_REMOTE_SLOTS; i++) {
        out[3 * i] = p->slot[i].fg;
        out[3 * i + 1] = p->slot[i].bg;
        out[3 * i + 2] = p->slot[i].attr;
    }
}

static int valid_color(uint8_t v, uint8_t base)
{
    return (v >= base && v <= base + WHITE) || v == base + DEFAULT;
}

int palette_decode(palette_t *p, const uint8_t *in, size_t n)
{
    if (n != PAL_PALETTE_WIRE_LEN)
        return -1;
    palette_defaults(p);
    for (size_t i = 0; i < PAL_N_REMOTE_SLOTS; i++) {
        paint_t c = {in[3 * i], in[3 * i + 1], in[3 * i + 2]};
        if (!valid_color(c.fg, 30) || !valid_color(c.bg, 40) || c.attr > 8)
            return -1;
        p->slot[i] = c;
    }
    return 0;
}

/* ---- sequences ----------------------------------------------------------- */

#define ESC "\033["

size_t paint_open(char *dst, paint_t c, const uint8_t *extra, size_t n_extra)
{
    size_t n = (size_t)sprintf(dst, ESC "%um" ESC "%um", c.fg, c.bg);
    if (c.attr != PAINT_NO_ATTR)
        n += (size_t)sprintf(dst + n, ESC "%um", c.attr);
    for (size_t i = 0; i < n_extra && i < 2; i++)
        if (extra[i] != PAINT_NO_ATTR)
            n += (size_t)sprintf(dst + n, ESC "%um", extra[i]);
    return n;
}

int paint_has_attr(paint_t c, const uint8_t *extra, size_t n_extra)
{
    int any = c.attr != PAINT_NO_ATTR;
    for (size_t i = 0; i < n_extra && i < 2; i++)
        any |= extra[i] != PAINT_NO_ATTR;
    return any;
}

size_t paint_close(char *dst, int had_attr)
{
    size_t n = 0;
    if (had_attr) {
        memcpy(dst, ESC "0m", 4);
        n = 4;
    }
    memcpy(dst + n, ESC "49m" ESC "39m", 10);
    return n + 10;
}

size_t paint_text(char *dst, paint_t c, const char *text, size_t len)
{
    size_t n = paint_open(dst, c, NULL, 0);
    memcpy(dst + n, text, len);
    n += len;
    return n + paint_close(dst + n, c.attr != PAINT_NO_ATTR);
}

void paint_append(outbuf_t *o, paint_t c, const uint8_t *extra, size_t n_extra, const char *text,
                  size_t len, int esc)
{
    char codes[PAINT_OPEN_MAX];
    outbuf_append(o, codes, paint_open(codes, c, extra, n_extra));
    if (esc)
        outbuf_append_escaped(o, text, len, TERM_LINE_END);
    else
        outbuf_append(o, text, len);
    outbuf_append(o, codes, paint_close(codes, paint_has_attr(c, extra, n_extra)));
}
