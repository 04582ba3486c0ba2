// What a job needs from the host's limits, checked before anything starts so
// that a job too large for them fails with one line instead of "Too many
// open files" deep in a daemon or a rank.
#pragma once
#include <string>

namespace ftmpi::rte {

// Raises the soft open-file limit to the hard one (inherited by the daemons
// and ranks started afterwards) and returns it.
long raise_open_file_limit();

// Open files the daemon of a host with `local_ranks` ranks needs: five per
// rank (control channel, two output pipes, pidfd, doorbell). It is the
// largest process of a host: a rank holds one per local rank (the host's
// doorbells) plus its TCP connections, which open on first use.
long daemon_fd_need(long local_ranks);

// "" if a host of `local_ranks` ranks fits in `limit`, else the reason (one
// line, without a prefix).
std::string fd_limit_problem(long local_ranks, const std::string& host, long limit);

}  // namespace ftmpi::rte
