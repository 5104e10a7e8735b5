/* agent_filter.h: the ssh-agent as libssh sees it with --agentKeyIndex N:
 * an agent that holds only the user's agent's N-th key (DTail's 0-based
 * index into the agent's list, reference 5.4).
 *
 * libssh offers every key of the agent at SSH_AUTH_SOCK and has no call
 * that picks one, but it talks to whichever socket it is given
 * (ssh_set_agent_socket). The filter is that socket: one end of a
 * socketpair, whose other end a thread of its own serves in the agent
 * protocol (draft-miller-ssh-agent): the list of identities is the one
 * key, a sign request for that key is passed to the real agent and its
 * answer back, anything else is SSH_AGENT_FAILURE. It lives for one
 * authentication. */
#ifndef DTAIL_CLIENT_AGENT_FILTER_H
#define DTAIL_CLIENT_AGENT_FILTER_H

#include "base/err.h"

typedef struct agent_filter agent_filter_t;

/* Connects to the agent at SSH_AUTH_SOCK, lists its keys and starts the
 * filter for key `index`; *lib_fd is the end for ssh_set_agent_socket.
 * Errors name --agentKeyIndex: no agent, an agent that cannot be
 * reached, one with fewer keys. Returns 0, or -1 with e. */
int agent_filter_start(int index, agent_filter_t **out, int *lib_fd, err_t *e);
/* Closes libssh's end (take it from the session first), ends the thread,
 * frees the filter. */
void agent_filter_stop(agent_filter_t *f);

#endif
