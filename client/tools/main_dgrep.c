/* dgrep: print the matching lines of whole files. */
#include "client/serverless/scan.h"

int main(int argc, char **argv)
{
    return scan_client_main(CLI_DGREP, argc, argv);
}
