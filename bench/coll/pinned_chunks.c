/* Small-message latencies on a loaded machine, np 2, built unchanged
 * against ftmpi, Open MPI and MPICH: each rank pins itself to core
 * (rank % 2) when PIN is set, and rank 0 times 200 chunks of 200 calls per
 * case; it prints the fastest chunk, the tenth fastest (p10) and the median,
 * microseconds per call. A chunk that the scheduler interrupted lands in the
 * slow tail, so p10 stays readable at a load at which a whole-loop average
 * (coll_bench.c) is mostly the scheduler's.
 *
 *   PIN=1 [OPMASK=bits] mpirun -np 2 pinned_chunks
 *   ops (OPMASK bit): barrier 0, bcast 1 (root alternating), allreduce 2
 *   (MPI_DOUBLE sums), alltoall 3 (bytes per block), pingpong 4 (per call:
 *   half a round trip); sizes 8 and 64 bytes. */
#define _GNU_SOURCE
#include <mpi.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
static int cmp(const void* a, const void* b) { double x = *(const double*)a, y = *(const double*)b; return x < y ? -1 : x > y; }
static void once(int op, int bytes, char* sb, char* rb, int i) {
  switch (op) {
    case 0: MPI_Barrier(MPI_COMM_WORLD); break;
    case 1: MPI_Bcast(sb, bytes, MPI_BYTE, i % 2, MPI_COMM_WORLD); break;
    case 2: MPI_Allreduce(sb, rb, bytes / 8, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD); break;
    case 3: MPI_Alltoall(sb, bytes, MPI_BYTE, rb, bytes, MPI_BYTE, MPI_COMM_WORLD); break;
    case 4: if (i % 2 == 0) { int r; MPI_Comm_rank(MPI_COMM_WORLD, &r);
        if (r == 0) { MPI_Send(sb, bytes, MPI_BYTE, 1, 0, MPI_COMM_WORLD); MPI_Recv(rb, bytes, MPI_BYTE, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE); }
        else { MPI_Recv(rb, bytes, MPI_BYTE, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE); MPI_Send(sb, bytes, MPI_BYTE, 0, 0, MPI_COMM_WORLD); } }
      break;
  }
}
int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank; MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (getenv("PIN")) { cpu_set_t s; CPU_ZERO(&s); CPU_SET(rank % 2, &s); sched_setaffinity(0, sizeof s, &s); }
  const char* names[] = {"barrier", "bcast", "allreduce", "alltoall", "pingpong"};
  int chunks = 200, m = 200;
  char sb[8192], rb[8192]; memset(sb, 1, sizeof sb);
  double t[1000];
  const char* om = getenv("OPMASK"); int mask = om ? atoi(om) : 31;
  for (int op = 0; op < 5; ++op) {
    if (!(mask & (1 << op))) continue;
    int sizes[2] = {8, 64};
    for (int s = 0; s < 2; ++s) {
      if (op == 0 && s == 1) continue;
      int bytes = sizes[s];
      for (int i = 0; i < 2000; ++i) once(op, bytes, sb, rb, i);
      for (int c = 0; c < chunks; ++c) {
        double t0 = MPI_Wtime();
        for (int i = 0; i < m; ++i) once(op, bytes, sb, rb, i);
        t[c] = (MPI_Wtime() - t0) / m * 1e6;
      }
      qsort(t, chunks, sizeof t[0], cmp);
      if (rank == 0) printf("%s %d min %.3f p10 %.3f med %.3f\n", names[op], op == 0 ? 0 : bytes, t[0], t[chunks / 10], t[chunks / 2]);
    }
  }
  MPI_Finalize();
  return 0;
}
