/* MPI_Iallreduce: latency (start + wait, back to back) and the overlap a
 * program gets when it computes between start and wait. Built unchanged
 * with ftmpi's mpicc, mpicc.openmpi and mpicc.mpich (bench/coll/nbc_run.py).
 *
 * Output, one line per size: "<bytes> <latency us> <overlap %> <overlap-test %>"
 *   latency: slowest rank's time per Iallreduce + Wait;
 *   overlap: 100 * (1 - (t(start; compute; wait) - t_compute) / t_latency),
 *            computing without any MPI call in between (libraries that
 *            progress only inside calls show ~0 there);
 *   overlap-test: the same with MPI_Test called between compute chunks.
 * The compute time is set to about the latency, so 100 % is full overlap. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static volatile double sink;

/* About `us` microseconds of work, in `chunks` pieces; MPI_Test between
 * them when req is given. */
static void compute(double us, int chunks, MPI_Request* req) {
  for (int c = 0; c < chunks; ++c) {
    double t0 = MPI_Wtime(), x = 0;
    while ((MPI_Wtime() - t0) * 1e6 < us / chunks)
      for (int i = 0; i < 100; ++i) x += i * 0.5;
    sink = x;
    if (req) {
      int flag;
      MPI_Test(req, &flag, MPI_STATUS_IGNORE);
    }
  }
}

static double slowest(double t) {
  double m;
  MPI_Allreduce(&t, &m, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  return m;
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int sizes[2] = {1, 131072}; /* doubles: 8 B and 1 MiB */
  double* in = malloc(sizeof(double) * 131072);
  double* out = malloc(sizeof(double) * 131072);
  for (int i = 0; i < 131072; ++i) in[i] = i;
  for (int s = 0; s < 2; ++s) {
    const int n = sizes[s], iters = n == 1 ? 2000 : 40;
    MPI_Request req;
    for (int w = 0; w < iters / 10 + 1; ++w) {
      MPI_Iallreduce(in, out, n, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD, &req);
      MPI_Wait(&req, MPI_STATUS_IGNORE);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    for (int k = 0; k < iters; ++k) {
      MPI_Iallreduce(in, out, n, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD, &req);
      MPI_Wait(&req, MPI_STATUS_IGNORE);
    }
    const double lat = slowest((MPI_Wtime() - t0) / iters * 1e6);
    const int citers = iters / 4 + 1;
    double tc = MPI_Wtime();
    for (int k = 0; k < citers; ++k) compute(lat, 8, NULL);
    const double comp = slowest((MPI_Wtime() - tc) / citers * 1e6);
    double ov[2];
    for (int with_test = 0; with_test < 2; ++with_test) {
      MPI_Barrier(MPI_COMM_WORLD);
      double t1 = MPI_Wtime();
      for (int k = 0; k < citers; ++k) {
        MPI_Iallreduce(in, out, n, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD, &req);
        compute(lat, 8, with_test ? &req : NULL);
        MPI_Wait(&req, MPI_STATUS_IGNORE);
      }
      const double both = slowest((MPI_Wtime() - t1) / citers * 1e6);
      double o = 100.0 * (1.0 - (both - comp) / lat);
      ov[with_test] = o < 0 ? 0 : o > 100 ? 100 : o;
    }
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) printf("%d %.1f %.0f %.0f\n", n * 8, lat, ov[0], ov[1]);
  }
  free(in);
  free(out);
  MPI_Finalize();
  return 0;
}
