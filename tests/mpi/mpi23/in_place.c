/* MPI_IN_PLACE in every blocking collective that allows it (MPI-3.1 §5),
 * against values computed here; and MPI_ERR_BUFFER where it is not allowed. */
#include <stdlib.h>
#include <string.h>

#include "check.h"

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int root = size / 2, tri = size * (size - 1) / 2;
  int* buf = malloc(sizeof(int) * 4 * size);
  int* counts = malloc(sizeof(int) * size);
  int* displs = malloc(sizeof(int) * size);
  for (int r = 0; r < size; ++r) counts[r] = 2, displs[r] = 3 * r;

  /* Allreduce, Reduce (root), Scan, Exscan */
  int v[2] = {rank, 1};
  CHECK_MPI(MPI_Allreduce(MPI_IN_PLACE, v, 2, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
  CHECK(v[0] == tri && v[1] == size, "allreduce in place: %d %d", v[0], v[1]);
  v[0] = rank, v[1] = 1;
  if (rank == root) CHECK_MPI(MPI_Reduce(MPI_IN_PLACE, v, 2, MPI_INT, MPI_MAX, root, MPI_COMM_WORLD));
  else CHECK_MPI(MPI_Reduce(v, NULL, 2, MPI_INT, MPI_MAX, root, MPI_COMM_WORLD));
  if (rank == root) CHECK(v[0] == size - 1 && v[1] == 1, "reduce in place");
  v[0] = rank, v[1] = 1;
  CHECK_MPI(MPI_Scan(MPI_IN_PLACE, v, 2, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
  CHECK(v[0] == rank * (rank + 1) / 2 && v[1] == rank + 1, "scan in place");
  v[0] = rank, v[1] = 1;
  CHECK_MPI(MPI_Exscan(MPI_IN_PLACE, v, 2, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
  if (rank > 0) CHECK(v[0] == rank * (rank - 1) / 2 && v[1] == rank, "exscan in place");

  /* Reduce_scatter: the whole vector in, this rank's block out at the start */
  for (int i = 0; i < 2 * size; ++i) buf[i] = i + rank;
  CHECK_MPI(MPI_Reduce_scatter(MPI_IN_PLACE, buf, counts, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
  for (int k = 0; k < 2; ++k) CHECK(buf[k] == size * (2 * rank + k) + tri, "reduce_scatter in place %d", buf[k]);

  /* Gather / Gatherv at the root */
  for (int i = 0; i < 4 * size; ++i) buf[i] = -1;
  int mine[2] = {10 * rank, 10 * rank + 1};
  if (rank == root) {
    buf[2 * root] = mine[0], buf[2 * root + 1] = mine[1];
    CHECK_MPI(MPI_Gather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, buf, 2, MPI_INT, root, MPI_COMM_WORLD));
    for (int i = 0; i < 2 * size; ++i) CHECK(buf[i] == 10 * (i / 2) + i % 2, "gather in place [%d]", i);
  } else {
    CHECK_MPI(MPI_Gather(mine, 2, MPI_INT, NULL, 0, MPI_INT, root, MPI_COMM_WORLD));
  }
  for (int i = 0; i < 4 * size; ++i) buf[i] = -1;
  if (rank == root) {
    buf[3 * root] = mine[0], buf[3 * root + 1] = mine[1];
    CHECK_MPI(MPI_Gatherv(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, buf, counts, displs, MPI_INT, root, MPI_COMM_WORLD));
    for (int r = 0; r < size; ++r)
      CHECK(buf[3 * r] == 10 * r && buf[3 * r + 1] == 10 * r + 1 && buf[3 * r + 2] == -1, "gatherv in place %d", r);
  } else {
    CHECK_MPI(MPI_Gatherv(mine, 2, MPI_INT, NULL, NULL, NULL, MPI_INT, root, MPI_COMM_WORLD));
  }

  /* Scatter / Scatterv at the root: its own block stays */
  int got[2] = {-1, -1};
  for (int i = 0; i < 4 * size; ++i) buf[i] = 5 * i;
  if (rank == root) CHECK_MPI(MPI_Scatter(buf, 2, MPI_INT, MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, root, MPI_COMM_WORLD));
  else CHECK_MPI(MPI_Scatter(NULL, 0, MPI_INT, got, 2, MPI_INT, root, MPI_COMM_WORLD));
  if (rank != root) CHECK(got[0] == 10 * rank && got[1] == 10 * rank + 5, "scatter with an in-place root");
  got[0] = got[1] = -1;
  if (rank == root)
    CHECK_MPI(MPI_Scatterv(buf, counts, displs, MPI_INT, MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, root, MPI_COMM_WORLD));
  else CHECK_MPI(MPI_Scatterv(NULL, NULL, NULL, MPI_INT, got, 2, MPI_INT, root, MPI_COMM_WORLD));
  if (rank != root) CHECK(got[0] == 15 * rank && got[1] == 15 * rank + 5, "scatterv with an in-place root");

  /* Allgather / Allgatherv */
  for (int i = 0; i < 4 * size; ++i) buf[i] = i / 2 == rank ? 10 * rank + i % 2 : -1;
  CHECK_MPI(MPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, buf, 2, MPI_INT, MPI_COMM_WORLD));
  for (int i = 0; i < 2 * size; ++i) CHECK(buf[i] == 10 * (i / 2) + i % 2, "allgather in place [%d]", i);
  for (int i = 0; i < 4 * size; ++i) buf[i] = -1;
  buf[3 * rank] = 10 * rank, buf[3 * rank + 1] = 10 * rank + 1;
  CHECK_MPI(MPI_Allgatherv(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, buf, counts, displs, MPI_INT, MPI_COMM_WORLD));
  for (int r = 0; r < size; ++r) CHECK(buf[3 * r] == 10 * r && buf[3 * r + 2] == -1, "allgatherv in place %d", r);

  /* Alltoall / Alltoallv / Alltoallw */
  for (int i = 0; i < 2 * size; ++i) buf[i] = 100 * rank + i;
  CHECK_MPI(MPI_Alltoall(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, buf, 2, MPI_INT, MPI_COMM_WORLD));
  for (int r = 0; r < size; ++r)
    for (int k = 0; k < 2; ++k) CHECK(buf[2 * r + k] == 100 * r + 2 * rank + k, "alltoall in place");
  for (int i = 0; i < 4 * size; ++i) buf[i] = 100 * rank + i;
  CHECK_MPI(MPI_Alltoallv(MPI_IN_PLACE, NULL, NULL, MPI_DATATYPE_NULL, buf, counts, displs, MPI_INT, MPI_COMM_WORLD));
  for (int r = 0; r < size; ++r)
    for (int k = 0; k < 2; ++k) CHECK(buf[3 * r + k] == 100 * r + 3 * rank + k, "alltoallv in place");
  MPI_Datatype* types = malloc(sizeof(MPI_Datatype) * size);
  int* bdispls = malloc(sizeof(int) * size);
  for (int r = 0; r < size; ++r) types[r] = MPI_INT, bdispls[r] = 3 * r * (int)sizeof(int);
  for (int i = 0; i < 4 * size; ++i) buf[i] = 100 * rank + i;
  CHECK_MPI(MPI_Alltoallw(MPI_IN_PLACE, NULL, NULL, NULL, buf, counts, bdispls, types, MPI_COMM_WORLD));
  for (int r = 0; r < size; ++r)
    for (int k = 0; k < 2; ++k) CHECK(buf[3 * r + k] == 100 * r + 3 * rank + k, "alltoallw in place");

  /* Not allowed: a broadcast buffer, a send of point-to-point, a non-root reduce */
  CHECK(cls(MPI_Bcast(MPI_IN_PLACE, 1, MPI_INT, 0, MPI_COMM_WORLD)) == MPI_ERR_BUFFER, "bcast in place");
  CHECK(cls(MPI_Send(MPI_IN_PLACE, 1, MPI_INT, rank, 0, MPI_COMM_WORLD)) == MPI_ERR_BUFFER, "send in place");
  if (size > 1 && rank != root)
    CHECK(cls(MPI_Reduce(MPI_IN_PLACE, v, 1, MPI_INT, MPI_SUM, root, MPI_COMM_WORLD)) == MPI_ERR_BUFFER,
          "in place on a non-root reduce");
  free(types), free(bdispls), free(buf), free(counts), free(displs);
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) printf("in_place: ok\n");
  MPI_Finalize();
  return 0;
}
