/* Start-up benchmark program: MPI_Init, one barrier, MPI_Finalize. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char** argv) {
  int rank, size;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) printf("hello from %d ranks\n", size);
  MPI_Finalize();
  return 0;
}
