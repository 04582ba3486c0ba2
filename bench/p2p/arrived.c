/* Instruction counting (callgrind) of one send and one receive without any
 * waiting in them, for ftmpi and the other MPIs alike: rank 1 sends argv[1]
 * messages of argv[2] bytes to rank 0, which sleeps first, so that every
 * MPI_Recv finds its message already in the shared-memory ring and no
 * receive polls in vain (a ping-pong's receive mostly waits, and the other
 * MPIs spin while they wait, so their counts there measure the wait). The
 * costs per call are PMPI_Send's inclusive count on rank 1 and PMPI_Recv's
 * on rank 0, divided by the number of messages (bench/p2p/instructions.py).
 * Ranks 2.. only start and finish. */
#include <mpi.h>
#include <stdlib.h>
#include <unistd.h>

int main(int argc, char** argv) {
  int rank;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  int n = argc > 1 ? atoi(argv[1]) : 100;
  int bytes = argc > 2 ? atoi(argv[2]) : 8;
  char* buf = calloc(1, (size_t)bytes + 1);
  /* Connections and first-touch costs out of the way. */
  if (rank == 1) MPI_Send(buf, bytes, MPI_BYTE, 0, 2, MPI_COMM_WORLD);
  if (rank == 0) MPI_Recv(buf, bytes, MPI_BYTE, 1, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  if (rank == 1)
    for (int i = 0; i < n; ++i) MPI_Send(buf, bytes, MPI_BYTE, 0, 1, MPI_COMM_WORLD);
  if (rank == 0) {
    sleep(3); /* under valgrind the sends take well under a second */
    for (int i = 0; i < n; ++i) MPI_Recv(buf, bytes, MPI_BYTE, 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  }
  free(buf);
  MPI_Finalize();
  return 0;
}
