/* dmap: mapreduce queries over whole files. */
#include "client/serverless/map.h"

int main(int argc, char **argv)
{
    return dmap_client_main(argc, argv);
}
