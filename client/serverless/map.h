/* map.h: dmap, serverless: parse the query (exit 2 on an error,
 * before any input is read), run the mapreduce plan over the inputs, and
 * render the result as DTail's table or write it to the outfile. */
#ifndef DTAIL_CLIENT_DMAP_CLIENT_H
#define DTAIL_CLIENT_DMAP_CLIENT_H

/* The whole program; returns the exit status. */
int dmap_client_main(int argc, char **argv);

#endif
