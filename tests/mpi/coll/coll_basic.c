/* Every MPI-1.2 collective on MPI_INT / MPI_DOUBLE, checked against values
 * each rank computes itself from the pattern every rank contributes (an
 * independent reference), for a range of sizes and every root.
 *
 *   coll_basic <max_bytes>
 *
 * max_bytes bounds one process's largest buffer. Rooted operations run
 * every root for vectors up to 64 KiB (and at np <= 4), else roots 0 and
 * np - 1. Run it with FTMPI_COLL to force algorithms. */
#include <stdio.h>
#include <unistd.h>

#include "coll_util.h"

static int rank, np;

static void test_barrier(void) {
  /* A rank that enters late must hold everybody back. */
  for (int late = 0; late < np && late < 2; ++late) {
    double entered = 0, left;
    if (rank == late) {
      usleep(30000);
      entered = MPI_Wtime();
    }
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    left = MPI_Wtime();
    double t[2] = {entered, left}, all[2 * 64];
    if (rank == 0) {
      all[0] = t[0];
      all[1] = t[1];
      for (int r = 1; r < np; ++r) CHECK_MPI(MPI_Recv(all + 2 * r, 2, MPI_DOUBLE, r, 99, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
      for (int r = 0; r < np; ++r)
        CHECK(all[2 * r + 1] >= all[2 * late], "rank %d left the barrier before rank %d entered", r, late);
    } else {
      CHECK_MPI(MPI_Send(t, 2, MPI_DOUBLE, 0, 99, MPI_COMM_WORLD));
    }
  }
}

static void test_bcast(long count, int root) {
  Guarded g = guarded_alloc(count * sizeof(int), 0xee);
  int* b = (int*)g.data;
  if (rank == root)
    for (long i = 0; i < count; ++i) b[i] = pattern(root, i, 1);
  CHECK_MPI(MPI_Bcast(b, (int)count, MPI_INT, root, MPI_COMM_WORLD));
  for (long i = 0; i < count; ++i)
    CHECK(b[i] == pattern(root, i, 1), "bcast count %ld root %d: [%ld] = %d", count, root, i, b[i]);
  check_guards(&g, "MPI_Bcast");
  guarded_free(&g);
}

static void test_gather_scatter(long count, int root) {
  int* s = malloc((count ? count : 1) * sizeof(int));
  Guarded g = guarded_alloc(rank == root ? count * np * sizeof(int) : 0, 0xee);
  int* all = (int*)g.data;
  for (long i = 0; i < count; ++i) s[i] = pattern(rank, i, 2);
  CHECK_MPI(MPI_Gather(s, (int)count, MPI_INT, all, (int)count, MPI_INT, root, MPI_COMM_WORLD));
  if (rank == root)
    for (int r = 0; r < np; ++r)
      for (long i = 0; i < count; ++i)
        CHECK(all[r * count + i] == pattern(r, i, 2), "gather count %ld root %d: block %d [%ld]", count, root, r, i);
  check_guards(&g, "MPI_Gather");

  /* Scatter back what was gathered, with a new salt. */
  if (rank == root)
    for (int r = 0; r < np; ++r)
      for (long i = 0; i < count; ++i) all[r * count + i] = pattern(r, i, 3);
  Guarded h = guarded_alloc(count * sizeof(int), 0xee);
  CHECK_MPI(MPI_Scatter(all, (int)count, MPI_INT, h.data, (int)count, MPI_INT, root, MPI_COMM_WORLD));
  for (long i = 0; i < count; ++i)
    CHECK(((int*)h.data)[i] == pattern(rank, i, 3), "scatter count %ld root %d: [%ld]", count, root, i);
  check_guards(&h, "MPI_Scatter");
  guarded_free(&g);
  guarded_free(&h);
  free(s);
}

/* v-variant layout: rank r's block has vcount(r) items at vdispl(r); the
 * blocks are in reverse rank order with gaps that must stay untouched. */
static int vcount(int r, long base) { return r % 3 == 1 ? 0 : (int)(base + r); }
static int vdispl(int r, long base) {
  int d = 1;
  for (int q = r + 1; q < np; ++q) d += vcount(q, base) + 3;
  return d;
}
static long vtotal(long base) { return vdispl(-1, base); }

static void check_v_layout(const int* buf, long base, int salt, const char* what) {
  char* covered = calloc(vtotal(base), 1);
  for (int r = 0; r < np; ++r)
    for (int i = 0; i < vcount(r, base); ++i) {
      CHECK(buf[vdispl(r, base) + i] == pattern(r, i, salt), "%s base %ld: block %d [%d] = %d", what, base, r, i,
            buf[vdispl(r, base) + i]);
      covered[vdispl(r, base) + i] = 1;
    }
  for (long k = 0; k < vtotal(base); ++k)
    if (!covered[k]) CHECK(buf[k] == (int)0xeeeeeeee, "%s base %ld: gap at %ld was written", what, base, k);
  free(covered);
}

static void test_v(long base, int root) {
  int counts[64], displs[64];
  for (int r = 0; r < np; ++r) {
    counts[r] = vcount(r, base);
    displs[r] = vdispl(r, base);
  }
  const int mine = vcount(rank, base);
  int* s = malloc((mine + 1) * sizeof(int));
  for (int i = 0; i < mine; ++i) s[i] = pattern(rank, i, 4);
  Guarded g = guarded_alloc(vtotal(base) * sizeof(int), 0xee);
  CHECK_MPI(MPI_Gatherv(s, mine, MPI_INT, g.data, counts, displs, MPI_INT, root, MPI_COMM_WORLD));
  if (rank == root) check_v_layout(g.data, base, 4, "gatherv");
  check_guards(&g, "MPI_Gatherv");

  Guarded a = guarded_alloc(vtotal(base) * sizeof(int), 0xee);
  CHECK_MPI(MPI_Allgatherv(s, mine, MPI_INT, a.data, counts, displs, MPI_INT, MPI_COMM_WORLD));
  check_v_layout(a.data, base, 4, "allgatherv");
  check_guards(&a, "MPI_Allgatherv");

  /* Scatterv: the root sends every rank its block of the pattern. */
  if (rank == root)
    for (int r = 0; r < np; ++r)
      for (int i = 0; i < counts[r]; ++i) ((int*)g.data)[displs[r] + i] = pattern(r, i, 5);
  Guarded h = guarded_alloc(mine * sizeof(int), 0xee);
  CHECK_MPI(MPI_Scatterv(g.data, counts, displs, MPI_INT, h.data, mine, MPI_INT, root, MPI_COMM_WORLD));
  for (int i = 0; i < mine; ++i) CHECK(((int*)h.data)[i] == pattern(rank, i, 5), "scatterv base %ld [%d]", base, i);
  check_guards(&h, "MPI_Scatterv");
  guarded_free(&g);
  guarded_free(&a);
  guarded_free(&h);
  free(s);
}

/* Alltoallv: rank r sends (r + d) % 4 * base / 2 + d items to rank d. */
static int a2a_count(int from, int to, long base) { return (int)(((from + to) % 4) * (base / 2) + (from + 2 * to) % 3); }

static void test_alltoallv(long base) {
  int sc[64], sd[64], rc[64], rd[64];
  long stot = 0, rtot = 0;
  for (int d = np - 1; d >= 0; --d) { /* reverse order, gaps of 2 */
    sc[d] = a2a_count(rank, d, base);
    sd[d] = (int)stot + 2;
    stot += sc[d] + 2;
    rc[d] = a2a_count(d, rank, base);
    rd[d] = (int)rtot + 2;
    rtot += rc[d] + 2;
  }
  int* s = malloc((stot + 1) * sizeof(int));
  for (int d = 0; d < np; ++d)
    for (int i = 0; i < sc[d]; ++i) s[sd[d] + i] = pattern(rank, i + 1000L * d, 6);
  Guarded g = guarded_alloc(rtot * sizeof(int), 0xee);
  int* r = (int*)g.data;
  CHECK_MPI(MPI_Alltoallv(s, sc, sd, MPI_INT, r, rc, rd, MPI_INT, MPI_COMM_WORLD));
  for (int f = 0; f < np; ++f) {
    for (int i = 0; i < rc[f]; ++i)
      CHECK(r[rd[f] + i] == pattern(f, i + 1000L * rank, 6), "alltoallv base %ld: from %d [%d]", base, f, i);
    CHECK(r[rd[f] - 1] == (int)0xeeeeeeee, "alltoallv wrote a gap");
  }
  check_guards(&g, "MPI_Alltoallv");
  guarded_free(&g);
  free(s);
}

static void test_allgather_alltoall(long count) {
  int* s = malloc((count * np + 1) * sizeof(int));
  for (long i = 0; i < count; ++i) s[i] = pattern(rank, i, 7);
  Guarded g = guarded_alloc(count * np * sizeof(int), 0xee);
  int* all = (int*)g.data;
  CHECK_MPI(MPI_Allgather(s, (int)count, MPI_INT, all, (int)count, MPI_INT, MPI_COMM_WORLD));
  for (int r = 0; r < np; ++r)
    for (long i = 0; i < count; ++i)
      CHECK(all[r * count + i] == pattern(r, i, 7), "allgather count %ld: block %d [%ld]", count, r, i);
  check_guards(&g, "MPI_Allgather");

  /* Alltoall: block d of rank r = pattern(r, i + count * d). */
  for (int d = 0; d < np; ++d)
    for (long i = 0; i < count; ++i) s[d * count + i] = pattern(rank, i + count * d, 8);
  memset(all, 0xee, count * np * sizeof(int));
  CHECK_MPI(MPI_Alltoall(s, (int)count, MPI_INT, all, (int)count, MPI_INT, MPI_COMM_WORLD));
  for (int r = 0; r < np; ++r)
    for (long i = 0; i < count; ++i)
      CHECK(all[r * count + i] == pattern(r, i + count * rank, 8), "alltoall count %ld: from %d [%ld]", count, r, i);
  check_guards(&g, "MPI_Alltoall");
  guarded_free(&g);
  free(s);
}

static void test_reductions(long count, int root, int all_kinds) {
  int* s = malloc((count + 1) * sizeof(int));
  double* ds = malloc((count + 1) * sizeof(double));
  for (long i = 0; i < count; ++i) {
    s[i] = pattern(rank, i, 9);
    ds[i] = (double)pattern(rank, i, 10) - 50000.0;
  }
  Guarded g = guarded_alloc(count * sizeof(int), 0xee);
  Guarded dg = guarded_alloc(count * sizeof(double), 0xee);
  int* r = (int*)g.data;
  double* dr = (double*)dg.data;
  CHECK_MPI(MPI_Reduce(s, r, (int)count, MPI_INT, MPI_SUM, root, MPI_COMM_WORLD));
  if (rank == root)
    for (long i = 0; i < count; ++i) {
      int want = 0;
      for (int q = 0; q < np; ++q) want += pattern(q, i, 9);
      CHECK(r[i] == want, "reduce SUM count %ld root %d: [%ld] = %d, want %d", count, root, i, r[i], want);
    }
  check_guards(&g, "MPI_Reduce");
  if (!all_kinds) goto done;

  CHECK_MPI(MPI_Allreduce(ds, dr, (int)count, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD));
  for (long i = 0; i < count; ++i) {
    double want = -1e300;
    for (int q = 0; q < np; ++q)
      if ((double)pattern(q, i, 10) - 50000.0 > want) want = (double)pattern(q, i, 10) - 50000.0;
    CHECK(dr[i] == want, "allreduce MAX count %ld: [%ld] = %g, want %g", count, i, dr[i], want);
  }
  check_guards(&dg, "MPI_Allreduce");

  CHECK_MPI(MPI_Allreduce(ds, dr, (int)count, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD));
  for (long i = 0; i < count; ++i) {
    double want = 0;
    for (int q = 0; q < np; ++q) want += (double)pattern(q, i, 10) - 50000.0;
    CHECK(dr[i] == want, "allreduce SUM count %ld: [%ld] = %g, want %g", count, i, dr[i], want);
  }

  CHECK_MPI(MPI_Scan(s, r, (int)count, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
  for (long i = 0; i < count; ++i) {
    int want = 0;
    for (int q = 0; q <= rank; ++q) want += pattern(q, i, 9);
    CHECK(r[i] == want, "scan SUM count %ld: [%ld] = %d, want %d", count, i, r[i], want);
  }
  check_guards(&g, "MPI_Scan");

  /* Reduce_scatter: rank q gets vcount(q) items (some none). */
  {
    int counts[64];
    long total = 0, first = 0;
    for (int q = 0; q < np; ++q) {
      counts[q] = vcount(q, count / np);
      if (q < rank) first += counts[q];
      total += counts[q];
    }
    int* vs = malloc((total + 1) * sizeof(int));
    for (long i = 0; i < total; ++i) vs[i] = pattern(rank, i, 11);
    Guarded rg = guarded_alloc(counts[rank] * sizeof(int), 0xee);
    CHECK_MPI(MPI_Reduce_scatter(vs, rg.data, counts, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    for (int i = 0; i < counts[rank]; ++i) {
      int want = 0;
      for (int q = 0; q < np; ++q) want += pattern(q, first + i, 11);
      CHECK(((int*)rg.data)[i] == want, "reduce_scatter base %ld: [%d]", count / np, i);
    }
    check_guards(&rg, "MPI_Reduce_scatter");
    guarded_free(&rg);
    free(vs);
  }
done:
  guarded_free(&g);
  guarded_free(&dg);
  free(s);
  free(ds);
}

/* Floating-point results that depend on the combination order must still
 * be bitwise equal on every rank and from one call to the next. */
static void test_determinism(long count) {
  double* s = malloc((count + 1) * sizeof(double));
  double* r1 = malloc((count + 1) * sizeof(double));
  double* r2 = malloc((count + 1) * sizeof(double));
  for (long i = 0; i < count; ++i) s[i] = 1.0 / (double)(pattern(rank, i, 12) + 3) * (rank % 2 ? -1e5 : 1e-3);
  CHECK_MPI(MPI_Allreduce(s, r1, (int)count, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD));
  CHECK_MPI(MPI_Allreduce(s, r2, (int)count, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD));
  CHECK(memcmp(r1, r2, count * sizeof(double)) == 0, "allreduce count %ld differs between two calls", count);
  if (rank == 0) {
    for (int q = 1; q < np; ++q) {
      CHECK_MPI(MPI_Recv(r2, (int)count, MPI_DOUBLE, q, 98, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
      CHECK(memcmp(r1, r2, count * sizeof(double)) == 0, "allreduce count %ld: rank %d's result differs", count, q);
    }
  } else {
    CHECK_MPI(MPI_Send(r1, (int)count, MPI_DOUBLE, 0, 98, MPI_COMM_WORLD));
  }
  free(s);
  free(r1);
  free(r2);
}

int main(int argc, char** argv) {
  CHECK_MPI(MPI_Init(&argc, &argv));
  CHECK_MPI(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
  CHECK_MPI(MPI_Comm_size(MPI_COMM_WORLD, &np));
  CHECK(np <= 64, "at most 64 ranks");
  long max_bytes = argc > 1 ? atol(argv[1]) : 1 << 20;
  const long counts[] = {0, 1, 5, 64, 1000, 4100, 30000, 300000, 1100000};
  const int ncounts = sizeof counts / sizeof counts[0];
  int checked = 0;

  test_barrier();
  for (int k = 0; k < ncounts; ++k) {
    const long c = counts[k];
    if (c * (long)sizeof(double) > max_bytes) break;
    const int every_root = c * (long)sizeof(int) <= 65536 || np <= 4;
    for (int root = 0; root < np; ++root) {
      if (!every_root && root != 0 && root != np - 1) continue;
      test_bcast(c, root);
      test_reductions(c, root, root == 0);
      if (c * np * (long)sizeof(int) <= max_bytes) {
        test_gather_scatter(c, root);
        test_v(c / 2, root);
      }
      ++checked;
    }
    if (c * np * (long)sizeof(int) <= max_bytes) {
      test_allgather_alltoall(c);
      test_alltoallv(c);
    }
    test_determinism(c);
  }
  test_barrier();
  if (rank == 0) printf("coll_basic: np %d, %d size/root cases checked\n", np, checked);
  CHECK_MPI(MPI_Finalize());
  return 0;
}
