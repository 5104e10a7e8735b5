/* fuzz_config.c: libFuzzer target over the dtail.json reader.
 *
 * Any bytes must either load into a config whose values are all within the
 * documented ranges (strings NUL-terminated within their fields), or fail
 * with ERR_CONFIG and a message (an unknown key, a wrong type: the message
 * found the key's line in the text). A config that loads then goes through
 * dserver's start-up checks of the Permissions rules and of the jobs
 * (Schedule, Continuous), which must pass or fail the same way. The input goes through a real file (a memfd seen as
 * /proc/self/fd/N), as config_load reads one. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/config.h"
#include "base/log.h"
#include "server/jobs.h"
#include "server/permissions.h"
#include "tests/support/memfile.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_str(const char *s, size_t cap)
{
    if (memchr(s, '\0', cap) == NULL)
        abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    log_level = LOG_NONE;   /* the warnings of DTail-only keys are expected here */
    char path[64];
    int fd = memfile_create(data, size, path, sizeof path);
    if (fd < 0)
        return 0;
    config_t c;
    config_defaults(&c);
    err_t e;
    err_clear(&e);
    if (config_load(&c, path, &e) != 0) {
        if (e.code != ERR_CONFIG || e.msg[0] == '\0')
            abort();
    } else {
        if (c.ssh_port < 1 || c.ssh_port > 65535 || c.max_connections < 1 ||
            c.max_concurrent_cats < 1 || c.max_concurrent_tails < 1 ||
            c.ssh_connect_timeout_ms < 1 || c.host_key_bits < 2048 ||
            c.max_line_len < 1 || c.max_command_frame_size < 1024)
            abort();
        check_str(c.log_dir, sizeof c.log_dir);
        check_str(c.cache_dir, sizeof c.cache_dir);
        check_str(c.logger, sizeof c.logger);
        check_str(c.ssh_bind_address, sizeof c.ssh_bind_address);
        check_str(c.host_key_file, sizeof c.host_key_file);
        check_str(c.log_level, sizeof c.log_level);
        check_str(c.permissions, sizeof c.permissions);
        check_str(c.auth_key_path, sizeof c.auth_key_path);
        palette_t wire;
        uint8_t bytes[PAL_PALETTE_WIRE_LEN];
        palette_encode(&c.palette, bytes);   /* what a config makes goes on the wire */
        if (c.glob_retry_ms < 0 || palette_decode(&wire, bytes, sizeof bytes) < 0)
            abort();
        err_clear(&e);
        if (perm_rules_check(&c, &e) != 0 && (e.code != ERR_CONFIG || e.msg[0] == '\0'))
            abort();
        check_str(c.jobs, sizeof c.jobs);
        jobs_t *js = NULL;
        err_clear(&e);
        if (jobs_load(&js, &c, "fuzzhost", &e) != 0 && (e.code != ERR_CONFIG || e.msg[0] == '\0'))
            abort();
        jobs_free(js);
    }
    close(fd);
    return 0;
}
