/* Ping-pong latency and streaming bandwidth between ranks 0 and 1, written
 * against the MPI-1.2 standard only, so the same source builds with ftmpi,
 * Open MPI and MPICH. Ranks 2.. wait in MPI_Recv the whole time (the
 * oversubscription case: 8 ranks on 2 cores). Output lines:
 *   lat <bytes> <half round trip in microseconds>
 *   bw  <bytes> <MB/s, 10^6 bytes per second>
 * Iteration counts are calibrated per size so that each point takes about
 * `target` seconds (argv[1], default 0.3); argv[2] is the largest size;
 * argv[3] "any" makes the ping-pong receives MPI_ANY_SOURCE. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int rank;
static int any_source;

static int calibrate(double seconds_per_iter, double target, int lo, int hi) {
  int n = seconds_per_iter > 0 ? (int)(target / seconds_per_iter) : hi;
  return n < lo ? lo : n > hi ? hi : n;
}

/* Rank 0 decides the iteration count and tells rank 1. */
static int agree(int n) {
  if (rank == 0) MPI_Send(&n, 1, MPI_INT, 1, 99, MPI_COMM_WORLD);
  else MPI_Recv(&n, 1, MPI_INT, 0, 99, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  return n;
}

static double pingpong(char* buf, int bytes, int iters) {
  double t0 = MPI_Wtime();
  for (int i = 0; i < iters; ++i) {
    if (rank == 0) {
      MPI_Send(buf, bytes, MPI_BYTE, 1, 1, MPI_COMM_WORLD);
      MPI_Recv(buf, bytes, MPI_BYTE, any_source ? MPI_ANY_SOURCE : 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else {
      MPI_Recv(buf, bytes, MPI_BYTE, any_source ? MPI_ANY_SOURCE : 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      MPI_Send(buf, bytes, MPI_BYTE, 0, 1, MPI_COMM_WORLD);
    }
  }
  return MPI_Wtime() - t0;
}

#define WINDOW 32
static double stream(char* buf, int bytes, int iters) {
  MPI_Request req[WINDOW];
  char ack;
  double t0 = MPI_Wtime();
  for (int i = 0; i < iters; ++i) {
    for (int w = 0; w < WINDOW; ++w) {
      if (rank == 0) MPI_Isend(buf, bytes, MPI_BYTE, 1, 2, MPI_COMM_WORLD, &req[w]);
      else MPI_Irecv(buf, bytes, MPI_BYTE, 0, 2, MPI_COMM_WORLD, &req[w]);
    }
    MPI_Waitall(WINDOW, req, MPI_STATUSES_IGNORE);
    if (rank == 0) MPI_Recv(&ack, 1, MPI_BYTE, 1, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    else MPI_Send(&ack, 1, MPI_BYTE, 0, 3, MPI_COMM_WORLD);
  }
  return MPI_Wtime() - t0;
}

int main(int argc, char** argv) {
  int size;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  double target = argc > 1 ? atof(argv[1]) : 0.3;
  int max_bytes = argc > 2 ? atoi(argv[2]) : 4 << 20;
  any_source = argc > 3 && strcmp(argv[3], "any") == 0;
  if (rank >= 2) {
    /* Waiting in MPI_Recv for the whole run, as an idle rank of a real job would. */
    char done;
    MPI_Recv(&done, 1, MPI_BYTE, 0, 100, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Finalize();
    return 0;
  }
  char* buf = malloc((size_t)max_bytes);
  memset(buf, 1, (size_t)max_bytes);
  pingpong(buf, 8, 100); /* warm-up: connections, page faults */
  static const int sizes[] = {0, 8, 64, 512, 4096, 32768, 262144, 1 << 20, 4 << 20};
  for (size_t k = 0; k < sizeof sizes / sizeof sizes[0] && sizes[k] <= max_bytes; ++k) {
    int b = sizes[k];
    double t = pingpong(buf, b, 5);
    int iters = agree(calibrate(t / 5, target, 10, 200000));
    t = pingpong(buf, b, iters);
    if (rank == 0) printf("lat %d %.3f\n", b, t / iters / 2 * 1e6);
    fflush(stdout);
  }
  for (int bytes = 4096; bytes <= max_bytes; bytes *= 4) {
    stream(buf, bytes, 1);
    double t = stream(buf, bytes, 2);
    int iters = agree(calibrate(t / 2, target, 3, 100000));
    t = stream(buf, bytes, iters);
    if (rank == 0) printf("bw %d %.1f\n", bytes, (double)bytes * WINDOW * iters / t / 1e6);
    fflush(stdout);
  }
  if (rank == 0) {
    char done = 1;
    for (int p = 2; p < size; ++p) MPI_Send(&done, 1, MPI_BYTE, p, 100, MPI_COMM_WORLD);
  }
  free(buf);
  MPI_Finalize();
  return 0;
}
