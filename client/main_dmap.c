/* dmap: mapreduce queries over whole files. */
#include "client/dmap_client.h"

int main(int argc, char **argv)
{
    return dmap_client_main(argc, argv);
}
