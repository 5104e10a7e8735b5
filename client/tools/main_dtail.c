/* dtail: follow log files as they grow. */
#include "client/serverless/tail.h"

int main(int argc, char **argv)
{
    return dtail_client_main(argc, argv);
}
