/* Collectives with derived datatypes: a strided vector (holes between the
 * elements), a struct with padding and an explicit upper bound, and send
 * and receive sides that use different types of equal signature (vector
 * against contiguous ints). Values are checked against the pattern, and
 * every hole of a receive buffer must keep its sentinel.
 *
 *   coll_derived [items]      (vector items per block, default 40) */
#include <stddef.h>
#include <stdio.h>

#include "coll_util.h"

static int rank, np, items;
static MPI_Datatype vec, rec, dvec; /* 3 ints stride 2; {int, double, UB}; 2 doubles stride 3 */

#define VEC_N 3
#define VEC_EXT 5 /* ints spanned by one vec item */
#define SENTINEL ((int)0x7e7e7e7e)

/* Element e of vec item j of a block: ints[j * VEC_EXT + 2 * e]. */
static void vec_fill(int* b, int n, int owner, int salt) {
  for (int k = 0; k < n * VEC_EXT; ++k) b[k] = SENTINEL;
  for (int j = 0; j < n; ++j)
    for (int e = 0; e < VEC_N; ++e) b[j * VEC_EXT + 2 * e] = pattern(owner, j * VEC_N + e, salt);
}
static void vec_check(const int* b, int n, int owner, int salt, const char* what) {
  for (int j = 0; j < n; ++j)
    for (int k = 0; k < VEC_EXT; ++k) {
      int v = b[j * VEC_EXT + k];
      if (k % 2 == 0) CHECK(v == pattern(owner, j * VEC_N + k / 2, salt), "%s: item %d elem %d = %d", what, j, k / 2, v);
      else CHECK(v == SENTINEL, "%s: hole in item %d written", what, j);
    }
}
static void ints_fill(int* b, int n, int owner, int salt) {
  for (int k = 0; k < n * VEC_N; ++k) b[k] = pattern(owner, k, salt);
}
static void ints_check(const int* b, int n, int owner, int salt, const char* what) {
  for (int k = 0; k < n * VEC_N; ++k) CHECK(b[k] == pattern(owner, k, salt), "%s: [%d] = %d", what, k, b[k]);
}

typedef struct {
  int i;
  double d;
  char pad[8]; /* up to the explicit MPI_UB at 24 */
} Rec;
static void rec_fill(Rec* r, int n, int owner, int salt) {
  memset(r, 0x7e, sizeof(Rec) * n);
  for (int j = 0; j < n; ++j) {
    r[j].i = pattern(owner, j, salt);
    r[j].d = (double)pattern(owner, j, salt + 1) / 4.0;
  }
}
static void rec_check(const Rec* r, int n, int owner, int salt, const char* what) {
  for (int j = 0; j < n; ++j) {
    CHECK(r[j].i == pattern(owner, j, salt) && r[j].d == (double)pattern(owner, j, salt + 1) / 4.0, "%s: record %d",
          what, j);
    const unsigned char* gap = (const unsigned char*)&r[j] + sizeof(int);
    for (size_t b = 0; b < offsetof(Rec, d) - sizeof(int); ++b) CHECK(gap[b] == 0x7e, "%s: padding of %d written", what, j);
    for (int b = 0; b < 8; ++b) CHECK((unsigned char)r[j].pad[b] == 0x7e, "%s: tail of %d written", what, j);
  }
}

static void test_bcast(int root) {
  int* b = malloc(sizeof(int) * items * VEC_EXT);
  if (rank == root) vec_fill(b, items, root, 1);
  else if (rank % 2) ints_fill(b, items, -1, 0); /* odd ranks receive contiguous ints */
  else vec_fill(b, items, -1, 0);
  CHECK_MPI(MPI_Bcast(b, rank == root || rank % 2 == 0 ? items : items * VEC_N, rank == root || rank % 2 == 0 ? vec : MPI_INT,
                      root, MPI_COMM_WORLD));
  if (rank == root || rank % 2 == 0) vec_check(b, items, root, 1, "bcast vec");
  else ints_check(b, items, root, 1, "bcast ints");
  free(b);
}

static void test_gather_scatter(int root) {
  int* s = malloc(sizeof(int) * items * VEC_EXT);
  int* all = malloc(sizeof(int) * items * VEC_N * np);
  vec_fill(s, items, rank, 2);
  CHECK_MPI(MPI_Gather(s, items, vec, all, items * VEC_N, MPI_INT, root, MPI_COMM_WORLD));
  if (rank == root)
    for (int r = 0; r < np; ++r) ints_check(all + r * items * VEC_N, items, r, 2, "gather vec->ints");
  /* Scatter records with an upper bound. */
  Rec* rs = malloc(sizeof(Rec) * items * np);
  Rec* rr = malloc(sizeof(Rec) * items);
  if (rank == root)
    for (int r = 0; r < np; ++r) rec_fill(rs + r * items, items, r, 3);
  memset(rr, 0x7e, sizeof(Rec) * items);
  CHECK_MPI(MPI_Scatter(rs, items, rec, rr, items, rec, root, MPI_COMM_WORLD));
  rec_check(rr, items, rank, 3, "scatter rec");
  free(s);
  free(all);
  free(rs);
  free(rr);
}

