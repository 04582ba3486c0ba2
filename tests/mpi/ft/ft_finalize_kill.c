/* A process killed inside MPI_Finalize, while the others still wait there or
 * have not arrived (spec/ft-semantics.md §5): the fence completes without it
 * and, in REBUILD, it is not started again (a new process would run the
 * program from the start and wait forever for peers that are leaving).
 * Rank 1 tells rank 2 its pid and enters MPI_Finalize; rank 2 kills it a
 * second later, then finalizes too. */
#include <signal.h>
#include <unistd.h>

#include "check.h"

int main(int argc, char** argv) {
  int rc = MPI_Init(&argc, &argv), rank, size;
  CHECK(rc == MPI_SUCCESS, "MPI_Init returned %d (a respawn?)", rc);
  CHECK_MPI(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
  CHECK_MPI(MPI_Comm_size(MPI_COMM_WORLD, &size));
  CHECK(size >= 3, "needs 3 ranks");
  CHECK_MPI(MPI_Errhandler_set(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
  int x = rank, sum = 0;
  CHECK_MPI(MPI_Allreduce(&x, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
  CHECK(sum == size * (size - 1) / 2, "allreduce gave %d", sum);
  if (rank == 1) {
    int pid = (int)getpid();
    CHECK_MPI(MPI_Send(&pid, 1, MPI_INT, 2, 5, MPI_COMM_WORLD));
  } else if (rank == 2) {
    int pid = 0;
    CHECK_MPI(MPI_Recv(&pid, 1, MPI_INT, 1, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    sleep(1);
    CHECK(kill((pid_t)pid, SIGKILL) == 0, "kill %d", pid);
    sleep(1);
  }
  MPI_Finalize();
  if (rank == 0) printf("ft_finalize_kill: rank 0 finalized\n");
  return 0;
}
