/* A token travels around all ranks `laps` times (default 1000); every rank
 * adds one, and rank 0 checks the count after each lap. */
#include <stdlib.h>

#include "check.h"

int main(int argc, char** argv) {
  int rank, size, laps = argc > 1 ? atoi(argv[1]) : 1000;
  CHECK_MPI(MPI_Init(&argc, &argv));
  CHECK_MPI(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
  CHECK_MPI(MPI_Comm_size(MPI_COMM_WORLD, &size));
  int next = (rank + 1) % size, prev = (rank + size - 1) % size;
  long token = 0;
  MPI_Status st;
  for (int lap = 0; lap < laps; ++lap) {
    int tag = lap % 32;
    if (rank == 0) {
      CHECK_MPI(MPI_Send(&token, 1, MPI_LONG, next, tag, MPI_COMM_WORLD));
      CHECK_MPI(MPI_Recv(&token, 1, MPI_LONG, prev, tag, MPI_COMM_WORLD, &st));
      token += 1;
      CHECK(token == (long)(lap + 1) * size, "lap %d: token %ld, expected %ld", lap, token, (long)(lap + 1) * size);
    } else {
      CHECK_MPI(MPI_Recv(&token, 1, MPI_LONG, prev, tag, MPI_COMM_WORLD, &st));
      CHECK(st.MPI_SOURCE == prev && st.MPI_TAG == tag, "status %d/%d", st.MPI_SOURCE, st.MPI_TAG);
      token += 1;
      CHECK_MPI(MPI_Send(&token, 1, MPI_LONG, next, tag, MPI_COMM_WORLD));
    }
  }
  if (rank == 0) printf("ring: %d laps over %d ranks ok\n", laps, size);
  CHECK_MPI(MPI_Finalize());
  return 0;
}
