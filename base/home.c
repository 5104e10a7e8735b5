/* home.c: see home.h. */
#include "base/home.h"

#include <pwd.h>
#include <stdlib.h>
#include <unistd.h>

const char *home_dir(void)
{
    const char *home = getenv("HOME");
    if (home && *home)
        return home;
    struct passwd *pw = getpwuid(getuid());
    return pw && pw->pw_dir && *pw->pw_dir ? pw->pw_dir : NULL;
}
