/* Collectives over MPI_COMM_WORLD with blanks (BLANK mode after a recovery;
 * FT-MPI spec §4.1, spec/ft-collectives.md §4). The victims (argv[1], e.g.
 * "2" or "1,3") die; the survivors recover, then run every collective with
 * a blank root and a live root, and check: a blank root returns at once with
 * MPI_SUCCESS and untouched buffers; blanks contribute nothing (sums over the
 * survivors, MAXLOC never names a blank, user ops never see a blank's
 * value); blank ranks' segments stay untouched. */
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"

#define PATTERN 0x5a5a5a5a
#define N 5
#define MAXP 16

static int rank, size, blank[MAXP], user_calls;

static int f(int r, int i) { return r * 1000 + i + 1; }
static int g(int s, int d, int i) { return s * 10000 + d * 100 + i; }

static void user_sum(void* in, void* inout, int* len, MPI_Datatype* dt) {
  (void)dt;
  int *a = in, *b = inout;
  for (int i = 0; i < *len; ++i) {
    CHECK(a[i] > 0 && a[i] != PATTERN && b[i] > 0 && b[i] != PATTERN, "user op saw a blank's value");
    b[i] += a[i];
  }
  user_calls++;
}

static void fill(int* b, int n) {
  for (int i = 0; i < n; ++i) b[i] = PATTERN;
}

static void check_block(const char* what, const int* got, int seg, int from_blank, int (*want)(int, int), int arg) {
  for (int i = 0; i < N; ++i) {
    int w = from_blank ? PATTERN : want(arg, i);
    CHECK(got[seg * N + i] == w, "%s: segment %d item %d = %d, expected %d", what, seg, i, got[seg * N + i], w);
  }
}

static void rooted(int root) {
  int s[N * MAXP], r[N * MAXP], want[N];
  const int br = blank[root];
  /* bcast */
  for (int i = 0; i < N; ++i) r[i] = rank == root ? f(root, i) : PATTERN;
  CHECK_MPI(MPI_Bcast(r, N, MPI_INT, root, MPI_COMM_WORLD));
  for (int i = 0; i < N; ++i) CHECK(r[i] == (br ? PATTERN : f(root, i)), "bcast root %d item %d = %d", root, i, r[i]);
  /* reduce, with a predefined and a user op */
  MPI_Op uop;
  CHECK_MPI(MPI_Op_create(user_sum, 1, &uop));
  for (int k = 0; k < 2; ++k) {
    for (int i = 0; i < N; ++i) {
      s[i] = f(rank, i);
      want[i] = 0;
      for (int q = 0; q < size; ++q) want[i] += blank[q] ? 0 : f(q, i);
    }
    fill(r, N);
    CHECK_MPI(MPI_Reduce(s, r, N, MPI_INT, k ? uop : MPI_SUM, root, MPI_COMM_WORLD));
    for (int i = 0; i < N; ++i)
      CHECK(r[i] == (rank == root && !br ? want[i] : PATTERN), "reduce%s root %d item %d = %d", k ? "(user)" : "", root,
            i, r[i]);
  }
  MPI_Op_free(&uop);
  /* gather: blank segments untouched */
  for (int i = 0; i < N; ++i) s[i] = f(rank, i);
  fill(r, N * size);
  CHECK_MPI(MPI_Gather(s, N, MPI_INT, r, N, MPI_INT, root, MPI_COMM_WORLD));
  for (int q = 0; q < size; ++q) check_block("gather", r, q, br || rank != root || blank[q], f, q);
  /* gatherv */
  int counts[MAXP], displs[MAXP];
  for (int q = 0; q < size; ++q) counts[q] = N, displs[q] = q * N;
  fill(r, N * size);
  CHECK_MPI(MPI_Gatherv(s, N, MPI_INT, r, counts, displs, MPI_INT, root, MPI_COMM_WORLD));
  for (int q = 0; q < size; ++q) check_block("gatherv", r, q, br || rank != root || blank[q], f, q);
  /* scatter: the blank's block is never sent */
  for (int q = 0; q < size; ++q)
    for (int i = 0; i < N; ++i) s[q * N + i] = f(q, i);
  fill(r, N);
  CHECK_MPI(MPI_Scatter(s, N, MPI_INT, r, N, MPI_INT, root, MPI_COMM_WORLD));
  check_block("scatter", r, 0, br, f, rank);
}

