/* MPI-3 communicator constructors: MPI_Comm_create_group (called by the
 * group's members only, two disjoint groups at once with the same tag),
 * MPI_Comm_split_type(MPI_COMM_TYPE_SHARED) (one host here: everybody),
 * MPI_Comm_idup (usable after the wait, attributes copied). Each new
 * communicator carries traffic whose values are checked. */
#include <stdlib.h>

#include "check.h"

static int copies;
static int copy_fn(MPI_Comm c, int k, void* e, void* in, void* out, int* flag) {
  (void)c, (void)k, (void)e;
  ++copies;
  *(void**)out = in;
  *flag = 1;
  return MPI_SUCCESS;
}

static void check_comm(MPI_Comm c, int expect_size, int expect_rank) {
  int n, r;
  CHECK_MPI(MPI_Comm_size(c, &n));
  CHECK_MPI(MPI_Comm_rank(c, &r));
  CHECK(n == expect_size && r == expect_rank, "size %d rank %d, expected %d %d", n, r, expect_size, expect_rank);
  int sum = 0, mine = r + 1;
  CHECK_MPI(MPI_Allreduce(&mine, &sum, 1, MPI_INT, MPI_SUM, c));
  CHECK(sum == n * (n + 1) / 2, "allreduce on the new communicator: %d", sum);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Group world;
  MPI_Comm_group(MPI_COMM_WORLD, &world);

  /* Even and odd ranks each build their own communicator, same tag. */
  const int half = (size + 1 - rank % 2) / 2;
  int* ranks = malloc(sizeof(int) * size);
  for (int i = 0; i < half; ++i) ranks[i] = 2 * i + rank % 2;
  MPI_Group g;
  MPI_Group_incl(world, half, ranks, &g);
  MPI_Comm part;
  CHECK_MPI(MPI_Comm_create_group(MPI_COMM_WORLD, g, 7, &part));
  CHECK(part != MPI_COMM_NULL, "a member got MPI_COMM_NULL");
  check_comm(part, half, rank / 2);
  /* A second one over the same group and tag is a different communicator. */
  MPI_Comm part2;
  CHECK_MPI(MPI_Comm_create_group(MPI_COMM_WORLD, g, 7, &part2));
  int cmp;
  MPI_Comm_compare(part, part2, &cmp);
  CHECK(cmp == MPI_CONGRUENT, "two create_group results compare %d", cmp);
  /* Traffic on both at once must not mix. */
  if (half > 1) {
    int a = rank, b = -rank, ra = -1, rb = -1, right = (rank / 2 + 1) % half, left = (rank / 2 - 1 + half) % half;
    MPI_Request rq[4];
    MPI_Irecv(&rb, 1, MPI_INT, left, 0, part2, &rq[0]);
    MPI_Irecv(&ra, 1, MPI_INT, left, 0, part, &rq[1]);
    MPI_Isend(&a, 1, MPI_INT, right, 0, part, &rq[2]);
    MPI_Isend(&b, 1, MPI_INT, right, 0, part2, &rq[3]);
    CHECK_MPI(MPI_Waitall(4, rq, MPI_STATUSES_IGNORE));
    const int from = 2 * left + rank % 2;
    CHECK(ra == from && rb == -from, "messages crossed communicators: %d %d", ra, rb);
  }
  /* World still in step: a collective on it and a dup after the calls
   * only some processes made. */
  MPI_Comm wdup;
  CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &wdup));
  check_comm(wdup, size, rank);
  /* Errors: bad tag, a group that is not a subset. */
  MPI_Comm bad;
  CHECK(cls(MPI_Comm_create_group(MPI_COMM_WORLD, g, -5, &bad)) == MPI_ERR_TAG, "negative tag");
  CHECK(cls(MPI_Comm_create_group(MPI_COMM_WORLD, MPI_GROUP_NULL, 1, &bad)) == MPI_ERR_GROUP, "null group");
  CHECK_MPI(MPI_Comm_create_group(MPI_COMM_WORLD, MPI_GROUP_EMPTY, 1, &bad));
  CHECK(bad == MPI_COMM_NULL, "an empty group gives MPI_COMM_NULL");

  /* Split by shared memory: one host, so everybody, in key order. */
  MPI_Comm shm;
  CHECK_MPI(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, size - rank, MPI_INFO_NULL, &shm));
  check_comm(shm, size, size - 1 - rank);
  MPI_Comm none;
  CHECK_MPI(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_UNDEFINED, 0, MPI_INFO_NULL, &none));
  CHECK(none == MPI_COMM_NULL, "MPI_UNDEFINED gives MPI_COMM_NULL");
  CHECK(cls(MPI_Comm_split_type(MPI_COMM_WORLD, 12345, 0, MPI_INFO_NULL, &none)) == MPI_ERR_ARG, "bad split_type");

  /* Idup: attributes copied, usable after the wait. */
  int key;
  static int val = 5;
  MPI_Comm_create_keyval(copy_fn, MPI_COMM_NULL_DELETE_FN, &key, NULL);
  MPI_Comm_set_attr(MPI_COMM_WORLD, key, &val);
  MPI_Comm idup;
  MPI_Request req;
  CHECK_MPI(MPI_Comm_idup(MPI_COMM_WORLD, &idup, &req));
  CHECK_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
  CHECK(copies == 1, "idup ran the copy callback %d times", copies);
  int* got;
  int flag;
  MPI_Comm_get_attr(idup, key, &got, &flag);
  CHECK(flag && got == &val, "idup's attribute");
  check_comm(idup, size, rank);
  MPI_Comm_compare(idup, MPI_COMM_WORLD, &cmp);
  CHECK(cmp == MPI_CONGRUENT, "idup compares %d", cmp);
  MPI_Comm_delete_attr(MPI_COMM_WORLD, key);
  MPI_Comm_free_keyval(&key);

  MPI_Comm_free(&idup);
  MPI_Comm_free(&shm);
  MPI_Comm_free(&wdup);
  MPI_Comm_free(&part2);
  MPI_Comm_free(&part);
  MPI_Group_free(&g);
  MPI_Group_free(&world);
  free(ranks);
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) printf("comms: ok\n");
  MPI_Finalize();
  return 0;
}
