/* A collective whose peer dies returns MPI_ERR_OTHER instead of hanging.
 * Run with --ft-comm-mode=blank --ft-recovery-mode=ignore, so survivors go
 * on after the failure. Rank `victim` (argv[2], default np - 1) kills
 * itself after a few rounds of the collective named by argv[1]; the others
 * loop on it until it fails, which must happen with MPI_ERR_OTHER.
 *
 *   coll_failure alltoall|allgather|bcast|allreduce|barrier [victim] */
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
  const int n = 100000; /* ints per block: large enough for rendezvous */
  int* s = calloc((size_t)n * np, sizeof(int));
  int* r = calloc((size_t)n * np, sizeof(int));
  int rc = MPI_SUCCESS;
  for (int round = 0; rc == MPI_SUCCESS; ++round) {
    if (rank == victim && round == 5) raise(SIGKILL);
    if (!strcmp(which, "alltoall")) rc = MPI_Alltoall(s, n, MPI_INT, r, n, MPI_INT, MPI_COMM_WORLD);
    else if (!strcmp(which, "allgather")) rc = MPI_Allgather(s, n, MPI_INT, r, n, MPI_INT, MPI_COMM_WORLD);
    else if (!strcmp(which, "bcast")) rc = MPI_Bcast(s, n, MPI_INT, victim, MPI_COMM_WORLD);
    else if (!strcmp(which, "allreduce")) rc = MPI_Allreduce(s, r, n, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    else rc = MPI_Barrier(MPI_COMM_WORLD);
    CHECK(round < 100000, "no failure seen");
  }
  int cls;
  MPI_Error_class(rc, &cls);
  CHECK(cls == MPI_ERR_OTHER, "%s returned class %d after the failure, not MPI_ERR_OTHER", which, cls);
  printf("coll_failure: rank %d saw MPI_ERR_OTHER from %s\n", rank, which);
  fflush(stdout);
  free(s);
  free(r);
  MPI_Finalize();
  return 0;
}
