/* A collective whose peer dies returns MPI_ERR_OTHER instead of hanging.
 * Run with --ft-comm-mode=blank --ft-recovery-mode=ignore, so survivors go
 * on after the failure. After a few good rounds of the collective named by
 * argv[1] and a barrier, rank `victim` (argv[2], default np - 1) kills
 * itself; the others call the collective once more, which must fail with
 * MPI_ERR_OTHER on every one of them.
 *
 * (Killing the victim in the middle of the rounds instead would let some
 * survivors finish a round that others fail: without atomic collectives,
 * issue 7, survivors may disagree on the outcome.)
 *
 * With the default recovery mode (manual) instead of ignore, a failure
 * notice interrupts the collective on every survivor, also on those that
 * only wait for another survivor; pass "recover" to then run the recovery
 * (MPI_Comm_dup of MPI_COMM_WORLD, under --ft-comm-mode=shrink) and a
 * collective on the shrunk MPI_COMM_WORLD before MPI_Finalize.
 *
 *   coll_failure alltoall|allgather|bcast|allreduce|barrier [victim] [recover] */
#include <signal.h>
#include <stdio.h>
#include <unistd.h>

#include "coll_util.h"

int main(int argc, char** argv) {
  int rank, np;
  CHECK_MPI(MPI_Init(&argc, &argv));
  CHECK_MPI(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
  CHECK_MPI(MPI_Comm_size(MPI_COMM_WORLD, &np));
  CHECK_MPI(MPI_Errhandler_set(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
  const char* which = argc > 1 ? argv[1] : "alltoall";
  const int victim = argc > 2 ? atoi(argv[2]) : np - 1;
  const int recover = argc > 3 && !strcmp(argv[3], "recover");
  const int n = 100000; /* ints per block: large enough for rendezvous */
  int* s = calloc((size_t)n * np, sizeof(int));
  int* r = calloc((size_t)n * np, sizeof(int));
  int rc = MPI_SUCCESS;
  for (int round = 0; round < 6; ++round) {
    if (round == 5) {
      CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
      if (rank == victim) {
        usleep(200000); /* the others are past the barrier */
        raise(SIGKILL);
      }
    }
    if (!strcmp(which, "alltoall")) rc = MPI_Alltoall(s, n, MPI_INT, r, n, MPI_INT, MPI_COMM_WORLD);
    else if (!strcmp(which, "allgather")) rc = MPI_Allgather(s, n, MPI_INT, r, n, MPI_INT, MPI_COMM_WORLD);
    else if (!strcmp(which, "bcast")) rc = MPI_Bcast(s, n, MPI_INT, victim, MPI_COMM_WORLD);
    else if (!strcmp(which, "allreduce")) rc = MPI_Allreduce(s, r, n, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    else rc = MPI_Barrier(MPI_COMM_WORLD);
    CHECK(round == 5 || rc == MPI_SUCCESS, "%s failed in round %d with nobody dead", which, round);
  }
  int cls;
  MPI_Error_class(rc, &cls);
  CHECK(cls == MPI_ERR_OTHER, "%s returned class %d after the failure, not MPI_ERR_OTHER", which, cls);
  printf("coll_failure: rank %d saw MPI_ERR_OTHER from %s\n", rank, which);
  fflush(stdout);
  if (recover) {
    MPI_Comm dup;
    CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
    int one = 1, sum = 0, now = 0; /* run with --ft-comm-mode=shrink: np - 1 ranks remain */
    CHECK_MPI(MPI_Comm_size(MPI_COMM_WORLD, &now));
    CHECK_MPI(MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    CHECK(now == np - 1 && sum == np - 1, "after the recovery: size %d, allreduce gave %d", now, sum);
    printf("coll_failure: rank %d recovered\n", rank);
  }
  /* The other survivor may still be sending its part of the stopped round
   * (it is consumed by the zero-byte receive the collective left behind).
   * Keep progressing a while: MPI_Finalize waits until every send of this
   * process completed, but a process already in the finalize fence no
   * longer receives, so without this the two could wait for each other. */
  double until = MPI_Wtime() + 0.2;
  int flag;
  while (MPI_Wtime() < until) MPI_Iprobe(MPI_ANY_SOURCE, 12345, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
  free(s);
  free(r);
  MPI_Finalize();
  return 0;
}
