/* Ways a job ends abnormally, chosen by argv[1]:
 *   kill   - rank 2 SIGKILLs itself while the others are blocked in MPI calls
 *   abort  - rank 1 calls MPI_Abort(MPI_COMM_WORLD, 7) while the others wait
 *   exit   - rank 1 exits with status 5 without MPI_Finalize
 *   hang   - everybody loops in ping-pongs and barriers until interrupted
 *   late   - rank 1 exits with status 4 after MPI_Finalize (not a failure, but
 *            the job's exit status reports it) */
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"

int main(int argc, char** argv) {
  int rank, size, v = 0;
  const char* mode = argc > 1 ? argv[1] : "kill";
  CHECK_MPI(MPI_Init(&argc, &argv));
  CHECK_MPI(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
  CHECK_MPI(MPI_Comm_size(MPI_COMM_WORLD, &size));
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  if (!strcmp(mode, "kill")) {
    if (rank == 2) {
      usleep(200000);
      raise(SIGKILL);
    }
    MPI_Recv(&v, 1, MPI_INT, MPI_ANY_SOURCE, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  } else if (!strcmp(mode, "abort")) {
    if (rank == 1) {
      usleep(200000);
      MPI_Abort(MPI_COMM_WORLD, 7);
    }
    MPI_Recv(&v, 1, MPI_INT, MPI_ANY_SOURCE, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  } else if (!strcmp(mode, "exit")) {
    if (rank == 1) exit(5);
    MPI_Recv(&v, 1, MPI_INT, MPI_ANY_SOURCE, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  } else if (!strcmp(mode, "hang")) {
    if (rank == 0) printf("hang: running\n");
    fflush(stdout);
    for (;;) {
      CHECK_MPI(MPI_Sendrecv(&rank, 1, MPI_INT, (rank + 1) % size, 0, &v, 1, MPI_INT, (rank + size - 1) % size, 0,
                             MPI_COMM_WORLD, MPI_STATUS_IGNORE));
      CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    }
  } else if (!strcmp(mode, "late")) {
    CHECK_MPI(MPI_Finalize());
    return rank == 1 ? 4 : 0;
  }
  printf("unreachable: rank %d returned from a blocked call\n", rank);
  MPI_Finalize();
  return 0;
}
