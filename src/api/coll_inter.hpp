// Collectives on intercommunicators (MPI-3.1 §5.2.2): the entry points of
// coll.cpp, coll_all.cpp, coll_reduce.cpp, coll_mpi2.cpp and
// coll_nonblocking_reduce.cpp hand an intercommunicator to these, which
// check the arguments as the intercommunicator forms define them (roots
// MPI_ROOT / MPI_PROC_NULL / a remote rank, arrays over the remote group,
// no MPI_IN_PLACE) and run src/coll/inter. Scan and Exscan stay erroneous
// (MPI_ERR_COMM).
#pragma once
#include "api/call.hpp"

namespace ftmpi::api {

int inter_barrier(Call& call, comm::Communicator& c);
int inter_bcast(Call& call, comm::Communicator& c, void* buf, int count, MPI_Datatype dt, int root);
// Gather(v) (gather) and scatter(v): null count arrays for the plain forms.
int inter_rooted(Call& call, comm::Communicator& c, bool gather, const void* sbuf, const int* scounts,
                 const int* sdispls, int scount, MPI_Datatype stype, void* rbuf, const int* rcounts,
                 const int* rdispls, int rcount, MPI_Datatype rtype, int root);
// Allgather(v) (to_all false) and alltoall(v): null count arrays for the plain forms.
int inter_all(Call& call, comm::Communicator& c, bool to_all, const void* sbuf, const int* scounts,
              const int* sdispls, int scount, MPI_Datatype stype, void* rbuf, const int* rcounts,
              const int* rdispls, int rcount, MPI_Datatype rtype);
int inter_alltoallw(Call& call, comm::Communicator& c, const void* sbuf, const int* scounts, const int* sdispls,
                    const MPI_Datatype* stypes, void* rbuf, const int* rcounts, const int* rdispls,
                    const MPI_Datatype* rtypes);
// Reduce (root used) and allreduce (root ignored, all_reduce true).
int inter_reduce(Call& call, comm::Communicator& c, bool all_reduce, const void* sbuf, void* rbuf, int count,
                 MPI_Datatype dt, MPI_Op op, int root);
// rcounts: one per member of my group (Reduce_scatter_block passes its block n times).
int inter_reduce_scatter(Call& call, comm::Communicator& c, const void* sbuf, void* rbuf, const int* rcounts,
                         MPI_Datatype dt, MPI_Op op);

// An intercommunicator going away: its hidden intracommunicator of the
// local group waits among the zombies until its last transfer is done.
void retire_inter_local(comm::Communicator& inter);

}  // namespace ftmpi::api
