/* MPI_ERR_PENDING (run with --ft-comm-mode=blank --ft-recovery-mode=ignore, 3
 * ranks: only operations involving the dead rank fail): rank 2 dies;
 * rank 0's Waitall over a receive from rank 2 and a receive from rank 1
 * (which rank 1 only sends later) returns MPI_ERR_IN_STATUS at once, with
 * the failed request's error (MPI_ERR_OTHER, freed) and MPI_ERR_PENDING for
 * the other, which stays active and completes later. Testall does the same
 * with flag false. Probes of the dead rank report its failure. */
#include <signal.h>

#include "check.h"

int main(int argc, char** argv) {
  int rank, size, a = -1, b = -1, go = 1;
  CHECK_MPI(MPI_Init(&argc, &argv));
  CHECK_MPI(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
  CHECK_MPI(MPI_Comm_size(MPI_COMM_WORLD, &size));
  CHECK(size == 3, "needs 3 ranks");
  CHECK_MPI(MPI_Errhandler_set(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  /* Rank 2 dies only once the others are past the barrier: its synchronous
   * sends complete when they have been received, and everything it sent
   * before (barrier messages it may not have pushed out yet) precedes them. */
  if (rank == 2) {
    CHECK_MPI(MPI_Ssend(&go, 1, MPI_INT, 0, 9, MPI_COMM_WORLD));
    CHECK_MPI(MPI_Ssend(&go, 1, MPI_INT, 1, 9, MPI_COMM_WORLD));
    raise(SIGKILL);
  }
  CHECK_MPI(MPI_Recv(&a, 1, MPI_INT, 2, 9, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
  if (rank == 0) {
    for (int round = 0; round < 2; ++round) {
      MPI_Request req[3];
      MPI_Status st[3];
      CHECK_MPI(MPI_Irecv(&a, 1, MPI_INT, 2, 5, MPI_COMM_WORLD, &req[0]));
      CHECK_MPI(MPI_Irecv(&b, 1, MPI_INT, 1, 6, MPI_COMM_WORLD, &req[1]));
      req[2] = MPI_REQUEST_NULL;
      int rc, flag = 1;
      if (round == 0) {
        rc = MPI_Waitall(3, req, st);
      } else {
        do rc = MPI_Testall(3, req, &flag, st);
        while (rc == MPI_SUCCESS && !flag);
        CHECK(!flag, "testall flag with a request still pending");
      }
      CHECK(cls(rc) == MPI_ERR_IN_STATUS, "round %d returned class %d", round, cls(rc));
      CHECK(cls(st[0].MPI_ERROR) == MPI_ERR_OTHER && req[0] == MPI_REQUEST_NULL, "round %d: failed request: %d",
            round, st[0].MPI_ERROR);
      CHECK(st[1].MPI_ERROR == MPI_ERR_PENDING && req[1] != MPI_REQUEST_NULL, "round %d: pending request: %d", round,
            st[1].MPI_ERROR);
      CHECK_MPI(MPI_Send(&go, 1, MPI_INT, 1, 7, MPI_COMM_WORLD));
      CHECK_MPI(MPI_Wait(&req[1], &st[1]));
      CHECK(b == 100 + round, "round %d: late message %d", round, b);
    }
    /* Probes of the dead rank end with its failure instead of waiting. */
    MPI_Status st;
    int flag = 0;
    CHECK(cls(MPI_Probe(2, MPI_ANY_TAG, MPI_COMM_WORLD, &st)) == MPI_ERR_OTHER, "probe of a dead rank");
    CHECK(cls(MPI_Iprobe(2, 5, MPI_COMM_WORLD, &flag, &st)) == MPI_ERR_OTHER && flag, "iprobe of a dead rank");
    printf("pending: ok\n");
    fflush(stdout);
  } else if (rank == 1) {
    for (int round = 0; round < 2; ++round) {
      CHECK_MPI(MPI_Recv(&go, 1, MPI_INT, 0, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
      int v = 100 + round;
      CHECK_MPI(MPI_Send(&v, 1, MPI_INT, 0, 6, MPI_COMM_WORLD));
    }
  }
  MPI_Finalize();
  return 0;
}
