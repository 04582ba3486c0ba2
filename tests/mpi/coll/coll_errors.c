/* Error classes of the collectives (MPI_ERRORS_RETURN on MPI_COMM_WORLD):
 * bad root, count, datatype, communicator, op, buffers, count arrays, send
 * and receive sides that do not match on one process, and sizes that do
 * not match across processes (reported, without a hang). After each error
 * the processes must still be in step.
 *
 *   coll_errors          the checks above
 *   coll_errors fatal    MPI_Bcast with a bad root under MPI_ERRORS_ARE_FATAL */
#include <stdio.h>

#include "coll_util.h"

static int rank, np;

static void expect(int rc, int want, const char* what) {
  int cls = -1;
  MPI_Error_class(rc, &cls);
  CHECK(cls == want, "%s: error class %d, expected %d", what, cls, want);
}

static void in_step(void) {
  int one = 1, sum = 0;
  CHECK_MPI(MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
  CHECK(sum == np, "processes out of step (allreduce gave %d)", sum);
}

int main(int argc, char** argv) {
  CHECK_MPI(MPI_Init(&argc, &argv));
  CHECK_MPI(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
  CHECK_MPI(MPI_Comm_size(MPI_COMM_WORLD, &np));
  int buf[64] = {0}, out[64 * 64], counts[64], displs[64];
  if (argc > 1 && !strcmp(argv[1], "fatal")) {
    MPI_Bcast(buf, 1, MPI_INT, np, MPI_COMM_WORLD);
    printf("unreachable: MPI_Bcast returned\n");
    MPI_Finalize();
    return 0;
  }
  CHECK_MPI(MPI_Errhandler_set(MPI_COMM_WORLD, MPI_ERRORS_RETURN));

  expect(MPI_Bcast(buf, 1, MPI_INT, -1, MPI_COMM_WORLD), MPI_ERR_ROOT, "bcast root -1");
  expect(MPI_Bcast(buf, 1, MPI_INT, np, MPI_COMM_WORLD), MPI_ERR_ROOT, "bcast root np");
  expect(MPI_Reduce(buf, out, 1, MPI_INT, MPI_SUM, np + 3, MPI_COMM_WORLD), MPI_ERR_ROOT, "reduce root");
  expect(MPI_Gather(buf, 1, MPI_INT, out, 1, MPI_INT, -2, MPI_COMM_WORLD), MPI_ERR_ROOT, "gather root");
  expect(MPI_Scatterv(buf, counts, displs, MPI_INT, out, 1, MPI_INT, np, MPI_COMM_WORLD), MPI_ERR_ROOT,
         "scatterv root");
  expect(MPI_Bcast(buf, -1, MPI_INT, 0, MPI_COMM_WORLD), MPI_ERR_COUNT, "bcast count -1");
  expect(MPI_Allreduce(buf, out, -5, MPI_INT, MPI_SUM, MPI_COMM_WORLD), MPI_ERR_COUNT, "allreduce count");
  expect(MPI_Alltoall(buf, -1, MPI_INT, out, 1, MPI_INT, MPI_COMM_WORLD), MPI_ERR_COUNT, "alltoall count");
  expect(MPI_Bcast(buf, 1, MPI_DATATYPE_NULL, 0, MPI_COMM_WORLD), MPI_ERR_TYPE, "bcast null type");
  MPI_Datatype uncommitted;
  CHECK_MPI(MPI_Type_contiguous(2, MPI_INT, &uncommitted));
  expect(MPI_Allgather(buf, 1, uncommitted, out, 1, uncommitted, MPI_COMM_WORLD), MPI_ERR_TYPE, "uncommitted type");
  CHECK_MPI(MPI_Type_free(&uncommitted));
  expect(MPI_Barrier(MPI_COMM_NULL), MPI_ERR_COMM, "barrier on MPI_COMM_NULL");
  expect(MPI_Bcast(buf, 1, MPI_INT, 0, MPI_COMM_NULL), MPI_ERR_COMM, "bcast on MPI_COMM_NULL");
  expect(MPI_Allreduce(buf, out, 1, MPI_INT, MPI_OP_NULL, MPI_COMM_WORLD), MPI_ERR_OP, "MPI_OP_NULL");
  expect(MPI_Allreduce(buf, out, 1, MPI_FLOAT, MPI_BXOR, MPI_COMM_WORLD), MPI_ERR_OP, "BXOR on float");
  expect(MPI_Bcast(NULL, 3, MPI_INT, 0, MPI_COMM_WORLD), MPI_ERR_BUFFER, "bcast null buffer");
  expect(MPI_Allreduce(buf, buf, 4, MPI_INT, MPI_SUM, MPI_COMM_WORLD), MPI_ERR_BUFFER, "aliased allreduce");
  expect(MPI_Alltoall(out, 1, MPI_INT, out, 1, MPI_INT, MPI_COMM_WORLD), MPI_ERR_BUFFER, "aliased alltoall");
  /* One process's two sides differ. */
  expect(MPI_Allgather(buf, 2, MPI_INT, out, 1, MPI_INT, MPI_COMM_WORLD), MPI_ERR_TRUNCATE, "allgather 2 vs 1 int");
  expect(MPI_Alltoall(buf, 1, MPI_FLOAT, out, 1, MPI_INT, MPI_COMM_WORLD), MPI_ERR_TYPE, "alltoall float vs int");
  /* Count arrays. */
  for (int q = 0; q < np; ++q) {
    counts[q] = 1;
    displs[q] = q;
  }
  counts[np - 1] = -1;
  expect(MPI_Reduce_scatter(buf, out, counts, MPI_INT, MPI_SUM, MPI_COMM_WORLD), MPI_ERR_COUNT,
         "reduce_scatter negative count");
  expect(MPI_Allgatherv(buf, 1, MPI_INT, out, counts, displs, MPI_INT, MPI_COMM_WORLD),
         MPI_ERR_COUNT, "allgatherv negative count");
  counts[np - 1] = 1;
  expect(MPI_Alltoallv(buf, NULL, displs, MPI_INT, out, counts, displs, MPI_INT, MPI_COMM_WORLD), MPI_ERR_ARG,
         "alltoallv null sendcounts");
  expect(MPI_Allgatherv(buf, 1, MPI_INT, out, counts, NULL, MPI_INT, MPI_COMM_WORLD), MPI_ERR_ARG,
         "allgatherv null displs");
  in_step();

  /* Sizes that differ across processes: the root broadcasts 10 ints, the
   * others expect 5. Every process returns (no hang) and somebody reports
   * the truncation (who, and what data arrives, depends on the algorithm). */
  if (np > 1) {
    for (int i = 0; i < 10; ++i) buf[i] = i;
    int rc = MPI_Bcast(buf, rank == 0 ? 10 : 5, MPI_INT, 0, MPI_COMM_WORLD), cls;
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_SUCCESS || cls == MPI_ERR_TRUNCATE, "mismatched bcast: class %d", cls);
    int truncated = cls == MPI_ERR_TRUNCATE, any = 0;
    CHECK_MPI(MPI_Allreduce(&truncated, &any, 1, MPI_INT, MPI_LOR, MPI_COMM_WORLD));
    CHECK(any, "nobody reported the truncation of a mismatched bcast");
  }
  in_step();
  CHECK_MPI(MPI_Errhandler_set(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL));
  in_step();
  if (rank == 0) printf("coll_errors: np %d ok\n", np);
  CHECK_MPI(MPI_Finalize());
  return 0;
}