int main(int argc, char** argv) {
  CHECK_MPI(MPI_Init(&argc, &argv));
  CHECK_MPI(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
  CHECK_MPI(MPI_Comm_size(MPI_COMM_WORLD, &size));
  CHECK(argc == 2 && size <= MAXP, "usage: ft_coll_blank <victim,victim...>");
  CHECK_MPI(MPI_Errhandler_set(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
  for (const char* p = argv[1]; *p;) {
    blank[atoi(p)] = 1;
    p += strcspn(p, ",");
    if (*p) ++p;
  }
  /* A victim may die while a slow survivor is still in this barrier. */
  int rc0 = MPI_Barrier(MPI_COMM_WORLD), c0 = -1;
  MPI_Error_class(rc0, &c0);
  CHECK(c0 == MPI_SUCCESS || c0 == MPI_ERR_OTHER, "first barrier: class %d", c0);
  if (blank[rank]) raise(SIGKILL);
  while (MPI_Barrier(MPI_COMM_WORLD) == MPI_SUCCESS) {
  }
  MPI_Comm dummy;
  CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &dummy));
  int n;
  CHECK_MPI(MPI_Comm_size(MPI_COMM_WORLD, &n));
  CHECK(n == size, "BLANK keeps the size: %d", n);
  int nlive = 0, last_live = 0, first_blank = -1, first_live = -1;
  for (int q = 0; q < size; ++q) {
    if (!blank[q]) nlive++, last_live = q;
    if (!blank[q] && first_live < 0) first_live = q;
    if (blank[q] && first_blank < 0) first_blank = q;
  }
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  rooted(first_blank);
  rooted(first_live);
  rooted(last_live);

  int s[N * MAXP], r[N * MAXP], want[N], tot[N];
  /* allreduce, scan: sums over the survivors */
  for (int i = 0; i < N; ++i) s[i] = f(rank, i);
  CHECK_MPI(MPI_Allreduce(s, r, N, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
  for (int i = 0; i < N; ++i) {
    want[i] = 0;
    for (int q = 0; q < size; ++q) want[i] += blank[q] ? 0 : f(q, i);
    tot[i] = want[i];
    CHECK(r[i] == want[i], "allreduce item %d = %d, expected %d", i, r[i], want[i]);
  }
  CHECK_MPI(MPI_Scan(s, r, N, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
  for (int i = 0; i < N; ++i) {
    want[i] = 0;
    for (int q = 0; q <= rank; ++q) want[i] += blank[q] ? 0 : f(q, i);
    CHECK(r[i] == want[i], "scan item %d = %d, expected %d", i, r[i], want[i]);
  }
  /* user op on an allreduce: never sees a blank, called only between survivors */
  MPI_Op uop;
  CHECK_MPI(MPI_Op_create(user_sum, 1, &uop));
  user_calls = 0;
  CHECK_MPI(MPI_Allreduce(s, r, N, MPI_INT, uop, MPI_COMM_WORLD));
  for (int i = 0; i < N; ++i) CHECK(r[i] == tot[i], "user allreduce item %d = %d, expected %d", i, r[i], tot[i]);
  MPI_Op_free(&uop);
  /* MAXLOC / MINLOC name survivors only */
  struct {
    int v, r;
  } in = {100 - rank, rank}, out = {-1, -1};
  CHECK_MPI(MPI_Allreduce(&in, &out, 1, MPI_2INT, MPI_MINLOC, MPI_COMM_WORLD));
  CHECK(out.r == last_live && out.v == 100 - last_live, "minloc named %d (%d)", out.r, out.v);
  in.v = rank;
  CHECK_MPI(MPI_Allreduce(&in, &out, 1, MPI_2INT, MPI_MAXLOC, MPI_COMM_WORLD));
  CHECK(out.r == last_live, "maxloc named %d", out.r);
  /* allgather / alltoall / reduce_scatter: blank segments untouched */
  fill(r, N * size);
  CHECK_MPI(MPI_Allgather(s, N, MPI_INT, r, N, MPI_INT, MPI_COMM_WORLD));
  for (int q = 0; q < size; ++q) check_block("allgather", r, q, blank[q], f, q);
  for (int q = 0; q < size; ++q)
    for (int i = 0; i < N; ++i) s[q * N + i] = g(rank, q, i);
  fill(r, N * size);
  CHECK_MPI(MPI_Alltoall(s, N, MPI_INT, r, N, MPI_INT, MPI_COMM_WORLD));
  for (int q = 0; q < size; ++q)
    for (int i = 0; i < N; ++i)
      CHECK(r[q * N + i] == (blank[q] ? PATTERN : g(q, rank, i)), "alltoall from %d item %d = %d", q, i, r[q * N + i]);
  int counts[MAXP], displs[MAXP];
  for (int q = 0; q < size; ++q) counts[q] = N, displs[q] = q * N;
  fill(r, N * size);
  CHECK_MPI(MPI_Alltoallv(s, counts, displs, MPI_INT, r, counts, displs, MPI_INT, MPI_COMM_WORLD));
  for (int q = 0; q < size; ++q)
    for (int i = 0; i < N; ++i)
      CHECK(r[q * N + i] == (blank[q] ? PATTERN : g(q, rank, i)), "alltoallv from %d item %d", q, i);
  fill(r, N * size);
  CHECK_MPI(MPI_Reduce_scatter(s, r, counts, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
  for (int i = 0; i < N; ++i) {
    int w = 0;
    for (int q = 0; q < size; ++q) w += blank[q] ? 0 : g(q, rank, i);
    CHECK(r[i] == w, "reduce_scatter item %d = %d, expected %d", i, r[i], w);
  }
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  if (rank == first_live) printf("ft_coll_blank: ok (%d blanks of %d)\n", size - nlive, size);
  CHECK_MPI(MPI_Finalize());
  return 0;
}
