/* Recovery mode IGNORE (spec/ft-semantics.md §4.2) when every other process
 * is dead: a blocking MPI_ANY_SOURCE receive or probe can never match, so it
 * fails with MPI_ERR_OTHER instead of waiting forever, both when it was
 * posted before the deaths and when it starts after them; a message to
 * oneself is still received from MPI_ANY_SOURCE. Ranks 1.. die once rank 0
 * has posted its receive (they wait for its go). */
#include <signal.h>

#include "check.h"

int main(int argc, char** argv) {
  int rank, size, x = 0;
  CHECK_MPI(MPI_Init(&argc, &argv));
  CHECK_MPI(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
  CHECK_MPI(MPI_Comm_size(MPI_COMM_WORLD, &size));
  CHECK(size >= 2, "needs 2 ranks");
  CHECK_MPI(MPI_Errhandler_set(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
  if (rank != 0) {
    CHECK_MPI(MPI_Recv(&x, 1, MPI_INT, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    raise(SIGKILL);
  }
  /* The go goes out eagerly; the receive below is posted before anyone dies. */
  MPI_Request go[64];
  for (int q = 1; q < size && q < 64; ++q) CHECK_MPI(MPI_Isend(&x, 1, MPI_INT, q, 1, MPI_COMM_WORLD, &go[q - 1]));
  MPI_Status st;
  CHECK(cls(MPI_Recv(&x, 1, MPI_INT, MPI_ANY_SOURCE, 2, MPI_COMM_WORLD, &st)) == MPI_ERR_OTHER,
        "a posted ANY_SOURCE receive with everyone else dead");
  MPI_Waitall(size - 1, go, MPI_STATUSES_IGNORE);
  /* Started after the deaths. */
  CHECK(cls(MPI_Recv(&x, 1, MPI_INT, MPI_ANY_SOURCE, 3, MPI_COMM_WORLD, &st)) == MPI_ERR_OTHER,
        "a new ANY_SOURCE receive");
  CHECK(cls(MPI_Probe(MPI_ANY_SOURCE, 3, MPI_COMM_WORLD, &st)) == MPI_ERR_OTHER, "an ANY_SOURCE probe");
  /* A message to oneself still arrives. */
  int out = 42, in = 0;
  MPI_Request r;
  CHECK_MPI(MPI_Isend(&out, 1, MPI_INT, 0, 4, MPI_COMM_WORLD, &r));
  CHECK_MPI(MPI_Recv(&in, 1, MPI_INT, MPI_ANY_SOURCE, 4, MPI_COMM_WORLD, &st));
  CHECK_MPI(MPI_Wait(&r, MPI_STATUS_IGNORE));
  CHECK(in == 42 && st.MPI_SOURCE == 0, "self message: %d from %d", in, st.MPI_SOURCE);
  printf("ft_ignore_alone: ok\n");
  MPI_Finalize();
  return 0;
}
