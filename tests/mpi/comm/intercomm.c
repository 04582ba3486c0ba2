/* Intercommunicators (MPI-1.2 §5.6) across the two halves of a split:
 * creation, the inquiry calls, point-to-point in both directions (statuses
 * name remote ranks), dup, merge order under the high flag, two
 * intercommunicators of one group whose drawn ids coincide, and errors. */
#include "comm_check.h"

static int wrank, wsize;

/* Expected world rank of rank r of the half with this color (even/odd). */
static int half_member(int color, int r) { return color + 2 * r; }
static int half_size(int color) { return (wsize - color + 1) / 2; }

static void check_inquiry(MPI_Comm inter, int color) {
  int flag, n, r;
  CHECK_MPI(MPI_Comm_test_inter(inter, &flag));
  CHECK(flag == 1, "test_inter = %d", flag);
  CHECK_MPI(MPI_Comm_size(inter, &n));
  CHECK(n == half_size(color), "local size %d", n);
  CHECK_MPI(MPI_Comm_rank(inter, &r));
  CHECK(r == wrank / 2, "local rank %d", r);
  CHECK_MPI(MPI_Comm_remote_size(inter, &n));
  CHECK(n == half_size(1 - color), "remote size %d", n);
  for (int j = 0; j < n; ++j) {
    int w = world_rank_of(inter, j, 1);
    CHECK(w == half_member(1 - color, j), "remote rank %d is world rank %d", j, w);
  }
  MPI_Group g;
  CHECK_MPI(MPI_Comm_group(inter, &g));
  CHECK_MPI(MPI_Group_size(g, &n));
  CHECK(n == half_size(color), "Comm_group of an intercommunicator is the local group (size %d)", n);
  CHECK_MPI(MPI_Group_free(&g));
}

static void check_pt2pt(MPI_Comm inter, int color, int tag) {
  const int lsize = half_size(color), rsize = half_size(1 - color), r = wrank / 2;
  MPI_Status st;
  int got = -1;
  /* Pairwise exchange: local rank r with remote rank r. */
  if (r < rsize) {
    CHECK_MPI(MPI_Sendrecv(&wrank, 1, MPI_INT, r, tag, &got, 1, MPI_INT, r, tag, inter, &st));
    CHECK(got == half_member(1 - color, r), "pairwise: got %d from remote %d", got, r);
    CHECK(st.MPI_SOURCE == r && st.MPI_TAG == tag, "pairwise status source %d tag %d", st.MPI_SOURCE, st.MPI_TAG);
  }
  /* Fan-in to remote rank 0 with MPI_ANY_SOURCE: every source once. */
  CHECK_MPI(MPI_Send(&wrank, 1, MPI_INT, 0, tag + 1, inter));
  if (r == 0) {
    int seen[64] = {0};
    for (int k = 0; k < rsize; ++k) {
      CHECK_MPI(MPI_Recv(&got, 1, MPI_INT, MPI_ANY_SOURCE, tag + 1, inter, &st));
      CHECK(st.MPI_SOURCE >= 0 && st.MPI_SOURCE < rsize && !seen[st.MPI_SOURCE], "fan-in source %d", st.MPI_SOURCE);
      seen[st.MPI_SOURCE] = 1;
      CHECK(got == half_member(1 - color, st.MPI_SOURCE), "fan-in: %d from remote %d", got, st.MPI_SOURCE);
    }
  }
  (void)lsize;
}

/* Merged communicator: rank order is `first` half then the other. */
static void check_merged(MPI_Comm m, int first) {
  int n, r, expect;
  CHECK_MPI(MPI_Comm_size(m, &n));
  CHECK(n == wsize, "merged size %d", n);
  CHECK_MPI(MPI_Comm_rank(m, &r));
  const int color = wrank % 2;
  expect = color == first ? wrank / 2 : half_size(first) + wrank / 2;
  CHECK(r == expect, "merged rank %d, expected %d (first half: %s)", r, expect, first ? "odds" : "evens");
  int left = (r - 1 + n) % n, got = -1;
  CHECK_MPI(MPI_Sendrecv(&wrank, 1, MPI_INT, (r + 1) % n, 0, &got, 1, MPI_INT, left, 0, m, MPI_STATUS_IGNORE));
  int w = world_rank_of(m, left, 0);
  CHECK(got == w, "merged ring: left neighbour is world %d, group says %d", got, w);
  CHECK_MPI(MPI_Barrier(m));
}

