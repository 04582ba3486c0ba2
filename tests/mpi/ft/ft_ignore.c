/* Recovery mode IGNORE (spec/ft-semantics.md §4.2): rank 1 dies; only
 * operations that involve it fail, with MPI_ERR_OTHER; everything among the
 * survivors keeps working, sizes and ranks never change, and no recovery is
 * needed. Communicator creation over a communicator holding the dead rank
 * fails; over MPI_COMM_SELF it works. */
#include <signal.h>
#include <string.h>

#include "check.h"

int main(int argc, char** argv) {
  int rank, size, x = 0;
  CHECK_MPI(MPI_Init(&argc, &argv));
  CHECK_MPI(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
  CHECK_MPI(MPI_Comm_size(MPI_COMM_WORLD, &size));
  CHECK(size >= 3, "needs 3 ranks");
  CHECK_MPI(MPI_Errhandler_set(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
  int* mode = NULL;
  int flag = 0;
  CHECK_MPI(MPI_Attr_get(MPI_COMM_WORLD, FTMPI_RECOVERY_MODE, &mode, &flag));
  CHECK(flag && *mode == FTMPI_RECOVERY_MODE_IGNORE, "recovery mode");
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  /* Rank 1 dies only once every survivor has left the barrier: a collective
   * that sees a member die gives up (spec/ft-collectives.md §2). */
  if (rank == 1) {
    for (int q = 0; q < size; ++q)
      if (q != 1) CHECK_MPI(MPI_Recv(&x, 1, MPI_INT, q, 99, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    raise(SIGKILL);
  }
  CHECK_MPI(MPI_Send(&x, 1, MPI_INT, 1, 99, MPI_COMM_WORLD));

  /* A receive from the dead rank ends with its failure instead of waiting. */
  MPI_Status st;
  CHECK(cls(MPI_Recv(&x, 1, MPI_INT, 1, 0, MPI_COMM_WORLD, &st)) == MPI_ERR_OTHER, "recv from the dead rank");
  CHECK(cls(MPI_Send(&x, 1, MPI_INT, 1, 0, MPI_COMM_WORLD)) == MPI_ERR_OTHER, "send to the dead rank");
  MPI_Request r;
  CHECK_MPI(MPI_Irecv(&x, 1, MPI_INT, 1, 0, MPI_COMM_WORLD, &r));
  CHECK(cls(MPI_Wait(&r, &st)) == MPI_ERR_OTHER, "irecv from the dead rank");

  /* Among survivors: a ring that skips rank 1, values checked, three laps. */
  int next = (rank + 1) % size, prev = (rank - 1 + size) % size;
  if (next == 1) next = 2 % size;
  if (prev == 1) prev = 0;
  for (int lap = 0; lap < 3; ++lap) {
    int out = lap * 100 + rank, in = -1;
    CHECK_MPI(MPI_Sendrecv(&out, 1, MPI_INT, next, 7, &in, 1, MPI_INT, prev, 7, MPI_COMM_WORLD, &st));
    CHECK(in == lap * 100 + prev && st.MPI_SOURCE == prev, "lap %d got %d from %d", lap, in, st.MPI_SOURCE);
  }
  int n, me;
  CHECK_MPI(MPI_Comm_size(MPI_COMM_WORLD, &n));
  CHECK_MPI(MPI_Comm_rank(MPI_COMM_WORLD, &me));
  CHECK(n == size && me == rank, "size/rank changed: %d/%d", n, me);

  /* Creation over a communicator with the dead rank fails; over SELF works. */
  MPI_Comm c;
  CHECK(cls(MPI_Comm_dup(MPI_COMM_WORLD, &c)) == MPI_ERR_OTHER, "dup of a communicator holding a dead rank");
  CHECK(cls(MPI_Comm_split(MPI_COMM_WORLD, 0, rank, &c)) == MPI_ERR_OTHER, "split");
  CHECK(cls(MPI_Barrier(MPI_COMM_WORLD)) == MPI_ERR_OTHER, "barrier over a dead rank");
  CHECK_MPI(MPI_Comm_dup(MPI_COMM_SELF, &c));
  CHECK_MPI(MPI_Comm_free(&c));

  int* nfailed = NULL;
  CHECK_MPI(MPI_Attr_get(MPI_COMM_WORLD, FTMPI_NUM_FAILED_PROCS, &nfailed, &flag));
  CHECK(flag && *nfailed == 1, "FTMPI_NUM_FAILED_PROCS %d", nfailed ? *nfailed : -1);
  int* code = NULL;
  CHECK_MPI(MPI_Attr_get(MPI_COMM_WORLD, FTMPI_ERROR_FAILURE, &code, &flag));
  char text[MPI_MAX_ERROR_STRING];
  int len;
  CHECK_MPI(MPI_Error_string(*code, text, &len));
  CHECK(strstr(text, "rank 1 ") != NULL, "error string '%s'", text);
  if (rank == 0) printf("ft_ignore: ok\n");
  CHECK_MPI(MPI_Finalize());
  return 0;
}