static void test_all(void) {
  Rec* s = malloc(sizeof(Rec) * items);
  Rec* all = malloc(sizeof(Rec) * items * np);
  rec_fill(s, items, rank, 4);
  memset(all, 0x7e, sizeof(Rec) * items * np);
  CHECK_MPI(MPI_Allgather(s, items, rec, all, items, rec, MPI_COMM_WORLD));
  for (int r = 0; r < np; ++r) rec_check(all + r * items, items, r, 4, "allgather rec");

  /* Alltoall: vec blocks out, contiguous ints in (and the reverse). */
  int* vs = malloc(sizeof(int) * items * VEC_EXT * np);
  int* ir = malloc(sizeof(int) * items * VEC_N * np);
  for (int d = 0; d < np; ++d) vec_fill(vs + d * items * VEC_EXT, items, rank * 100 + d, 5);
  CHECK_MPI(MPI_Alltoall(vs, items, vec, ir, items * VEC_N, MPI_INT, MPI_COMM_WORLD));
  for (int f = 0; f < np; ++f) ints_check(ir + f * items * VEC_N, items, f * 100 + rank, 5, "alltoall vec->ints");
  for (int d = 0; d < np; ++d) ints_fill(ir + d * items * VEC_N, items, rank * 100 + d, 6);
  CHECK_MPI(MPI_Alltoall(ir, items * VEC_N, MPI_INT, vs, items, vec, MPI_COMM_WORLD));
  for (int f = 0; f < np; ++f) {
    /* Holes of the receive side were never written: refill only checks elements. */
    for (int j = 0; j < items; ++j)
      for (int e = 0; e < VEC_N; ++e)
        CHECK(vs[f * items * VEC_EXT + j * VEC_EXT + 2 * e] == pattern(f * 100 + rank, j * VEC_N + e, 6),
              "alltoall ints->vec");
    for (int j = 0; j < items; ++j) CHECK(vs[f * items * VEC_EXT + j * VEC_EXT + 1] == SENTINEL, "alltoall hole");
  }
  free(s);
  free(all);
  free(vs);
  free(ir);
}

static void test_v(int root) {
  /* Rank r sends r % 4 + 1 vec items; blocks in reverse rank order. */
  int counts[64], displs[64], total = 0;
  for (int r = np - 1; r >= 0; --r) {
    counts[r] = r % 4 + 1;
    displs[r] = total;
    total += counts[r] + 1; /* one item of gap */
  }
  int* s = malloc(sizeof(int) * VEC_EXT * counts[rank]);
  int* all = malloc(sizeof(int) * VEC_EXT * total);
  vec_fill(s, counts[rank], rank, 7);
  for (int k = 0; k < VEC_EXT * total; ++k) all[k] = SENTINEL;
  CHECK_MPI(MPI_Allgatherv(s, counts[rank], vec, all, counts, displs, vec, MPI_COMM_WORLD));
  for (int r = 0; r < np; ++r) vec_check(all + displs[r] * VEC_EXT, counts[r], r, 7, "allgatherv vec");
  for (int r = 0; r < np; ++r) {
    for (int k = 0; k < VEC_EXT; ++k)
      CHECK(all[(displs[r] + counts[r]) * VEC_EXT + k] == SENTINEL, "allgatherv wrote a gap");
  }
  for (int k = 0; k < VEC_EXT * total; ++k) all[k] = SENTINEL;
  CHECK_MPI(MPI_Gatherv(s, counts[rank], vec, all, counts, displs, vec, root, MPI_COMM_WORLD));
  if (rank == root)
    for (int r = 0; r < np; ++r) vec_check(all + displs[r] * VEC_EXT, counts[r], r, 7, "gatherv vec");
  if (rank == root)
    for (int r = 0; r < np; ++r) vec_fill(all + displs[r] * VEC_EXT, counts[r], r, 8);
  int* mine = malloc(sizeof(int) * VEC_N * counts[rank]);
  CHECK_MPI(MPI_Scatterv(all, counts, displs, vec, mine, counts[rank] * VEC_N, MPI_INT, root, MPI_COMM_WORLD));
  ints_check(mine, counts[rank], rank, 8, "scatterv vec->ints");
  free(s);
  free(all);
  free(mine);
}

