/* The smallest MPI program; the packaging tests compile and link it (they do
 * not run it) through every route a user has: mpicc, pkg-config,
 * find_package(ftmpi), find_package(MPI). */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv) {
  int rank = -1;
  if (MPI_Init(&argc, &argv) != MPI_SUCCESS) return 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  printf("rank %d\n", rank);
  return MPI_Finalize();
}
