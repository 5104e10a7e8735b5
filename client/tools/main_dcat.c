/* dcat: print whole files, serverless or (later) from many servers. */
#include "client/serverless/scan.h"

int main(int argc, char **argv)
{
    return scan_client_main(CLI_DCAT, argc, argv);
}
