/* A large message that waits, unreceived, across a checkpoint of its
 * receiver (spec/checkpoint-protocol.md §5b), for the checkpoint tests.
 *
 * np 3. Rank 2 sends rank 1 one message of MIB MiB at once (a rendezvous:
 * the data stays in rank 2's memory until rank 1 takes it). Rank 1 first
 * answers STEPS small messages from rank 0, one every 10 ms (both wait in
 * MPI calls, where checkpoints are taken), so it is checkpointed while the
 * large one is only announced; then it receives the large one, and sends
 * its digest to ranks 0 and 2. With FTMPI_INJECT_SEND_KILL=1:STEPS+1 rank 1
 * dies at that first digest send: it restarts from
 * its image, which has the large message announced but not taken, so rank 2
 * must still hold it in its log although the checkpoint was kept and its own
 * send has ended.
 *
 *   late_recv MIB STEPS
 * prints "late_recv: MIB MiB after STEPS steps, digest HEX" (rank 0). */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "check.h"

static uint64_t digest(const uint64_t* v, size_t n) {
  uint64_t h = 0x9e3779b97f4a7c15ull;
  for (size_t i = 0; i < n; i++) h = (h ^ v[i]) * 0x100000001b3ull;
  return h;
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (size != 3 || argc < 3) {
    if (rank == 0) fprintf(stderr, "usage: mpirun -np 3 late_recv MIB STEPS\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  const size_t n = (size_t)atoi(argv[1]) << 17; /* MiB in uint64_t */
  const int steps = atoi(argv[2]);
  uint64_t d = 0;
  if (rank == 2) {
    uint64_t* big = malloc(n * sizeof *big);
    CHECK(big != NULL, "out of memory");
    for (size_t i = 0; i < n; i++) big[i] = i * 0x9e3779b97f4a7c15ull + 7;
    CHECK_MPI(MPI_Send(big, (int)(n * sizeof *big), MPI_BYTE, 1, 7, MPI_COMM_WORLD));
    free(big);
    CHECK_MPI(MPI_Recv(&d, (int)sizeof d, MPI_BYTE, 1, 9, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
  } else if (rank == 0) {
    for (int s = 0; s < steps; s++) {
      usleep(10000);
      CHECK_MPI(MPI_Send(&s, 1, MPI_INT, 1, 3, MPI_COMM_WORLD));
      int ack = -1;
      CHECK_MPI(MPI_Recv(&ack, 1, MPI_INT, 1, 4, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
      CHECK(ack == s, "step %d acknowledged as %d", s, ack);
    }
    CHECK_MPI(MPI_Recv(&d, (int)sizeof d, MPI_BYTE, 1, 9, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    printf("late_recv: %s MiB after %d steps, digest %016llx\n", argv[1], steps, (unsigned long long)d);
  } else {
    for (int s = 0; s < steps; s++) {
      int got = -1;
      CHECK_MPI(MPI_Recv(&got, 1, MPI_INT, 0, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
      CHECK(got == s, "step %d got %d", s, got);
      CHECK_MPI(MPI_Send(&got, 1, MPI_INT, 0, 4, MPI_COMM_WORLD));
    }
    uint64_t* big = malloc(n * sizeof *big);
    CHECK(big != NULL, "out of memory");
    CHECK_MPI(MPI_Recv(big, (int)(n * sizeof *big), MPI_BYTE, 2, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    for (size_t i = 0; i < n; i++) CHECK(big[i] == i * 0x9e3779b97f4a7c15ull + 7, "word %zu wrong", i);
    d = digest(big, n);
    free(big);
    CHECK_MPI(MPI_Send(&d, (int)sizeof d, MPI_BYTE, 0, 9, MPI_COMM_WORLD));
    CHECK_MPI(MPI_Send(&d, (int)sizeof d, MPI_BYTE, 2, 9, MPI_COMM_WORLD));
  }
  MPI_Finalize();
  return 0;
}
