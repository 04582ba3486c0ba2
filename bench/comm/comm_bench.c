/* Communicator creation latency, the same source for every MPI library
 * (bench/comm/run.py builds it with each library's mpicc).
 *
 *   comm_bench [calls_per_rep] [reps] [used_comms]
 *
 * A library that needs long for one call (MPICH busy-polls, which with more
 * ranks than cores costs tens of milliseconds per creation) gets fewer calls
 * per repetition and fewer used communicators: each repetition is capped at
 * about 0.3 s and the memory phase at about 3 s (the counts used are printed).
 *
 * Prints "<metric> <value>" lines on rank 0:
 *   dup, dup_free, split, split_free   microseconds per call (or cycle): per
 *       repetition the slowest rank's mean over calls_per_rep back-to-back
 *       calls; the median over the repetitions.
 *   rss_per_used_comm                  bytes of resident memory the process
 *       grows by per communicator that was created, used once and freed,
 *       over used_comms (default 4000) of them after a warm-up (0 for a
 *       library that gives everything back). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int rank, size;

/* The largest value over the ranks, at rank 0 (point-to-point only, so no
 * library's collective tuning is measured here). */
static double max_over_ranks(double v) {
  if (rank != 0) {
    MPI_Send(&v, 1, MPI_DOUBLE, 0, 77, MPI_COMM_WORLD);
    return v;
  }
  for (int r = 1; r < size; ++r) {
    double x;
    MPI_Recv(&x, 1, MPI_DOUBLE, r, 77, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    if (x > v) v = x;
  }
  return v;
}

/* Rank 0's value, everywhere (point-to-point again). */
static int from_rank0(int v) {
  if (rank == 0)
    for (int r = 1; r < size; ++r) MPI_Send(&v, 1, MPI_INT, r, 78, MPI_COMM_WORLD);
  else
    MPI_Recv(&v, 1, MPI_INT, 0, 78, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  return v;
}

/* How many of something costing `seconds` (slowest rank) fit in `budget`,
 * between lo and hi; the same answer on every rank. */
static int fit(double seconds, double budget, int lo, int hi) {
  seconds = max_over_ranks(seconds);
  int n = seconds > 0 ? (int)(budget / seconds) : hi;
  if (n > hi) n = hi;
  if (n < lo) n = lo;
  return from_rank0(n);
}

static int cmp_double(const void* a, const void* b) {
  double x = *(const double*)a, y = *(const double*)b;
  return x < y ? -1 : x > y;
}

static double median(double* v, int n) {
  qsort(v, (size_t)n, sizeof *v, cmp_double);
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

enum Kind { kDup, kDupFree, kSplit, kSplitFree };

static double one_rep(enum Kind kind, int n, MPI_Comm* keep) {
  MPI_Barrier(MPI_COMM_WORLD);
  double t0 = MPI_Wtime();
  for (int i = 0; i < n; ++i) {
    MPI_Comm c;
    if (kind == kDup || kind == kDupFree) MPI_Comm_dup(MPI_COMM_WORLD, &c);
    else MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &c);
    if (kind == kDupFree || kind == kSplitFree) MPI_Comm_free(&c);
    else keep[i] = c;
  }
  double t = (MPI_Wtime() - t0) / n * 1e6;
  if (kind == kDup || kind == kSplit)
    for (int i = 0; i < n; ++i) MPI_Comm_free(&keep[i]);
  return max_over_ranks(t);
}

static long rss_bytes(void) {
  long pages = 0, resident = 0;
  FILE* f = fopen("/proc/self/statm", "r");
  if (!f) return 0;
  if (fscanf(f, "%ld %ld", &pages, &resident) != 2) resident = 0;
  fclose(f);
  return resident * sysconf(_SC_PAGESIZE);
}

/* Communicators created, used for one ring exchange, and freed. */
static void used_cycles(int n) {
  for (int i = 0; i < n; ++i) {
    MPI_Comm c;
    int v = rank, got;
    MPI_Comm_dup(MPI_COMM_WORLD, &c);
    MPI_Sendrecv(&v, 1, MPI_INT, (rank + 1) % size, 0, &got, 1, MPI_INT, (rank - 1 + size) % size, 0, c,
                 MPI_STATUS_IGNORE);
    MPI_Comm_free(&c);
  }
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int n = argc > 1 ? atoi(argv[1]) : 200;
  const int reps = argc > 2 ? atoi(argv[2]) : 7;
  int used = argc > 3 ? atoi(argv[3]) : 4000;
  MPI_Comm* keep = malloc(sizeof(MPI_Comm) * (size_t)n);
  double* v = malloc(sizeof(double) * (size_t)reps);
  const char* names[] = {"dup", "dup_free", "split", "split_free"};
  /* Warm-up (connections, allocators), which also sizes the repetitions. */
  double t_split = one_rep(kSplit, 5, keep) * 1e-6, t_dup = one_rep(kDup, 5, keep) * 1e-6;
  n = fit(t_split > t_dup ? t_split : t_dup, 0.3, 5, n);
  if (rank == 0) printf("calls_per_rep %d\n", n);
  for (int k = 0; k < 4; ++k) {
    for (int r = 0; r < reps; ++r) v[r] = one_rep((enum Kind)k, n, keep);
    if (rank == 0) printf("%s %.3f\n", names[k], median(v, reps));
    fflush(stdout);
  }
  /* Memory: after a warm-up batch, the growth over `used` used communicators. */
  double t0 = MPI_Wtime();
  used_cycles(20);
  used = fit((MPI_Wtime() - t0) / 20, 3.0, 100, used);
  used_cycles(used / 4);
  long before = rss_bytes();
  used_cycles(used);
  double grow = (double)(rss_bytes() - before) / used;
  grow = max_over_ranks(grow < 0 ? 0 : grow);
  if (rank == 0) printf("used_comms %d\nrss_per_used_comm %.1f\n", used, grow);
  free(keep);
  free(v);
  MPI_Finalize();
  return 0;
}
