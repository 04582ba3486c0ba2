/* Ping-pong to a rank that was respawned on another host (issue 14):
 *
 *   mpirun -np 4 --host 127.0.0.2:2,127.0.0.3:2 --ft-comm-mode=rebuild \
 *          --inject 'kill host=127.0.0.3 at=15s' respawn_pingpong [iters]
 *
 * Before the failure rank 0 measures rank 1 (its host) and rank 2 (the other
 * host); the second host is then lost and REBUILD restarts ranks 2 and 3 on
 * rank 0's host; rank 0 measures ranks 1 and 2 again. Prints the one-way
 * latency of 8-byte messages (half the mean round trip, best of 5 batches). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static double pingpong(int peer, int iters, int me) {
  char buf[8] = {0};
  double best = 1e9;
  for (int batch = 0; batch < 6; ++batch) {
    double t0 = MPI_Wtime();
    for (int i = 0; i < iters; ++i) {
      int rc;
      if (me == 0)
        rc = MPI_Send(buf, 8, MPI_CHAR, peer, 1, MPI_COMM_WORLD) ||
             MPI_Recv(buf, 8, MPI_CHAR, peer, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      else
        rc = MPI_Recv(buf, 8, MPI_CHAR, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE) ||
             MPI_Send(buf, 8, MPI_CHAR, 0, 1, MPI_COMM_WORLD);
      if (rc) {
        fprintf(stderr, "respawn_pingpong: rank %d: error %d with rank %d during the measurement\n", me, rc, peer);
        MPI_Abort(MPI_COMM_WORLD, 1);
      }
    }
    double us = (MPI_Wtime() - t0) / iters / 2 * 1e6;
    if (batch > 0 && us < best) best = us;  /* batch 0 warms up */
  }
  return best;
}

static void measure(const char* when, int rank, int iters) {
  for (int peer = 1; peer <= 2; ++peer) {
    if (rank == 0 || rank == peer) {
      double us = pingpong(peer, iters, rank);
      if (rank == 0) printf("%s: rank 0 <-> rank %d: %.2f us\n", when, peer, us);
      fflush(stdout);
    }
    MPI_Barrier(MPI_COMM_WORLD);
  }
}

int main(int argc, char** argv) {
  int rc = MPI_Init(&argc, &argv), rank;
  int iters = argc > 1 ? atoi(argv[1]) : 2000;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Errhandler_set(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  if (rc != MPI_INIT_RESTARTED_NODE) {
    measure("before", rank, iters);
    while (MPI_Barrier(MPI_COMM_WORLD) == MPI_SUCCESS) usleep(10000); /* until the host is lost */
    MPI_Comm unused;
    while (MPI_Comm_dup(MPI_COMM_WORLD, &unused) != MPI_SUCCESS) {
    }
  }
  measure("after", rank, iters);
  MPI_Finalize();
  return 0;
}
