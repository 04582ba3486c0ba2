/* A job that keeps communicating until told to stop, for flood_job.py: every
 * rank prints "ready <rank> <pid>", then runs iterations (a ring Sendrecv and
 * an Allreduce whose values are checked) every 20 ms until rank 0 sees the
 * stop file (argv[1]); failures are recovered (MANUAL), a respawned rank
 * joins at the survivors' iteration. Rank 0 prints "ft_flood: ok" and the
 * number of recoveries. */
#include <signal.h>
#include <stdlib.h>
#include <unistd.h>

#include "check.h"

static void recover(void) {
  MPI_Comm unused;
  int rc;
  while ((rc = MPI_Comm_dup(MPI_COMM_WORLD, &unused)) != MPI_SUCCESS)
    CHECK(cls(rc) == MPI_ERR_OTHER, "recovery failed with class %d", cls(rc));
}

/* One iteration; MPI_ERR_OTHER if a failure interrupted it. */
static int step(int it, int* stop, const char* stop_file) {
  int rank, size, got = -1, rc;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int mine = it * 1000 + rank;
  rc = MPI_Sendrecv(&mine, 1, MPI_INT, (rank + 1) % size, 1, &got, 1, MPI_INT, (rank + size - 1) % size, 1,
                    MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  if (rc != MPI_SUCCESS) return rc;
  CHECK(got == it * 1000 + (rank + size - 1) % size, "iteration %d: ring got %d", it, got);
  int in[2] = {rank, rank == 0 && access(stop_file, F_OK) == 0}, out[2];
  if ((rc = MPI_Allreduce(in, out, 2, MPI_INT, MPI_SUM, MPI_COMM_WORLD)) != MPI_SUCCESS) return rc;
  CHECK(out[0] == size * (size - 1) / 2, "iteration %d: sum %d", it, out[0]);
  *stop = out[1];
  return MPI_SUCCESS;
}

int main(int argc, char** argv) {
  int rc = MPI_Init(&argc, &argv), rank, it = 0, stop = 0, recoveries = 0;
  CHECK(rc == MPI_SUCCESS || rc == MPI_INIT_RESTARTED_NODE, "MPI_Init returned %d", rc);
  CHECK(argc > 1, "usage: ft_flood STOP_FILE");
  CHECK_MPI(MPI_Errhandler_set(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  printf("ready %d %d\n", rank, (int)getpid());
  fflush(stdout);
  int synced = rc != MPI_INIT_RESTARTED_NODE;
  while (!stop) {
    if (!synced) { /* after a recovery: everybody goes on from the furthest iteration */
      int furthest;
      rc = MPI_Allreduce(&it, &furthest, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
      if (rc == MPI_SUCCESS) it = furthest, synced = 1;
    } else {
      rc = step(it, &stop, argv[1]);
      if (rc == MPI_SUCCESS) ++it, usleep(20000);
    }
    if (rc != MPI_SUCCESS) {
      CHECK(cls(rc) == MPI_ERR_OTHER, "iteration %d failed with class %d", it, cls(rc));
      recover();
      ++recoveries;
      synced = 0;
    }
  }
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  if (rank == 0) printf("ft_flood: ok (%d iterations, %d recoveries)\n", it, recoveries);
  MPI_Finalize();
  return 0;
}
