/* An iterative solver with a large state per rank, for the checkpoint tests
 * (spec/checkpoint-protocol.md): each rank owns MIB MiB of unknowns, every
 * iteration relaxes one slice of them against its ring neighbours' boundary
 * values (MPI_Sendrecv both ways) and agrees on a global digest
 * (MPI_Allreduce). Integer arithmetic only, so the result is bit-exact and a
 * run with failures must print exactly what a failure-free run prints.
 *
 *   ckpt_solver MIB ITERATIONS [EVERY [HALO_KIB]] MARKER   (MARKER: ignored;
 *                                       tests find the job's processes by it)
 * prints "solver: np N, MIB MiB/rank, ITERATIONS iterations, digest HEX"; with
 * EVERY > 0, each rank also prints (and flushes) a line every EVERY iterations,
 * so that output is written all along (exactly-once output across restarts).
 * HALO_KIB > 0: each iteration also exchanges HALO_KIB KiB of the slice with
 * each neighbour and folds what it got into the digest (traffic for the
 * sender logs: the garbage-collection tests).
 * FTMPI_TEST_SOLVER_STATIC_MIB=S: each rank also holds S MiB of data that
 * never changes after setup (a solver's matrix), folded into the digest at
 * the end: the memory store's incremental images leave it to their base. */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "check.h"

enum { kSlices = 64 };

static uint64_t mix(uint64_t x) {
  x ^= x >> 31;
  x *= 0x7fb5d329728ea185ull;
  x ^= x >> 27;
  x *= 0x81dadef4bc2dd44dull;
  return x ^ (x >> 33);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, np;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &np);
  CHECK(argc >= 3 && argc <= 6, "usage: ckpt_solver MIB ITERATIONS [EVERY [HALO_KIB]] [MARKER]");
  const long mib = atol(argv[1]);
  const long iters = atol(argv[2]);
  const long every = argc >= 5 ? atol(argv[3]) : 0;
  const long halo_kib = argc == 6 ? atol(argv[4]) : 0;
  CHECK(mib > 0 && iters > 0 && every >= 0 && halo_kib >= 0,
        "MIB and ITERATIONS must be positive, EVERY and HALO_KIB not negative");
  const size_t n = (size_t)mib * (1u << 20) / sizeof(uint64_t);
  uint64_t* x = malloc(n * sizeof *x);
  CHECK(x != NULL, "cannot allocate %ld MiB", mib);
  for (size_t i = 0; i < n; ++i) x[i] = mix((uint64_t)rank * n + i);
  const int left = (rank + np - 1) % np, right = (rank + 1) % np;
  const size_t slice = n / kSlices;
  const size_t halo = (size_t)halo_kib * 1024 / sizeof(uint64_t);
  CHECK(halo <= slice, "HALO_KIB is larger than a slice");
  uint64_t* got = malloc((halo ? halo : 1) * sizeof *got);
  CHECK(got != NULL, "cannot allocate the halo");
  const char* static_env = getenv("FTMPI_TEST_SOLVER_STATIC_MIB");
  const size_t n_static = static_env ? (size_t)atol(static_env) * (1u << 20) / sizeof(uint64_t) : 0;
  uint64_t* fixed = malloc((n_static ? n_static : 1) * sizeof *fixed);
  CHECK(fixed != NULL, "cannot allocate the static data");
  for (size_t i = 0; i < n_static; ++i) fixed[i] = mix(~((uint64_t)rank * n_static + i));
  uint64_t digest = 0;
  for (long k = 0; k < iters; ++k) {
    uint64_t* s = x + (size_t)(k % kSlices) * slice;
    uint64_t send[2] = {s[0], s[slice - 1]}, from_left = 0, from_right = 0;
    MPI_Sendrecv(&send[1], 1, MPI_UNSIGNED_LONG, right, 1, &from_left, 1, MPI_UNSIGNED_LONG, left, 1,
                 MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Sendrecv(&send[0], 1, MPI_UNSIGNED_LONG, left, 2, &from_right, 1, MPI_UNSIGNED_LONG, right, 2,
                 MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    uint64_t local = 0;
    if (halo > 0) {
      MPI_Sendrecv(s, (int)halo, MPI_UNSIGNED_LONG, right, 3, got, (int)halo, MPI_UNSIGNED_LONG, left, 3,
                   MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      for (size_t i = 0; i < halo; i += 97) local += got[i];
      MPI_Sendrecv(s + slice - halo, (int)halo, MPI_UNSIGNED_LONG, left, 4, got, (int)halo, MPI_UNSIGNED_LONG,
                   right, 4, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      for (size_t i = 0; i < halo; i += 89) local += got[i];
    }
    uint64_t prev = from_left;
    for (size_t i = 0; i < slice; ++i) {
      uint64_t next = i + 1 < slice ? s[i + 1] : from_right;
      s[i] = mix(prev + 2 * s[i] + next + digest);
      prev = s[i];
      local += s[i];
    }
    uint64_t sum = 0;
    MPI_Allreduce(&local, &sum, 1, MPI_UNSIGNED_LONG, MPI_SUM, MPI_COMM_WORLD);
    digest = mix(digest ^ sum);
    if (every > 0 && (k + 1) % every == 0) {
      printf("rank %d iteration %ld local %016llx digest %016llx\n", rank, k + 1, (unsigned long long)local,
             (unsigned long long)digest);
      fflush(stdout);
    }
  }
  uint64_t fixed_sum = 0, all_fixed = 0;
  for (size_t i = 0; i < n_static; ++i) fixed_sum += fixed[i] * (i + 1);
  MPI_Allreduce(&fixed_sum, &all_fixed, 1, MPI_UNSIGNED_LONG, MPI_SUM, MPI_COMM_WORLD);
  digest = mix(digest ^ all_fixed);
  if (rank == 0)
    printf("solver: np %d, %ld MiB/rank, %ld iterations, digest %016llx\n", np, mib, iters,
           (unsigned long long)digest);
  free(fixed);
  free(got);
  free(x);
  MPI_Finalize();
  return 0;
}
