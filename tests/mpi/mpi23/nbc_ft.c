/* A process dies during nonblocking collectives (spec/ft-collectives.md §7),
 * in every communicator mode (MANUAL recovery):
 *   - the victim (world rank 2) completes one round of nonblocking
 *     collectives with the others, starts a large MPI_Iallreduce (so its
 *     transfers are in flight) and SIGKILLs itself;
 *   - the survivors have started MPI_Iallreduce, MPI_Ibarrier and
 *     MPI_Ialltoall on MPI_COMM_WORLD: the last two, which the victim never
 *     started, complete with MPI_ERR_OTHER everywhere (a Wait interrupted by
 *     the failure notice returns MPI_ERR_OTHER and leaves the request valid;
 *     after the recovery the next Wait ends it); the Iallreduce ends either
 *     so or, where the victim's part arrived before it died, normally with
 *     the full result; none hangs;
 *   - after MPI_Comm_dup(MPI_COMM_WORLD) (the recovery), everybody alive
 *     (REBUILD: the respawned victim too) runs nonblocking collectives
 *     again and checks their values over the new membership. */
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"

#define VICTIM 2
#define BIG (1 << 17)

static int finish(MPI_Request* req) {
  int rc = MPI_Wait(req, MPI_STATUS_IGNORE);
  return rc;
}

static void after_recovery(int comm_mode, int nprocs0) {
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int expect_size = comm_mode == FTMPI_COMM_MODE_SHRINK ? nprocs0 - 1 : nprocs0;
  CHECK(size == expect_size, "size after recovery %d, expected %d", size, expect_size);
  /* Who takes part: BLANK leaves the victim's rank as a hole. */
  int live = comm_mode == FTMPI_COMM_MODE_BLANK ? size - 1 : size;
  long long want = 0;
  for (int r = 0; r < size; ++r)
    if (!(comm_mode == FTMPI_COMM_MODE_BLANK && r == VICTIM)) want += r + 1;
  long long mine = rank + 1, sum = -1;
  MPI_Request req[2];
  CHECK_MPI(MPI_Iallreduce(&mine, &sum, 1, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD, &req[0]));
  CHECK_MPI(MPI_Ibarrier(MPI_COMM_WORLD, &req[1]));
  CHECK_MPI(MPI_Waitall(2, req, MPI_STATUSES_IGNORE));
  CHECK(sum == want, "iallreduce after recovery: %lld, expected %lld (%d live)", sum, want, live);
  int root = 0, v = rank == root ? 4242 : -1;
  CHECK_MPI(MPI_Ibcast(&v, 1, MPI_INT, root, MPI_COMM_WORLD, &req[0]));
  CHECK_MPI(MPI_Wait(&req[0], MPI_STATUS_IGNORE));
  CHECK(v == 4242, "ibcast after recovery: %d", v);
}

int main(int argc, char** argv) {
  const int rc0 = MPI_Init(&argc, &argv);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  const int comm_mode = attr_int(FTMPI_COMM_MODE);
  int rank, nprocs0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nprocs0);
  CHECK(nprocs0 > VICTIM, "needs more than %d processes", VICTIM);
  if (rc0 == MPI_INIT_RESTARTED_NODE) {
    /* REBUILD: the respawned victim joins the survivors after their recovery. */
    after_recovery(comm_mode, nprocs0);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
  }
  /* A round that succeeds everywhere, the victim included. */
  int one = 1, n = 0;
  MPI_Request req;
  CHECK_MPI(MPI_Iallreduce(&one, &n, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &req));
  CHECK_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
  CHECK(n == nprocs0, "first iallreduce %d", n);

  /* The victim dies only once every survivor finished that round (else a
   * survivor's wait could be interrupted there): each tells rank 0, which
   * then lets the victim go; the victim waits with MPI_Test, which a
   * failure notice does not interrupt. */
  if (rank == 0) {
    int x;
    for (int r = 1; r < nprocs0; ++r)
      if (r != VICTIM) CHECK_MPI(MPI_Recv(&x, 1, MPI_INT, r, 90, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    CHECK_MPI(MPI_Send(&one, 1, MPI_INT, VICTIM, 91, MPI_COMM_WORLD));
  } else if (rank == VICTIM) {
    int x, flag = 0;
    CHECK_MPI(MPI_Irecv(&x, 1, MPI_INT, 0, 91, MPI_COMM_WORLD, &req));
    while (!flag) MPI_Test(&req, &flag, MPI_STATUS_IGNORE);
  } else {
    CHECK_MPI(MPI_Send(&one, 1, MPI_INT, 0, 90, MPI_COMM_WORLD));
  }
  double* big = malloc(sizeof(double) * BIG);
  double* out = malloc(sizeof(double) * BIG);
  for (int i = 0; i < BIG; ++i) big[i] = i;
  if (rank == VICTIM) {
    MPI_Request dying;
    CHECK_MPI(MPI_Iallreduce(big, out, BIG, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD, &dying));
    raise(SIGKILL);
  }
  int* a2a = calloc((size_t)nprocs0 * 2, sizeof(int));
  int* a2b = calloc((size_t)nprocs0 * 2, sizeof(int));
  MPI_Request reqs[3];
  CHECK_MPI(MPI_Iallreduce(big, out, BIG, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD, &reqs[0]));
  CHECK_MPI(MPI_Ibarrier(MPI_COMM_WORLD, &reqs[1]));
  CHECK_MPI(MPI_Ialltoall(a2a, 2, MPI_INT, a2b, 2, MPI_INT, MPI_COMM_WORLD, &reqs[2]));
  int recovered = 0;
  for (int k = 0; k < 3; ++k) {
    int rc = finish(&reqs[k]);
    /* Interrupted by the failure notice: the request is still there. */
    while (rc != MPI_SUCCESS && reqs[k] != MPI_REQUEST_NULL) {
      CHECK(cls(rc) == MPI_ERR_OTHER, "collective %d: error class %d", k, cls(rc));
      if (!recovered) {
        MPI_Comm dummy;
        CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &dummy));
        recovered = 1;
      }
      rc = finish(&reqs[k]);
    }
    if (k == 0 && rc == MPI_SUCCESS) {
      /* The victim had started this one: its part may have gone out before
       * it died, and a member its death does not cut off then ends normally
       * (collectives are not atomic in this mode) with the full result. */
      for (int i = 0; i < BIG; i += 4099) CHECK(out[i] == (double)nprocs0 * i, "iallreduce [%d] = %g", i, out[i]);
    } else {
      CHECK(cls(rc) == MPI_ERR_OTHER, "collective %d needing the dead process ended with class %d", k, cls(rc));
    }
    CHECK(reqs[k] == MPI_REQUEST_NULL, "request %d not released", k);
  }
  if (!recovered) {
    MPI_Comm dummy;
    CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &dummy));
  }
  after_recovery(comm_mode, nprocs0);
  free(big), free(out), free(a2a), free(a2b);
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank == 0) printf("nbc_ft: ok\n");
  MPI_Finalize();
  return 0;
}
