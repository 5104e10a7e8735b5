/* config.h: DTail's JSON config file (dtail.json), the keys this build
 * reads. Unknown keys are warned about, never silently ignored (lesson 1).
 *
 * Lookup as DTail: --cfg PATH, --cfg none for no file, otherwise the first
 * existing of ~/.config/dtail/dtail.conf and ~/.dtail.conf. */
#ifndef DTAIL_BASE_CONFIG_H
#define DTAIL_BASE_CONFIG_H

#include <stddef.h>

#include "base/err.h"

typedef struct config {
    size_t max_line_len;     /* Server.MaxLineLength, default 1 MiB */
    int term_colors_enable;  /* Client.TermColorsEnable, default 1 */
    char log_level[32];      /* Common.LogLevel, "" when unset */
    char path[4096];         /* file loaded, "" when none */
} config_t;

void config_defaults(config_t *c);
/* Loads according to cfg_flag (NULL or "" = default lookup, "none" = no
 * file). Warnings for unknown keys go to the log at WARN. */
int config_load(config_t *c, const char *cfg_flag, err_t *e);

#endif
