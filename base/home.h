/* home.h: the user's home directory, as the clients look for it: $HOME
 * when set and not empty (so sudo -E and tests get the one they name),
 * else the user database's entry for the real uid. */
#ifndef DTAIL_BASE_HOME_H
#define DTAIL_BASE_HOME_H

/* The home directory, or NULL when neither names one. The string is
 * the environment's or getpwuid's: use it before the next getpwuid. */
const char *home_dir(void);

#endif
