/* Default error handler: rank 1 sends to a rank that does not exist, which
 * must end the whole job (even ranks blocked in a receive) with a message
 * naming the call and the error class. */
#include "check.h"

int main(int argc, char** argv) {
  int rank, size, v = 0;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (rank == 1) MPI_Send(&v, 1, MPI_INT, size + 10, 0, MPI_COMM_WORLD);
  else MPI_Recv(&v, 1, MPI_INT, MPI_ANY_SOURCE, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  printf("unreachable: rank %d went on after a fatal error\n", rank);
  MPI_Finalize();
  return 0;
}