static void test_reduce(int root) {
  /* dvec: 2 doubles 3 apart; SUM and MAX element by element, holes kept. */
  const int ext = 4; /* doubles spanned by one dvec item */
  double* s = malloc(sizeof(double) * items * ext);
  double* r = malloc(sizeof(double) * items * ext);
  for (int k = 0; k < items * ext; ++k) {
    s[k] = (double)pattern(rank, k, 9);
    r[k] = -7.5;
  }
  CHECK_MPI(MPI_Reduce(s, r, items, dvec, MPI_SUM, root, MPI_COMM_WORLD));
  if (rank == root)
    for (int k = 0; k < items * ext; ++k) {
      double want = 0;
      for (int q = 0; q < np; ++q) want += (double)pattern(q, k, 9);
      if (k % ext == 0 || k % ext == 3) CHECK(r[k] == want, "reduce dvec [%d] = %g want %g", k, r[k], want);
      else CHECK(r[k] == -7.5, "reduce dvec wrote hole %d", k);
    }
  CHECK_MPI(MPI_Allreduce(s, r, items, dvec, MPI_MAX, MPI_COMM_WORLD));
  for (int k = 0; k < items * ext; ++k) {
    double want = -1;
    for (int q = 0; q < np; ++q)
      if ((double)pattern(q, k, 9) > want) want = (double)pattern(q, k, 9);
    if (k % ext == 0 || k % ext == 3) CHECK(r[k] == want, "allreduce dvec [%d]", k);
    else CHECK(r[k] == -7.5, "allreduce dvec wrote hole %d", k);
  }
  CHECK_MPI(MPI_Scan(s, r, items, dvec, MPI_SUM, MPI_COMM_WORLD));
  for (int k = 0; k < items * ext; ++k) {
    double want = 0;
    for (int q = 0; q <= rank; ++q) want += (double)pattern(q, k, 9);
    if (k % ext == 0 || k % ext == 3) CHECK(r[k] == want, "scan dvec [%d]", k);
  }
  /* Reduce_scatter over dvec: rank q gets items q % 3 + 1. */
  int counts[64], total = 0, first = 0;
  for (int q = 0; q < np; ++q) {
    counts[q] = q % 3 + 1;
    if (q < rank) first += counts[q];
    total += counts[q];
  }
  double* vs = malloc(sizeof(double) * total * ext);
  for (int k = 0; k < total * ext; ++k) vs[k] = (double)pattern(rank, k, 10);
  for (int k = 0; k < items * ext; ++k) r[k] = -7.5;
  CHECK_MPI(MPI_Reduce_scatter(vs, r, counts, dvec, MPI_SUM, MPI_COMM_WORLD));
  for (int k = 0; k < counts[rank] * ext; ++k) {
    double want = 0;
    for (int q = 0; q < np; ++q) want += (double)pattern(q, first * ext + k, 10);
    if (k % ext == 0 || k % ext == 3) CHECK(r[k] == want, "reduce_scatter dvec [%d]", k);
    else CHECK(r[k] == -7.5, "reduce_scatter dvec wrote hole %d", k);
  }
  free(vs);
  free(s);
  free(r);
}

int main(int argc, char** argv) {
  CHECK_MPI(MPI_Init(&argc, &argv));
  CHECK_MPI(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
  CHECK_MPI(MPI_Comm_size(MPI_COMM_WORLD, &np));
  CHECK(np <= 64, "at most 64 ranks");
  items = argc > 1 ? atoi(argv[1]) : 40;
  CHECK_MPI(MPI_Type_vector(VEC_N, 1, 2, MPI_INT, &vec));
  CHECK_MPI(MPI_Type_commit(&vec));
  CHECK_MPI(MPI_Type_vector(2, 1, 3, MPI_DOUBLE, &dvec));
  CHECK_MPI(MPI_Type_commit(&dvec));
  {
    int bl[3] = {1, 1, 1};
    MPI_Aint disp[3] = {offsetof(Rec, i), offsetof(Rec, d), sizeof(Rec)};
    MPI_Datatype types[3] = {MPI_INT, MPI_DOUBLE, MPI_UB};
    CHECK_MPI(MPI_Type_struct(3, bl, disp, types, &rec));
    CHECK_MPI(MPI_Type_commit(&rec));
    MPI_Aint ext;
    CHECK_MPI(MPI_Type_extent(rec, &ext));
    CHECK(ext == (MPI_Aint)sizeof(Rec), "struct extent %ld", (long)ext);
  }
  for (int root = 0; root < np; ++root) {
    test_bcast(root);
    test_gather_scatter(root);
    test_v(root);
    test_reduce(root);
  }
  test_all();
  CHECK_MPI(MPI_Type_free(&vec));
  CHECK_MPI(MPI_Type_free(&dvec));
  CHECK_MPI(MPI_Type_free(&rec));
  if (rank == 0) printf("coll_derived: np %d ok\n", np);
  CHECK_MPI(MPI_Finalize());
  return 0;
}
