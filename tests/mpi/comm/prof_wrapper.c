/* A profiling library as users write them (MPI-1.2 chapter 8): it defines
 * MPI_Send, MPI_Recv, MPI_Barrier and MPI_Pcontrol, counts the calls, and
 * forwards each to its PMPI_ twin. Linked ahead of libftmpi. MPI_Send has
 * the MPI-3 signature (const buffer), as the header declares it. */
#include <mpi.h>
#include <string.h>

static int n_send, n_recv, n_barrier, n_pcontrol, last_level = -1;

int MPI_Send(const void* buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm) {
  ++n_send;
  return PMPI_Send(buf, count, datatype, dest, tag, comm);
}

int MPI_Recv(void* buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm, MPI_Status* status) {
  ++n_recv;
  return PMPI_Recv(buf, count, datatype, source, tag, comm, status);
}

int MPI_Barrier(MPI_Comm comm) {
  ++n_barrier;
  return PMPI_Barrier(comm);
}

int MPI_Pcontrol(const int level, ...) {
  ++n_pcontrol;
  last_level = level;
  return PMPI_Pcontrol(level);
}

int prof_count(const char* name) {
  if (strcmp(name, "send") == 0) return n_send;
  if (strcmp(name, "recv") == 0) return n_recv;
  if (strcmp(name, "barrier") == 0) return n_barrier;
  if (strcmp(name, "pcontrol") == 0) return n_pcontrol;
  if (strcmp(name, "level") == 0) return last_level;
  return -1;
}
