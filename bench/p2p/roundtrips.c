/* A fixed number of ping-pong round trips between ranks 0 and 1, for
 * instruction counting (callgrind) rather than timing: argv[1] round trips
 * of argv[2] bytes, argv[3] "any" makes the receives MPI_ANY_SOURCE. The
 * difference between two counts is the cost of the extra round trips, free
 * of start-up and shutdown. Ranks 2.. only start and finish. */
#include <mpi.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char** argv) {
  int rank;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  int iters = argc > 1 ? atoi(argv[1]) : 1000;
  int bytes = argc > 2 ? atoi(argv[2]) : 8;
  int src = argc > 3 && strcmp(argv[3], "any") == 0 ? MPI_ANY_SOURCE : 1 - rank;
  char* buf = calloc(1, (size_t)bytes + 1);
  if (rank < 2) {
    for (int i = 0; i < iters; ++i) {
      if (rank == 0) {
        MPI_Send(buf, bytes, MPI_BYTE, 1, 1, MPI_COMM_WORLD);
        MPI_Recv(buf, bytes, MPI_BYTE, src, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      } else {
        MPI_Recv(buf, bytes, MPI_BYTE, src, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Send(buf, bytes, MPI_BYTE, 0, 1, MPI_COMM_WORLD);
      }
    }
  }
  free(buf);
  MPI_Finalize();
  return 0;
}
