/* MPI_Probe / MPI_Iprobe on any source and any tag (status, count, then the
 * matching receive), probes on MPI_PROC_NULL, and MPI_Sendrecv_replace around
 * a ring with contiguous and strided types, small and above the eager limit,
 * with oneself and with MPI_PROC_NULL. */
#include <stdlib.h>
#include <string.h>

#include "check.h"

#define BIG (50 * 1024) /* doubles: 400 KB */

static int rank, size;

static void probes(void) {
  MPI_Status st;
  int count, flag;
  int* buf = malloc(sizeof(int) * (size_t)(size + 8));
  /* Nobody sends this round's messages before rank 0 has checked the last. */
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  /* Every rank (rank 0 too) sends rank+1 ints with tag rank to rank 0, twice. */
  for (int i = 0; i <= rank; ++i) buf[i] = rank * 100 + i;
  MPI_Request rq[2];
  CHECK_MPI(MPI_Isend(buf, rank + 1, MPI_INT, 0, rank, MPI_COMM_WORLD, &rq[0]));
  CHECK_MPI(MPI_Isend(buf, rank + 1, MPI_INT, 0, rank + 1000, MPI_COMM_WORLD, &rq[1]));
  if (rank == 0) {
    int* in = malloc(sizeof(int) * (size_t)(size + 8));
    int* seen = calloc((size_t)size, sizeof(int));
    for (int k = 0; k < size; ++k) {
      CHECK_MPI(MPI_Probe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st));
      int src = st.MPI_SOURCE;
      CHECK(src >= 0 && src < size && st.MPI_TAG == src + 1000 * seen[src], "probe: source %d tag %d", src, st.MPI_TAG);
      CHECK_MPI(MPI_Get_count(&st, MPI_INT, &count));
      CHECK(count == src + 1, "probe count %d from %d", count, src);
      /* receive exactly what was probed, by its source and tag */
      CHECK_MPI(MPI_Recv(in, count, MPI_INT, src, st.MPI_TAG, MPI_COMM_WORLD, &st));
      for (int i = 0; i < count; ++i) CHECK(in[i] == src * 100 + i, "probed message from %d word %d", src, i);
      seen[src]++;
    }
    /* The rest: Iprobe with a fixed source, any tag. */
    for (int src = 0; src < size; ++src) {
      for (; seen[src] < 2; seen[src]++) {
        flag = 0;
        while (!flag) CHECK_MPI(MPI_Iprobe(src, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &st));
        CHECK(st.MPI_SOURCE == src && st.MPI_TAG == src + 1000 * seen[src], "iprobe from %d: tag %d", src,
              st.MPI_TAG);
        CHECK_MPI(MPI_Recv(in, size + 8, MPI_INT, src, MPI_ANY_TAG, MPI_COMM_WORLD, &st));
        CHECK_MPI(MPI_Get_count(&st, MPI_INT, &count));
        CHECK(count == src + 1 && in[count - 1] == src * 100 + count - 1, "message from %d", src);
      }
    }
    CHECK_MPI(MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &st));
    CHECK(!flag, "iprobe found a message after all were received: source %d tag %d", st.MPI_SOURCE, st.MPI_TAG);
    free(in);
    free(seen);
  }
  CHECK_MPI(MPI_Waitall(2, rq, MPI_STATUSES_IGNORE));
  CHECK_MPI(MPI_Probe(MPI_PROC_NULL, MPI_ANY_TAG, MPI_COMM_WORLD, &st));
  CHECK_MPI(MPI_Get_count(&st, MPI_INT, &count));
  CHECK(st.MPI_SOURCE == MPI_PROC_NULL && st.MPI_TAG == MPI_ANY_TAG && count == 0, "probe of MPI_PROC_NULL");
  flag = 0;
  CHECK_MPI(MPI_Iprobe(MPI_PROC_NULL, 3, MPI_COMM_WORLD, &flag, &st));
  CHECK(flag && st.MPI_SOURCE == MPI_PROC_NULL, "iprobe of MPI_PROC_NULL");
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  free(buf);
}

/* Every rank's block travels once around the ring, in place. */
static void replace_ring(int n, MPI_Datatype type, int elems_per_item, int stride) {
  double* buf = malloc(sizeof(double) * (size_t)n * (size_t)stride);
  const int right = (rank + 1) % size, left = (rank + size - 1) % size;
  int items = n / elems_per_item;
  for (int i = 0; i < n * stride; ++i) buf[i] = i % stride == 0 ? rank * 1e6 + i / stride : -1.0;
  MPI_Status st;
  for (int step = 0; step < size; ++step) {
    CHECK_MPI(MPI_Sendrecv_replace(buf, items, type, right, step, left, step, MPI_COMM_WORLD, &st));
    CHECK(st.MPI_SOURCE == left && st.MPI_TAG == step, "replace status %d %d", st.MPI_SOURCE, st.MPI_TAG);
    int owner = ((rank - step - 1) % size + size) % size;
    for (int i = 0; i < n * stride; ++i) {
      double want = i % stride == 0 ? owner * 1e6 + i / stride : -1.0;
      CHECK(buf[i] == want, "n %d step %d element %d: %g, expected %g", n, step, i, buf[i], want);
    }
  }
  /* With oneself, and with MPI_PROC_NULL (the buffer stays as it is). */
  CHECK_MPI(MPI_Sendrecv_replace(buf, items, type, rank, 9, rank, 9, MPI_COMM_WORLD, &st));
  CHECK(buf[0] == rank * 1e6, "self replace");
  CHECK_MPI(MPI_Sendrecv_replace(buf, items, type, MPI_PROC_NULL, 9, MPI_PROC_NULL, 9, MPI_COMM_WORLD, &st));
  CHECK(st.MPI_SOURCE == MPI_PROC_NULL && buf[0] == rank * 1e6, "proc_null replace");
  free(buf);
}

int main(int argc, char** argv) {
  CHECK_MPI(MPI_Init(&argc, &argv));
  CHECK_MPI(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
  CHECK_MPI(MPI_Comm_size(MPI_COMM_WORLD, &size));
  for (int i = 0; i < 3; ++i) probes();
  MPI_Datatype every_other;
  CHECK_MPI(MPI_Type_vector(8, 1, 2, MPI_DOUBLE, &every_other));
  MPI_Datatype item;  /* 8 doubles, 2 apart, with an extent of 16 doubles */
  MPI_Aint disp[2] = {0, 16 * sizeof(double)};
  int lens[2] = {1, 1};
  MPI_Datatype types[2] = {every_other, MPI_UB};
  CHECK_MPI(MPI_Type_struct(2, lens, disp, types, &item));
  CHECK_MPI(MPI_Type_commit(&item));
  int sizes[] = {8, 1024, BIG};
  for (int k = 0; k < 3; ++k) {
    replace_ring(sizes[k], MPI_DOUBLE, 1, 1);
    replace_ring(sizes[k], item, 8, 2);
  }
  CHECK_MPI(MPI_Type_free(&item));
  CHECK_MPI(MPI_Type_free(&every_other));
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  if (rank == 0) printf("probe_replace: ok\n");
  CHECK_MPI(MPI_Finalize());
  return 0;
}
