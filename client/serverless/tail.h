/* tail.h: dtail, serverless: follow files (or a piped stdin) and
 * print the lines that match, or run a mapreduce query over them. */
#ifndef DTAIL_CLIENT_DTAIL_CLIENT_H
#define DTAIL_CLIENT_DTAIL_CLIENT_H

/* The whole program; returns the exit status. */
int dtail_client_main(int argc, char **argv);

#endif
