/* The profiling interface works: a wrapper library linked ahead of libftmpi
 * (prof_wrapper.c) sees exactly the calls the program makes, and none that
 * the library makes internally (communicator creation, collectives,
 * Sendrecv), because the library calls its own PMPI_ entry points. */
#include "comm_check.h"

int prof_count(const char* name);

int main(int argc, char** argv) {
  int rank, size, v, got;
  CHECK_MPI(MPI_Init(&argc, &argv));
  CHECK_MPI(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
  CHECK_MPI(MPI_Comm_size(MPI_COMM_WORLD, &size));
  const int right = (rank + 1) % size, left = (rank - 1 + size) % size;
  enum { kLaps = 25 };
  for (int i = 0; i < kLaps; ++i) {
    /* Even ranks send first so that the ring cannot block. */
    v = rank * 1000 + i;
    if (rank % 2 == 0) {
      CHECK_MPI(MPI_Send(&v, 1, MPI_INT, right, i, MPI_COMM_WORLD));
      CHECK_MPI(MPI_Recv(&got, 1, MPI_INT, left, i, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    } else {
      CHECK_MPI(MPI_Recv(&got, 1, MPI_INT, left, i, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
      CHECK_MPI(MPI_Send(&v, 1, MPI_INT, right, i, MPI_COMM_WORLD));
    }
    CHECK(got == left * 1000 + i, "ring lap %d got %d", i, got);
  }
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  /* Calls that communicate internally must not show up as MPI_Send/Recv. */
  MPI_Comm d, s, inter = MPI_COMM_NULL, merged;
  CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &d));
  CHECK_MPI(MPI_Comm_split(d, rank % 2, rank, &s));
  if (size >= 2) {
    CHECK_MPI(MPI_Intercomm_create(s, 0, d, 1 - rank % 2, 5, &inter));
    CHECK_MPI(MPI_Intercomm_merge(inter, rank % 2, &merged));
    CHECK_MPI(MPI_Comm_free(&merged));
    CHECK_MPI(MPI_Comm_free(&inter));
  }
  CHECK_MPI(MPI_Sendrecv(&rank, 1, MPI_INT, right, 0, &got, 1, MPI_INT, left, 0, d, MPI_STATUS_IGNORE));
  CHECK(got == left, "Sendrecv got %d", got);
  /* PMPI_ calls by the program bypass the wrapper. */
  CHECK_MPI(PMPI_Barrier(MPI_COMM_WORLD));
  CHECK_MPI(MPI_Pcontrol(3));
  CHECK_MPI(MPI_Pcontrol(0));
  CHECK(prof_count("send") == kLaps, "wrapper saw %d MPI_Send calls, expected %d", prof_count("send"), kLaps);
  CHECK(prof_count("recv") == kLaps, "wrapper saw %d MPI_Recv calls, expected %d", prof_count("recv"), kLaps);
  CHECK(prof_count("barrier") == 2, "wrapper saw %d MPI_Barrier calls, expected 2", prof_count("barrier"));
  CHECK(prof_count("pcontrol") == 2 && prof_count("level") == 0, "wrapper saw %d MPI_Pcontrol calls, last level %d",
        prof_count("pcontrol"), prof_count("level"));
  CHECK_MPI(MPI_Comm_free(&s));
  CHECK_MPI(MPI_Comm_free(&d));
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  if (rank == 0) printf("profiling: ok (%d sends, %d receives, %d barriers seen)\n", prof_count("send"),
                        prof_count("recv"), prof_count("barrier"));
  CHECK_MPI(MPI_Finalize());
  return 0;
}
