/* Collective latency benchmark, built unchanged against ftmpi, Open MPI and
 * MPICH (bench/coll/run.py drives it).
 *
 *   coll_bench [target_seconds_per_case] [ops] [sizes] [imb|osu]
 *     ops:   comma list of barrier,bcast,reduce,allreduce,allgather,alltoall
 *     sizes: comma list of bytes (per rank block for allgather/alltoall,
 *            the whole vector for bcast/reduce/allreduce)
 *
 * Methods, printed by rank 0 as "op bytes usec":
 *   imb (default, as the Intel MPI Benchmarks): the collectives run back to
 *       back, the root of bcast and reduce moving to the next rank each
 *       time; every rank times the loop, and the result is the slowest
 *       rank's time per call. Nothing but the collective is measured.
 *   osu (as the OSU micro-benchmarks): every iteration is a barrier, then
 *       the timed collective (root 0); the result is the average over ranks
 *       of each rank's own time. With ranks that outnumber cores this mostly
 *       measures how far apart ranks leave the barrier: a library whose
 *       barrier takes milliseconds shows a rooted collective "taking" a few
 *       microseconds, because the root sent long before the others looked.
 * The iteration count per case is calibrated by rank 0 so a case takes about
 * the target time (at least 5 iterations, at most 20000). Reductions use
 * MPI_DOUBLE / MPI_SUM (8 B = one double). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { OP_BARRIER, OP_BCAST, OP_REDUCE, OP_ALLREDUCE, OP_ALLGATHER, OP_ALLTOALL, OP_COUNT };
static const char* kOpNames[OP_COUNT] = {"barrier", "bcast", "reduce", "allreduce", "allgather", "alltoall"};

static char *sbuf, *rbuf;

static int osu = 0;

static void run_once(int op, int bytes, int root) {
  int dcount = bytes / 8 > 0 ? bytes / 8 : 1;
  switch (op) {
    case OP_BARRIER:
      MPI_Barrier(MPI_COMM_WORLD);
      break;
    case OP_BCAST:
      MPI_Bcast(sbuf, bytes, MPI_BYTE, root, MPI_COMM_WORLD);
      break;
    case OP_REDUCE:
      MPI_Reduce(sbuf, rbuf, dcount, MPI_DOUBLE, MPI_SUM, root, MPI_COMM_WORLD);
      break;
    case OP_ALLREDUCE:
      MPI_Allreduce(sbuf, rbuf, dcount, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
      break;
    case OP_ALLGATHER:
      MPI_Allgather(sbuf, bytes, MPI_BYTE, rbuf, bytes, MPI_BYTE, MPI_COMM_WORLD);
      break;
    case OP_ALLTOALL:
      MPI_Alltoall(sbuf, bytes, MPI_BYTE, rbuf, bytes, MPI_BYTE, MPI_COMM_WORLD);
      break;
  }
}

/* Time of one collective, averaged over `iters` iterations on this rank. */
static double time_case(int op, int bytes, int np, int iters) {
  if (osu) {
    double total = 0;
    for (int i = 0; i < iters; ++i) {
      MPI_Barrier(MPI_COMM_WORLD);
      double t0 = MPI_Wtime();
      run_once(op, bytes, 0);
      total += MPI_Wtime() - t0;
    }
    return total / iters;
  }
  MPI_Barrier(MPI_COMM_WORLD);
  double t0 = MPI_Wtime();
  for (int i = 0; i < iters; ++i) run_once(op, bytes, i % np);
  return (MPI_Wtime() - t0) / iters;
}

static int parse_list(const char* s, const char** names, int nnames, int* out, int max) {
  int n = 0;
  char* copy = strdup(s);
  for (char* tok = strtok(copy, ","); tok && n < max; tok = strtok(NULL, ",")) {
    if (names) {
      for (int i = 0; i < nnames; ++i)
        if (strcmp(tok, names[i]) == 0) out[n++] = i;
    } else {
      out[n++] = atoi(tok);
    }
  }
  free(copy);
  return n;
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, np;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &np);
  double target = argc > 1 ? atof(argv[1]) : 0.3;
  int ops[OP_COUNT], nops = OP_COUNT;
  for (int i = 0; i < OP_COUNT; ++i) ops[i] = i;
  if (argc > 2) nops = parse_list(argv[2], kOpNames, OP_COUNT, ops, OP_COUNT);
  int sizes[32] = {8, 65536, 1048576}, nsizes = 3;
  if (argc > 3) nsizes = parse_list(argv[3], NULL, 0, sizes, 32);
  osu = argc > 4 && strcmp(argv[4], "osu") == 0;

  int max_bytes = 0;
  for (int i = 0; i < nsizes; ++i)
    if (sizes[i] > max_bytes) max_bytes = sizes[i];
  size_t buf_bytes = (size_t)max_bytes * (size_t)np;
  if (buf_bytes < 64) buf_bytes = 64;
  sbuf = malloc(buf_bytes);
  rbuf = malloc(buf_bytes);
  for (size_t i = 0; i < buf_bytes / sizeof(double); ++i) ((double*)sbuf)[i] = (double)(i % 1000) * 0.5;
  memset(rbuf, 0, buf_bytes);

  for (int o = 0; o < nops; ++o) {
    int op = ops[o];
    for (int s = 0; s < nsizes; ++s) {
      int bytes = op == OP_BARRIER ? 0 : sizes[s];
      if (op == OP_BARRIER && s > 0) break;
      /* Warm up (connections, first-touch), then calibrate on rank 0. */
      time_case(op, bytes, np, 3);
      double t0 = MPI_Wtime();
      time_case(op, bytes, np, 5);
      double per = (MPI_Wtime() - t0) / 5;
      /* The cap only guards against a calibration fooled by a stall: at
         20000 a 0.3 us barrier was timed over 7 ms, right after the ranks
         started, while the scheduler still kept both on one core in some
         runs (0.8-2.9 us; with a 0.3 s window 0.30-0.46 us). */
      int iters = per > 0 ? (int)(target / per) : 20000;
      if (iters < 5) iters = 5;
      if (iters > 2000000) iters = 2000000;
      MPI_Bcast(&iters, 1, MPI_INT, 0, MPI_COMM_WORLD);
      double mine = time_case(op, bytes, np, iters), sum = 0, max = 0;
      MPI_Reduce(&mine, &sum, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
      MPI_Reduce(&mine, &max, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
      if (rank == 0) {
        printf("%s %d %.3f\n", kOpNames[op], bytes, (osu ? sum / np : max) * 1e6);
        fflush(stdout);
      }
    }
  }
  free(sbuf);
  free(rbuf);
  MPI_Finalize();
  return 0;
}