static void test_halves(void) {
  const int color = wrank % 2;
  MPI_Comm local, inter, inter2, merged;
  int res, flag;
  CHECK_MPI(MPI_Comm_split(MPI_COMM_WORLD, color, wrank, &local));
  /* Leaders: local rank 0 of each half = world ranks 0 and 1. */
  CHECK_MPI(MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, 1 - color, 99, &inter));
  check_inquiry(inter, color);
  check_pt2pt(inter, color, 10);
  CHECK_MPI(MPI_Comm_compare(inter, local, &res));
  CHECK(res == MPI_UNEQUAL, "compare(inter, intra) = %d", res);

  CHECK_MPI(MPI_Comm_dup(inter, &inter2));
  CHECK_MPI(MPI_Comm_test_inter(inter2, &flag));
  CHECK(flag, "dup of an intercommunicator is an intercommunicator");
  CHECK_MPI(MPI_Comm_compare(inter, inter2, &res));
  CHECK(res == MPI_CONGRUENT, "compare(inter, dup) = %d", res);
  check_pt2pt(inter2, color, 20);

  /* high = false comes first. */
  CHECK_MPI(MPI_Intercomm_merge(inter, color == 1, &merged));
  check_merged(merged, 0);
  CHECK_MPI(MPI_Comm_free(&merged));
  CHECK_MPI(MPI_Intercomm_merge(inter2, color == 0, &merged));
  check_merged(merged, 1);
  CHECK_MPI(MPI_Comm_free(&merged));
  /* Same flag on both sides: some order, the same for everybody. */
  CHECK_MPI(MPI_Intercomm_merge(inter, 0, &merged));
  int r0 = world_rank_of(merged, 0, 0);
  CHECK(r0 == 0 || r0 == 1, "merged rank 0 is world rank %d", r0);
  check_merged(merged, r0);
  CHECK_MPI(MPI_Comm_free(&merged));

  CHECK_MPI(MPI_Errhandler_set(inter, MPI_ERRORS_RETURN));
  CHECK_MPI(MPI_Errhandler_set(local, MPI_ERRORS_RETURN));
  MPI_Comm bad = MPI_COMM_NULL;
  EXPECT_CLASS(MPI_Comm_split(inter, 0, 0, &bad), MPI_ERR_COMM);
  EXPECT_CLASS(MPI_Intercomm_merge(local, 0, &bad), MPI_ERR_COMM);
  EXPECT_CLASS(MPI_Comm_remote_size(local, &res), MPI_ERR_COMM);
  EXPECT_CLASS(MPI_Intercomm_create(local, half_size(color), MPI_COMM_WORLD, 0, 1, &bad), MPI_ERR_RANK);
  EXPECT_CLASS(MPI_Intercomm_create(inter, 0, MPI_COMM_WORLD, 0, 1, &bad), MPI_ERR_COMM);

  CHECK_MPI(MPI_Comm_free(&inter2));
  CHECK_MPI(MPI_Comm_free(&inter));
  CHECK_MPI(MPI_Comm_free(&local));
}

/* Three colors share one id (one split). C1 makes one communicator more than
 * the others, so C0-C1 pairs C0's first drawn id with C1's second, and C0-C2
 * pairs C0's second with C2's first: the same two ids. A member of C0 holds
 * both intercommunicators; their traffic must stay apart. */
static void test_three_colors(void) {
  const int color = wrank % 3;
  MPI_Comm local, extra = MPI_COMM_NULL, i01 = MPI_COMM_NULL, i02 = MPI_COMM_NULL;
  CHECK_MPI(MPI_Comm_split(MPI_COMM_WORLD, color, wrank, &local));
  if (color == 1) CHECK_MPI(MPI_Comm_dup(local, &extra));
  if (color == 0) CHECK_MPI(MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, 1, 11, &i01));
  if (color == 1) CHECK_MPI(MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, 0, 11, &i01));
  if (color == 0) CHECK_MPI(MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, 2, 12, &i02));
  if (color == 2) CHECK_MPI(MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, 0, 12, &i02));
  int v;
  MPI_Status st;
  /* C1's leader sends on i01 first; C0's leader sees it arrive. */
  if (wrank == 1) {
    v = 111;
    CHECK_MPI(MPI_Send(&v, 1, MPI_INT, 0, 7, i01));
  }
  if (wrank == 0) CHECK_MPI(MPI_Probe(0, 7, i01, &st));
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  if (wrank == 2) {
    v = 222;
    CHECK_MPI(MPI_Send(&v, 1, MPI_INT, 0, 7, i02));
  }
  if (wrank == 0) {
    /* With one context for both, C1's message (already here) would match. */
    CHECK_MPI(MPI_Recv(&v, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, i02, &st));
    CHECK(v == 222, "receive on C0-C2 got %d (C0-C1's message?)", v);
    CHECK_MPI(MPI_Recv(&v, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, i01, &st));
    CHECK(v == 111, "receive on C0-C1 got %d", v);
  }
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  if (i01 != MPI_COMM_NULL) CHECK_MPI(MPI_Comm_free(&i01));
  if (i02 != MPI_COMM_NULL) CHECK_MPI(MPI_Comm_free(&i02));
  if (extra != MPI_COMM_NULL) CHECK_MPI(MPI_Comm_free(&extra));
  CHECK_MPI(MPI_Comm_free(&local));
}

int main(int argc, char** argv) {
  CHECK_MPI(MPI_Init(&argc, &argv));
  CHECK_MPI(MPI_Comm_rank(MPI_COMM_WORLD, &wrank));
  CHECK_MPI(MPI_Comm_size(MPI_COMM_WORLD, &wsize));
  CHECK(wsize >= 2 && wsize <= 64, "run with 2..64 processes");
  test_halves();
  if (wsize >= 3) test_three_colors();
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  if (wrank == 0) printf("intercomm: ok\n");
  CHECK_MPI(MPI_Finalize());
  return 0;
}
