// C++ variant of hello.c, for mpicxx and C++ consumers of the packages.
#include <mpi.h>

#include <iostream>

int main(int argc, char** argv) {
  int rank = -1;
  if (MPI_Init(&argc, &argv) != MPI_SUCCESS) return 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  std::cout << "rank " << rank << '\n';
  return MPI_Finalize();
}
