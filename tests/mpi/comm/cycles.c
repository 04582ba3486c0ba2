/* Thousands of communicator creation / free cycles stay correct and do not
 * slow down: handles are reused (nothing leaks), each new communicator has a
 * context of its own (a message sent on one is never received on the next),
 * and the last batch of cycles costs about what the first did.
 *
 *   cycles [N]    N dup/free cycles (default 4000), N/4 split/free cycles */
#include <stdlib.h>

#include "comm_check.h"

/* n creation/free cycles in 4 runs; returns the per-cycle time of the
 * fastest run (a run the scheduler interrupted does not count), and leaves
 * the last communicator created alive in *last. */
static double batch(int n, int split, MPI_Comm* last) {
  double best = 1e9;
  const int per_run = n / 4 > 0 ? n / 4 : 1;
  for (int run = 0; run < 4; ++run) {
    double t0 = MPI_Wtime();
    for (int i = 0; i < per_run; ++i) {
      MPI_Comm c;
      if (split) CHECK_MPI(MPI_Comm_split(MPI_COMM_WORLD, 0, 0, &c));
      else CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &c));
      if (run == 3 && i == per_run - 1) *last = c;
      else CHECK_MPI(MPI_Comm_free(&c));
    }
    double t = (MPI_Wtime() - t0) / per_run;
    if (t < best) best = t;
  }
  return best;
}

int main(int argc, char** argv) {
  int rank, size;
  CHECK_MPI(MPI_Init(&argc, &argv));
  CHECK_MPI(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
  CHECK_MPI(MPI_Comm_size(MPI_COMM_WORLD, &size));
  const int n = argc > 1 ? atoi(argv[1]) : 4000;
  const int chunk = n / 8 > 0 ? n / 8 : 1;

  /* Handles are recycled: after any number of dup/free cycles the next dup
   * gets the same handle as the first one did. */
  MPI_Comm first, c;
  CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &first));
  MPI_Comm first_handle = first;
  CHECK_MPI(MPI_Comm_free(&first));

  double t_first = 0, t_last = 0;
  for (int b = 0; b < 8; ++b) {
    double t = batch(chunk, 0, &c);
    CHECK(c == first_handle, "cycle batch %d: handle %#x, the first dup had %#x (leak?)", b, (unsigned)c,
          (unsigned)first_handle);
    /* A message on this communicator, then one on world with the same tag:
     * a stale context would make the world receive take the wrong one. */
    if (size >= 2 && rank < 2) {
      int mine = 1000 + b, got = -1;
      if (rank == 0) {
        CHECK_MPI(MPI_Send(&mine, 1, MPI_INT, 1, 1, c));
        mine += 500;
        CHECK_MPI(MPI_Send(&mine, 1, MPI_INT, 1, 1, MPI_COMM_WORLD));
      } else {
        CHECK_MPI(MPI_Recv(&got, 1, MPI_INT, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        CHECK(got == 1500 + b, "world receive got %d", got);
        CHECK_MPI(MPI_Recv(&got, 1, MPI_INT, 0, 1, c, MPI_STATUS_IGNORE));
        CHECK(got == 1000 + b, "receive on the dup got %d", got);
      }
    }
    CHECK_MPI(MPI_Comm_free(&c));
    if (b == 1) t_first = t; /* batch 0 warms caches and allocators */
    if (b == 7) t_last = t;
  }

  double s_first = 0, s_last = 0;
  for (int b = 0; b < 4; ++b) {
    double t = batch(chunk / 2 > 0 ? chunk / 2 : 1, 1, &c);
    int r;
    CHECK_MPI(MPI_Comm_rank(c, &r));
    CHECK(r == rank, "split rank %d", r);
    CHECK_MPI(MPI_Comm_free(&c));
    if (b == 1) s_first = t;
    if (b == 3) s_last = t;
  }

  /* Many communicators alive at once, freed in an order unlike creation. */
  enum { kLive = 300 };
  static MPI_Comm live[kLive];
  for (int i = 0; i < kLive; ++i) CHECK_MPI(MPI_Comm_dup(i % 2 ? MPI_COMM_WORLD : MPI_COMM_SELF, &live[i]));
  for (int i = 0; i < kLive; i += 2) CHECK_MPI(MPI_Comm_free(&live[i]));
  for (int i = kLive - 1; i > 0; i -= 2) {
    int v = i, got = -1;
    CHECK_MPI(MPI_Sendrecv(&v, 1, MPI_INT, (rank + 1) % size, i, &got, 1, MPI_INT, (rank - 1 + size) % size, i,
                           live[i], MPI_STATUS_IGNORE));
    CHECK(got == i, "ring on live communicator %d got %d", i, got);
    CHECK_MPI(MPI_Comm_free(&live[i]));
  }

  /* Loose bounds: a cost that grew with the number of communicators ever
   * created would be many times larger after thousands of cycles. A split
   * waits for its peers, and whether they spin or must be woken (about
   * 0.2 ms on a loaded machine) changes its cost by 100x, hence the floor. */
  CHECK(t_last < 4 * t_first + 20e-6, "dup+free slowed down: %.2f us -> %.2f us", t_first * 1e6, t_last * 1e6);
  CHECK(s_last < 4 * s_first + 2e-3, "split+free slowed down: %.2f us -> %.2f us", s_first * 1e6, s_last * 1e6);
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  if (rank == 0)
    printf("cycles: %d dup/free (%.2f -> %.2f us each), %d split/free (%.2f -> %.2f us each): ok\n", 8 * chunk,
           t_first * 1e6, t_last * 1e6, 2 * chunk, s_first * 1e6, s_last * 1e6);
  CHECK_MPI(MPI_Finalize());
  return 0;
}
