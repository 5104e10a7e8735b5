/* fuzz_auth_options.c: libFuzzer target over the authorized_keys options
 * parser (server/auth_options.h).
 *
 * Input: a peer address, a newline, then an options text. The options
 * length must lie within the text; the check must answer 1, 0 or -1 with
 * a NUL-terminated reason (non-empty unless it allowed); and the same
 * input must give the same answer twice (no hidden state). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "server/auth_options.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const uint8_t *nl = memchr(data, '\n', size);
    size_t peer_len = nl ? (size_t)(nl - data) : 0;
    char peer[64];
    if (peer_len >= sizeof peer)
        peer_len = sizeof peer - 1;
    memcpy(peer, data, peer_len);
    peer[peer_len] = '\0';
    const char *text = nl ? (const char *)nl + 1 : (const char *)data;
    size_t len = nl ? size - (size_t)(nl + 1 - data) : size;
    long n = auth_options_len(text, len);
    if (n < -1 || n > (long)len)
        abort();
    if (n <= 0)
        return 0;
    char why[256], again[256];
    memset(why, 'x', sizeof why);
    int r = auth_options_check(text, (size_t)n, peer, 1700000000, why, sizeof why);
    if (r < -1 || r > 1 || !memchr(why, '\0', sizeof why) || (r != 1 && !why[0]))
        abort();
    int r2 = auth_options_check(text, (size_t)n, peer, 1700000000, again, sizeof again);
    if (r2 != r || strcmp(why, again) != 0)
        abort();
    return 0;
}
