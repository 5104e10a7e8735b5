/* journal_spec.c: see journal_spec.h. */
#include "exec/scan/journal_spec.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "exec/scan/targets.h"

int journal_spec_is(const char *s, size_t len)
{
    return len >= JOURNAL_SPEC_PREFIX_LEN &&
           memcmp(s, JOURNAL_SPEC_PREFIX, JOURNAL_SPEC_PREFIX_LEN) == 0;
}

int journal_spec_in_list(const char *list)
{
    const char *p = list ? list : "", *s;
    size_t len;
    while (target_spec_next(&p, &s, &len))
        if (journal_spec_is(s, len))
            return 1;
    return 0;
}

/* The code point of the UTF-8 sequence at p (n bytes left) and its length
 * in *len; an invalid sequence is one byte of U+FFFD, as Go reads it. */
static uint32_t utf8_next(const unsigned char *p, size_t n, size_t *len)
{
    *len = 1;
    if (p[0] < 0x80)
        return p[0];
    size_t need = p[0] >= 0xC2 && p[0] <= 0xDF ? 2 : p[0] >= 0xE0 && p[0] <= 0xEF ? 3
                  : p[0] >= 0xF0 && p[0] <= 0xF4 ? 4 : 0;
    if (!need || need > n)
        return 0xFFFD;
    uint32_t c = p[0] & (0x7F >> need);
    for (size_t i = 1; i < need; i++) {
        if ((p[i] & 0xC0) != 0x80)
            return 0xFFFD;
        c = c << 6 | (p[i] & 0x3F);
    }
    static const uint32_t least[] = {0, 0, 0x80, 0x800, 0x10000};
    if (c < least[need] || c > 0x10FFFF || (c >= 0xD800 && c <= 0xDFFF))
        return 0xFFFD;
    *len = need;
    return c;
}

/* Go's unicode.IsSpace or unicode.IsControl. */
static int space_or_control(uint32_t c)
{
    if (c < 0x20 || (c >= 0x7F && c <= 0x9F) || c == ' ' || c == 0xA0)
        return 1;
    return c == 0x1680 || (c >= 0x2000 && c <= 0x200A) || c == 0x2028 || c == 0x2029 ||
           c == 0x202F || c == 0x205F || c == 0x3000;
}

int journal_spec_check(const char *spec, err_t *e)
{
    const char *unit = spec + JOURNAL_SPEC_PREFIX_LEN;
    size_t n = strlen(unit);
    if (n == 0)
        return err_set(e, ERR_INPUT, "%s: invalid journal target: the unit is empty "
                                     "(journal:<unit>, e.g. journal:sshd.service)", spec);
    if (unit[0] == '-')
        return err_set(e, ERR_INPUT, "%s: invalid journal target: the unit must not start "
                                     "with '-'", spec);
    const unsigned char *p = (const unsigned char *)unit;
    for (size_t i = 0, len; i < n; i += len) {
        if (space_or_control(utf8_next(p + i, n - i, &len)))
            return err_set(e, ERR_INPUT, "%s: invalid journal target: the unit has whitespace "
                                         "or a control character at byte %zu", spec, i + 1);
    }
    if (n > JOURNAL_UNIT_MAX)
        return err_set(e, ERR_INPUT, "%s: invalid journal target: the unit is longer than %d "
                                     "bytes", spec, JOURNAL_UNIT_MAX);
    return 0;
}

/* systemd's unit types: a name ending in ".<type>" needs no suffix. */
static int has_unit_type(const char *s)
{
    static const char *const types[] = {"service", "mount", "swap", "socket", "target",
                                        "device", "automount", "timer", "path", "slice",
                                        "scope"};
    const char *dot = strrchr(s, '.');
    if (!dot)
        return 0;
    for (size_t i = 0; i < sizeof types / sizeof types[0]; i++)
        if (strcmp(dot + 1, types[i]) == 0)
            return 1;
    return 0;
}

#define UNIT_CHARS "@0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ:-_.\\"
#define UNIT_GLOB_CHARS UNIT_CHARS "[]!*?"   /* what a unit glob may hold */
#define GLOB_CHARS "*?["

/* systemd's unit_name_is_valid(s, UNIT_NAME_ANY). */
static int valid_unit_name(const char *s)
{
    const char *dot = strrchr(s, '.');
    if (!dot || dot == s || !has_unit_type(s) || s[0] == '@')
        return 0;
    return strspn(s, UNIT_CHARS) >= (size_t)(dot - s);
}

int journal_unit_mangle(const char *unit, char *out)
{
    size_t n = strlen(unit);
    if (n > JOURNAL_UNIT_MAX)
        return -1;
    int glob = strpbrk(unit, GLOB_CHARS) != NULL;
    if (valid_unit_name(unit) || (glob && strspn(unit, UNIT_GLOB_CHARS) == n)) {
        memcpy(out, unit, n + 1);
        return glob;
    }
    size_t k = 0;
    for (const unsigned char *p = (const unsigned char *)unit; *p; p++) {
        if (*p == '/')
            out[k++] = '-';
        else if (strchr(UNIT_GLOB_CHARS, *p))
            out[k++] = (char)*p;
        else
            k += (size_t)snprintf(out + k, 5, "\\x%02x", *p);
    }
    out[k] = 0;
    glob = strpbrk(out, GLOB_CHARS) != NULL;
    if (!glob && !has_unit_type(out))
        memcpy(out + k, ".service", sizeof ".service");
    return glob;
}
