/* Every group call of MPI-1.2 §5.3 with its values checked: sizes, ranks,
 * order of union/intersection/difference, incl/excl, ranges with negative
 * strides, translate_ranks with MPI_UNDEFINED, compare, MPI_GROUP_EMPTY, and
 * the error classes of bad arguments. */
#include <stdlib.h>

#include "check.h"
#include "comm_check.h"

static int wrank, wsize;

/* World ranks of the members of g, through translate_ranks. */
static void members(MPI_Group g, MPI_Group world, int* out, int* n) {
  int ranks[64];
  CHECK_MPI(MPI_Group_size(g, n));
  for (int i = 0; i < *n; ++i) ranks[i] = i;
  CHECK_MPI(MPI_Group_translate_ranks(g, *n, ranks, world, out));
}

static void expect_members(MPI_Group g, MPI_Group world, const int* want, int n, const char* what) {
  int got[64], m = -1;
  members(g, world, got, &m);
  CHECK(m == n, "%s: size %d, expected %d", what, m, n);
  for (int i = 0; i < n; ++i) CHECK(got[i] == want[i], "%s: member %d is world rank %d, expected %d", what, i, got[i], want[i]);
}

int main(int argc, char** argv) {
  MPI_Group world, g, h, u;
  int n, r, res, want[64];
  CHECK_MPI(MPI_Init(&argc, &argv));
  CHECK_MPI(MPI_Comm_rank(MPI_COMM_WORLD, &wrank));
  CHECK_MPI(MPI_Comm_size(MPI_COMM_WORLD, &wsize));
  CHECK(wsize <= 64, "test written for at most 64 processes");
  CHECK_MPI(MPI_Comm_group(MPI_COMM_WORLD, &world));
  CHECK_MPI(MPI_Group_size(world, &n));
  CHECK(n == wsize, "world group size %d", n);
  CHECK_MPI(MPI_Group_rank(world, &r));
  CHECK(r == wrank, "world group rank %d", r);

  /* incl: reversed world. */
  int rev[64];
  for (int i = 0; i < wsize; ++i) rev[i] = wsize - 1 - i;
  CHECK_MPI(MPI_Group_incl(world, wsize, rev, &g));
  expect_members(g, world, rev, wsize, "incl reversed");
  CHECK_MPI(MPI_Group_rank(g, &r));
  CHECK(r == wsize - 1 - wrank, "rank in reversed group %d", r);
  CHECK_MPI(MPI_Group_compare(world, g, &res));
  CHECK(res == (wsize == 1 ? MPI_IDENT : MPI_SIMILAR), "compare world/reversed = %d", res);
  CHECK_MPI(MPI_Group_compare(world, world, &res));
  CHECK(res == MPI_IDENT, "compare world/world = %d", res);

  /* range_incl with a negative stride gives the same reversed group. */
  int down[1][3] = {{wsize - 1, 0, -1}};
  CHECK_MPI(MPI_Group_range_incl(world, 1, down, &h));
  CHECK_MPI(MPI_Group_compare(g, h, &res));
  CHECK(res == MPI_IDENT, "range_incl(n-1, 0, -1) vs incl reversed = %d", res);
  CHECK_MPI(MPI_Group_free(&h));
  CHECK(h == MPI_GROUP_NULL, "Group_free sets MPI_GROUP_NULL");

  /* Evens by range, odds by range_excl of the evens. */
  int evens[1][3] = {{0, wsize - 1, 2}};
  MPI_Group ev, od;
  CHECK_MPI(MPI_Group_range_incl(world, 1, evens, &ev));
  n = 0;
  for (int i = 0; i < wsize; i += 2) want[n++] = i;
  expect_members(ev, world, want, n, "range_incl evens");
  CHECK_MPI(MPI_Group_range_excl(world, 1, evens, &od));
  n = 0;
  for (int i = 1; i < wsize; i += 2) want[n++] = i;
  if (n == 0) CHECK(od == MPI_GROUP_EMPTY, "range_excl of everything is MPI_GROUP_EMPTY");
  else expect_members(od, world, want, n, "range_excl evens");
  CHECK_MPI(MPI_Group_rank(ev, &r));
  CHECK(r == (wrank % 2 == 0 ? wrank / 2 : MPI_UNDEFINED), "rank in evens %d", r);

  /* Set algebra on the two halves and on the reversed group: orders. */
  CHECK_MPI(MPI_Group_union(od, ev, &u));
  n = 0;
  for (int i = 1; i < wsize; i += 2) want[n++] = i;
  for (int i = 0; i < wsize; i += 2) want[n++] = i;
  expect_members(u, world, want, n, "union odds+evens");
  CHECK_MPI(MPI_Group_compare(u, world, &res));
  CHECK(res == (wsize == 1 ? MPI_IDENT : MPI_SIMILAR), "union vs world = %d", res);
  CHECK_MPI(MPI_Group_free(&u));
  CHECK_MPI(MPI_Group_intersection(g, ev, &u)); /* reversed order, evens only */
  n = 0;
  for (int i = wsize - 1; i >= 0; --i)
    if (i % 2 == 0) want[n++] = i;
  expect_members(u, world, want, n, "intersection reversed/evens");
  CHECK_MPI(MPI_Group_free(&u));
  CHECK_MPI(MPI_Group_difference(g, ev, &u));
  n = 0;
  for (int i = wsize - 1; i >= 0; --i)
    if (i % 2 == 1) want[n++] = i;
  if (n == 0) CHECK(u == MPI_GROUP_EMPTY, "empty difference is MPI_GROUP_EMPTY");
  else expect_members(u, world, want, n, "difference reversed-evens");
  CHECK_MPI(MPI_Group_free(&u));
  CHECK_MPI(MPI_Group_intersection(ev, od, &u));
  CHECK(u == MPI_GROUP_EMPTY, "evens ∩ odds must be MPI_GROUP_EMPTY");
  CHECK_MPI(MPI_Group_free(&u));

  /* excl and translate_ranks with MPI_UNDEFINED and MPI_PROC_NULL. */
  int drop[1] = {0};
  CHECK_MPI(MPI_Group_excl(world, 1, drop, &h));
  CHECK_MPI(MPI_Group_size(h, &n));
  CHECK(n == wsize - 1, "excl size %d", n);
  int in[3] = {0, wsize - 1, MPI_PROC_NULL}, out[3];
  CHECK_MPI(MPI_Group_translate_ranks(world, 3, in, h, out));
  CHECK(out[0] == MPI_UNDEFINED, "rank 0 was excluded: %d", out[0]);
  CHECK(out[1] == (wsize == 1 ? MPI_UNDEFINED : wsize - 2), "last rank translates to %d", out[1]);
  CHECK(out[2] == MPI_PROC_NULL, "MPI_PROC_NULL translates to itself: %d", out[2]);
  CHECK_MPI(MPI_Group_free(&h));

  /* Several triplets, one ending short of `last`. */
  if (wsize >= 5) {
    int tri[2][3] = {{4, 1, -2}, {0, 0, 1}};
    CHECK_MPI(MPI_Group_range_incl(world, 2, tri, &h));
    int w3[3] = {4, 2, 0};
    expect_members(h, world, w3, 3, "range_incl {4,1,-2},{0,0,1}");
    CHECK_MPI(MPI_Group_range_excl(world, 2, tri, &u));
    int m = 0;
    for (int i = 0; i < wsize; ++i)
      if (i != 4 && i != 2 && i != 0) want[m++] = i;
    expect_members(u, world, want, m, "range_excl {4,1,-2},{0,0,1}");
    CHECK_MPI(MPI_Group_free(&u));
    CHECK_MPI(MPI_Group_free(&h));
  }

  /* Empty results and MPI_GROUP_EMPTY itself. */
  CHECK_MPI(MPI_Group_incl(world, 0, NULL, &h));
  CHECK(h == MPI_GROUP_EMPTY, "incl of nothing is MPI_GROUP_EMPTY");
  CHECK_MPI(MPI_Group_size(MPI_GROUP_EMPTY, &n));
  CHECK(n == 0, "MPI_GROUP_EMPTY size %d", n);
  CHECK_MPI(MPI_Group_rank(MPI_GROUP_EMPTY, &r));
  CHECK(r == MPI_UNDEFINED, "rank in MPI_GROUP_EMPTY %d", r);
  CHECK_MPI(MPI_Group_compare(MPI_GROUP_EMPTY, h, &res));
  CHECK(res == MPI_IDENT, "empty vs empty %d", res);
  CHECK_MPI(MPI_Group_union(MPI_GROUP_EMPTY, ev, &u));
  CHECK_MPI(MPI_Group_compare(u, ev, &res));
  CHECK(res == MPI_IDENT, "empty ∪ evens vs evens %d", res);
  CHECK_MPI(MPI_Group_free(&u));
  CHECK_MPI(MPI_Group_free(&h));
  CHECK(h == MPI_GROUP_NULL, "freeing MPI_GROUP_EMPTY sets MPI_GROUP_NULL");
  CHECK_MPI(MPI_Group_size(MPI_GROUP_EMPTY, &n)); /* still valid */

  /* Error classes. */
  CHECK_MPI(MPI_Errhandler_set(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
  int bad_dup[2] = {0, 0}, bad_rank[1] = {wsize};
  int zero_stride[1][3] = {{0, wsize - 1, 0}}, past[1][3] = {{0, wsize, 1}};
  EXPECT_CLASS(MPI_Group_size(MPI_GROUP_NULL, &n), MPI_ERR_GROUP);
  EXPECT_CLASS(MPI_Group_size((MPI_Group)MPI_COMM_WORLD, &n), MPI_ERR_GROUP);
  EXPECT_CLASS(MPI_Group_incl(world, 2, bad_dup, &h), MPI_ERR_RANK);
  EXPECT_CLASS(MPI_Group_incl(world, 1, bad_rank, &h), MPI_ERR_RANK);
  EXPECT_CLASS(MPI_Group_excl(world, -1, bad_rank, &h), MPI_ERR_ARG);
  EXPECT_CLASS(MPI_Group_range_incl(world, 1, zero_stride, &h), MPI_ERR_ARG);
  EXPECT_CLASS(MPI_Group_range_excl(world, 1, past, &h), MPI_ERR_RANK);
  EXPECT_CLASS(MPI_Group_translate_ranks(world, 1, bad_rank, ev, out), MPI_ERR_RANK);
  EXPECT_CLASS(MPI_Group_union(world, MPI_GROUP_NULL, &h), MPI_ERR_GROUP);
  EXPECT_CLASS(MPI_Group_compare(world, world, NULL), MPI_ERR_ARG);
  EXPECT_CLASS(MPI_Comm_group(MPI_COMM_NULL, &h), MPI_ERR_COMM);
  MPI_Group freed = g;
  CHECK_MPI(MPI_Group_free(&g));
  EXPECT_CLASS(MPI_Group_free(&freed), MPI_ERR_GROUP);

  CHECK_MPI(MPI_Group_free(&ev));
  if (od != MPI_GROUP_EMPTY) CHECK_MPI(MPI_Group_free(&od));
  CHECK_MPI(MPI_Group_free(&world));
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  if (wrank == 0) printf("groups: ok\n");
  CHECK_MPI(MPI_Finalize());
  return 0;
}
