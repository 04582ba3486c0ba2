/* Reference timing of MPI_Pack / MPI_Unpack in another MPI library, for
 * comparison with bench_pack (our convertor). Build with a foreign wrapper:
 *   mpicc.openmpi -O2 mpi_pack_bench.c -o mpi_pack_bench_ompi
 * Cases match bench_pack.cpp: every other double of an 8 MiB array, and a
 * 2-D column block (every 16th run of 4 doubles). Prints the best of N runs. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void run(const char* name, MPI_Datatype t, const double* src, double* dst, char* packed,
                int packed_bytes, int reps) {
  double best_pack = 1e9, best_unpack = 1e9;
  for (int r = 0; r < reps; ++r) {
    int pos = 0;
    double t0 = now();
    MPI_Pack(src, 1, t, packed, packed_bytes, &pos, MPI_COMM_SELF);
    double t1 = now();
    if (t1 - t0 < best_pack) best_pack = t1 - t0;
    pos = 0;
    t0 = now();
    MPI_Unpack(packed, packed_bytes, &pos, dst, 1, t, MPI_COMM_SELF);
    t1 = now();
    if (t1 - t0 < best_unpack) best_unpack = t1 - t0;
  }
  printf("%-14s pack %8.1f us (%6.2f GB/s packed)  unpack %8.1f us\n", name, best_pack * 1e6,
         packed_bytes / best_pack * 1e-9, best_unpack * 1e6);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int reps = argc > 1 ? atoi(argv[1]) : 50;
  const int n = (8 << 20) / 8; /* doubles in 8 MiB */
  double* src = malloc((size_t)n * 8);
  double* dst = malloc((size_t)n * 8);
  char* packed = malloc((size_t)n * 8);
  for (int i = 0; i < n; ++i) src[i] = i;
  memset(dst, 0, (size_t)n * 8);

  MPI_Datatype every_other;
  MPI_Type_vector(n / 2, 1, 2, MPI_DOUBLE, &every_other);
  MPI_Type_commit(&every_other);
  run("every_other", every_other, src, dst, packed, n / 2 * 8, reps);

  MPI_Datatype cols;
  MPI_Type_vector(n / 16, 4, 16, MPI_DOUBLE, &cols);
  MPI_Type_commit(&cols);
  run("4_of_16", cols, src, dst, packed, n / 4 * 8, reps);

  MPI_Datatype contig;
  MPI_Type_contiguous(n, MPI_DOUBLE, &contig);
  MPI_Type_commit(&contig);
  run("contiguous", contig, src, dst, packed, n * 8, reps);

  for (int i = 0; i < n; i += 2)
    if (dst[i] != src[i]) { printf("unpack mismatch at %d\n", i); return 1; }
  MPI_Finalize();
  return 0;
}
