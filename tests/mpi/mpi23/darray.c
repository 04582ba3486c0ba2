/* MPI_Type_create_darray (MPI-3.1 §4.1.4): type maps of BLOCK, CYCLIC(k),
 * NONE and the default distribution arguments, in C and Fortran order,
 * compared with offsets worked out by hand (read back through MPI_Pack of
 * an array holding its own indices); the standard's HPF example
 * FILEARRAY(100,200,300) DISTRIBUTE (CYCLIC(10), *, BLOCK) ONTO (2,1,3)
 * for all six processes; envelope and contents; a receive through a darray
 * type; the error class of every bad argument. */
#include <stdlib.h>
#include <string.h>

#include "check.h"

#define DFLT MPI_DISTRIBUTE_DFLT_DARG
#define BLOCK MPI_DISTRIBUTE_BLOCK
#define CYCLIC MPI_DISTRIBUTE_CYCLIC
#define NONE MPI_DISTRIBUTE_NONE

/* Packs one item of t over `arr` (arr[i] == i) and returns the ints. */
static int* type_map(MPI_Datatype t, const int* arr, int* n) {
  int bytes = 0, pos = 0;
  CHECK_MPI(MPI_Pack_size(1, t, MPI_COMM_WORLD, &bytes));
  int* out = malloc((size_t)bytes + 4);
  CHECK_MPI(MPI_Pack(arr, 1, t, out, bytes, &pos, MPI_COMM_WORLD));
  *n = pos / (int)sizeof(int);
  return out;
}

static void expect_map(const char* what, int size, int rank, int ndims, const int* g, const int* d, const int* a,
                       const int* p, int order, const int* arr, int total, const int* want, int nwant) {
  MPI_Datatype t;
  CHECK_MPI(MPI_Type_create_darray(size, rank, ndims, g, d, a, p, order, MPI_INT, &t));
  CHECK_MPI(MPI_Type_commit(&t));
  MPI_Aint lb, ext;
  CHECK_MPI(MPI_Type_get_extent(t, &lb, &ext));
  CHECK(lb == 0 && ext == (MPI_Aint)total * 4, "%s rank %d: lb %ld extent %ld, expected 0 and %d", what, rank,
        (long)lb, (long)ext, total * 4);
  int tsize;
  CHECK_MPI(MPI_Type_size(t, &tsize));
  CHECK(tsize == nwant * 4, "%s rank %d: size %d, expected %d", what, rank, tsize, nwant * 4);
  int n;
  int* got = type_map(t, arr, &n);
  CHECK(n == nwant, "%s rank %d: %d elements, expected %d", what, rank, n, nwant);
  for (int i = 0; i < n; ++i)
    CHECK(got[i] == want[i], "%s rank %d: element %d at offset %d, expected %d", what, rank, i, got[i], want[i]);
  free(got);
  CHECK_MPI(MPI_Type_free(&t));
}

static void hand_computed(const int* arr) {
  /* 1-D, 10 elements. BLOCK with the default argument on 4: ceil(10/4) = 3. */
  {
    const int g = 10, d = BLOCK, a = DFLT, p = 4;
    const int w0[] = {0, 1, 2}, w1[] = {3, 4, 5}, w2[] = {6, 7, 8}, w3[] = {9};
    expect_map("block", 4, 0, 1, &g, &d, &a, &p, MPI_ORDER_C, arr, 10, w0, 3);
    expect_map("block", 4, 1, 1, &g, &d, &a, &p, MPI_ORDER_C, arr, 10, w1, 3);
    expect_map("block", 4, 2, 1, &g, &d, &a, &p, MPI_ORDER_C, arr, 10, w2, 3);
    expect_map("block", 4, 3, 1, &g, &d, &a, &p, MPI_ORDER_FORTRAN, arr, 10, w3, 1);
  }
  /* BLOCK(4) on 4: the last process owns nothing, the third a short block. */
  {
    const int g = 10, d = BLOCK, a = 4, p = 4;
    const int w2[] = {8, 9};
    expect_map("block(4)", 4, 2, 1, &g, &d, &a, &p, MPI_ORDER_C, arr, 10, w2, 2);
    expect_map("block(4)", 4, 3, 1, &g, &d, &a, &p, MPI_ORDER_C, arr, 10, NULL, 0);
  }
  /* CYCLIC(2) on 3: blocks {0,1} {2,3} {4,5} {6,7} {8,9} dealt round robin. */
  {
    const int g = 10, d = CYCLIC, a = 2, p = 3;
    const int w0[] = {0, 1, 6, 7}, w1[] = {2, 3, 8, 9}, w2[] = {4, 5};
    expect_map("cyclic(2)", 3, 0, 1, &g, &d, &a, &p, MPI_ORDER_C, arr, 10, w0, 4);
    expect_map("cyclic(2)", 3, 1, 1, &g, &d, &a, &p, MPI_ORDER_C, arr, 10, w1, 4);
    expect_map("cyclic(2)", 3, 2, 1, &g, &d, &a, &p, MPI_ORDER_C, arr, 10, w2, 2);
  }
  /* CYCLIC(3) on 2 over 7: {0,1,2} {3,4,5} {6}: the last block is short. */
  {
    const int g = 7, d = CYCLIC, a = 3, p = 2;
    const int w0[] = {0, 1, 2, 6}, w1[] = {3, 4, 5};
    expect_map("cyclic(3)", 2, 0, 1, &g, &d, &a, &p, MPI_ORDER_C, arr, 7, w0, 4);
    expect_map("cyclic(3)", 2, 1, 1, &g, &d, &a, &p, MPI_ORDER_C, arr, 7, w1, 3);
  }
  /* CYCLIC with the default argument (1) on 3 over 7. */
  {
    const int g = 7, d = CYCLIC, a = DFLT, p = 3;
    const int w0[] = {0, 3, 6}, w1[] = {1, 4}, w2[] = {2, 5};
    expect_map("cyclic", 3, 0, 1, &g, &d, &a, &p, MPI_ORDER_C, arr, 7, w0, 3);
    expect_map("cyclic", 3, 1, 1, &g, &d, &a, &p, MPI_ORDER_C, arr, 7, w1, 2);
    expect_map("cyclic", 3, 2, 1, &g, &d, &a, &p, MPI_ORDER_C, arr, 7, w2, 2);
  }
  /* 4 x 6, (BLOCK, CYCLIC(2)) on a 2 x 2 grid numbered row-major:
   * rank = 2 * p0 + p1; rows {0,1} | {2,3}; columns {0,1,4,5} | {2,3}. */
  {
    const int g[] = {4, 6}, d[] = {BLOCK, CYCLIC}, a[] = {DFLT, 2}, p[] = {2, 2};
    /* C order: element (i, j) at 6 i + j, j fastest. */
    const int c0[] = {0, 1, 4, 5, 6, 7, 10, 11}, c1[] = {2, 3, 8, 9};
    const int c2[] = {12, 13, 16, 17, 18, 19, 22, 23}, c3[] = {14, 15, 20, 21};
    expect_map("2d C", 4, 0, 2, g, d, a, p, MPI_ORDER_C, arr, 24, c0, 8);
    expect_map("2d C", 4, 1, 2, g, d, a, p, MPI_ORDER_C, arr, 24, c1, 4);
    expect_map("2d C", 4, 2, 2, g, d, a, p, MPI_ORDER_C, arr, 24, c2, 8);
    expect_map("2d C", 4, 3, 2, g, d, a, p, MPI_ORDER_C, arr, 24, c3, 4);
    /* Fortran order: element (i, j) at i + 4 j, i fastest. */
    const int f0[] = {0, 1, 4, 5, 16, 17, 20, 21}, f1[] = {8, 9, 12, 13};
    const int f2[] = {2, 3, 6, 7, 18, 19, 22, 23}, f3[] = {10, 11, 14, 15};
    expect_map("2d Fortran", 4, 0, 2, g, d, a, p, MPI_ORDER_FORTRAN, arr, 24, f0, 8);
    expect_map("2d Fortran", 4, 1, 2, g, d, a, p, MPI_ORDER_FORTRAN, arr, 24, f1, 4);
    expect_map("2d Fortran", 4, 2, 2, g, d, a, p, MPI_ORDER_FORTRAN, arr, 24, f2, 8);
    expect_map("2d Fortran", 4, 3, 2, g, d, a, p, MPI_ORDER_FORTRAN, arr, 24, f3, 4);
  }
  /* 3 x 4, (NONE, BLOCK) on 1 x 2; the NONE dimension's darg is not used. */
  {
    const int g[] = {3, 4}, d[] = {NONE, BLOCK}, a[] = {17, DFLT}, p[] = {1, 2};
    const int w1[] = {2, 3, 6, 7, 10, 11};
    expect_map("none", 2, 1, 2, g, d, a, p, MPI_ORDER_C, arr, 12, w1, 6);
  }
}

/* The standard's example, every process; the expected map is generated
 * from the HPF definition: a in CYCLIC(10) of p0, all b, c in BLOCK(100)
 * of p2, a fastest (Fortran order); grid (2,1,3) row-major. */
static void standard_example(void) {
  const int g[] = {100, 200, 300}, d[] = {CYCLIC, NONE, BLOCK}, a[] = {10, DFLT, DFLT}, p[] = {2, 1, 3};
  const int total = 100 * 200 * 300;
  int* arr = malloc(sizeof(int) * (size_t)total);
  for (int i = 0; i < total; ++i) arr[i] = i;
  int* want = malloc(sizeof(int) * (size_t)total);
  for (int rank = 0; rank < 6; ++rank) {
    const int p0 = rank / 3, p2 = rank % 3;
    int n = 0;
    for (int c = 100 * p2; c < 100 * p2 + 100; ++c)
      for (int b = 0; b < 200; ++b)
        for (int x = 0; x < 100; ++x)
          if ((x / 10) % 2 == p0) want[n++] = x + 100 * b + 20000 * c;
    expect_map("standard example", 6, rank, 3, g, d, a, p, MPI_ORDER_FORTRAN, arr, total, want, n);
  }
  /* Envelope and contents of one of them. */
  MPI_Datatype t;
  CHECK_MPI(MPI_Type_create_darray(6, 4, 3, g, d, a, p, MPI_ORDER_FORTRAN, MPI_INT, &t));
  int ni, na, nt, comb;
  CHECK_MPI(MPI_Type_get_envelope(t, &ni, &na, &nt, &comb));
  CHECK(comb == MPI_COMBINER_DARRAY && ni == 16 && na == 0 && nt == 1, "envelope %d %d %d %d", comb, ni, na, nt);
  int ints[16];
  MPI_Aint aints[1];
  MPI_Datatype types[1];
  CHECK_MPI(MPI_Type_get_contents(t, 16, 0, 1, ints, aints, types));
  const int expect[16] = {6, 4, 3, 100, 200, 300, CYCLIC, NONE, BLOCK, 10, DFLT, DFLT, 2, 1, 3, MPI_ORDER_FORTRAN};
  for (int i = 0; i < 16; ++i) CHECK(ints[i] == expect[i], "contents int %d: %d, expected %d", i, ints[i], expect[i]);
  CHECK(types[0] == MPI_INT, "contents type");
  CHECK_MPI(MPI_Type_free(&t));
  free(want);
  free(arr);
}

/* Rank 0 sends each rank its part of a 4 x 6 (BLOCK, CYCLIC(2)) array as
 * plain ints; the receiver places them through its darray type. */
static void receive_through_darray(int rank, int size) {
  if (size != 4) return;
  const int g[] = {4, 6}, d[] = {BLOCK, CYCLIC}, a[] = {DFLT, 2}, p[] = {2, 2};
  const int parts[4][8] = {{0, 1, 4, 5, 6, 7, 10, 11}, {2, 3, 8, 9}, {12, 13, 16, 17, 18, 19, 22, 23}, {14, 15, 20, 21}};
  const int counts[4] = {8, 4, 8, 4};
  if (rank == 0) {
    for (int r = 1; r < 4; ++r) {
      int vals[8];
      for (int i = 0; i < counts[r]; ++i) vals[i] = 1000 + parts[r][i];
      CHECK_MPI(MPI_Send(vals, counts[r], MPI_INT, r, 9, MPI_COMM_WORLD));
    }
    return;
  }
  MPI_Datatype t;
  CHECK_MPI(MPI_Type_create_darray(4, rank, 2, g, d, a, p, MPI_ORDER_C, MPI_INT, &t));
  CHECK_MPI(MPI_Type_commit(&t));
  int local[24];
  for (int i = 0; i < 24; ++i) local[i] = -1;
  MPI_Status st;
  CHECK_MPI(MPI_Recv(local, 1, t, 0, 9, MPI_COMM_WORLD, &st));
  int got;
  CHECK_MPI(MPI_Get_count(&st, MPI_INT, &got));
  CHECK(got == counts[rank], "received %d ints, expected %d", got, counts[rank]);
  int k = 0;
  for (int i = 0; i < 24; ++i) {
    const int mine = k < counts[rank] && parts[rank][k] == i;
    CHECK(local[i] == (mine ? 1000 + i : -1), "element %d: %d", i, local[i]);
    if (mine) ++k;
  }
  CHECK_MPI(MPI_Type_free(&t));
}

static void bad_arguments(void) {
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  const int g[] = {10, 4}, d[] = {BLOCK, CYCLIC}, a[] = {DFLT, DFLT}, p[] = {2, 2};
  MPI_Datatype t = MPI_DATATYPE_NULL;
  CHECK(cls(MPI_Type_create_darray(0, 0, 2, g, d, a, p, MPI_ORDER_C, MPI_INT, &t)) == MPI_ERR_ARG, "size 0");
  CHECK(cls(MPI_Type_create_darray(4, 4, 2, g, d, a, p, MPI_ORDER_C, MPI_INT, &t)) == MPI_ERR_ARG, "rank = size");
  CHECK(cls(MPI_Type_create_darray(4, -1, 2, g, d, a, p, MPI_ORDER_C, MPI_INT, &t)) == MPI_ERR_ARG, "rank -1");
  CHECK(cls(MPI_Type_create_darray(4, 0, 0, g, d, a, p, MPI_ORDER_C, MPI_INT, &t)) == MPI_ERR_ARG, "ndims 0");
  CHECK(cls(MPI_Type_create_darray(6, 0, 2, g, d, a, p, MPI_ORDER_C, MPI_INT, &t)) == MPI_ERR_ARG,
        "grid of 4 for size 6");
  CHECK(cls(MPI_Type_create_darray(4, 0, 2, g, d, a, p, 7, MPI_INT, &t)) == MPI_ERR_ARG, "order 7");
  CHECK(cls(MPI_Type_create_darray(4, 0, 2, g, d, a, p, MPI_ORDER_C, MPI_DATATYPE_NULL, &t)) == MPI_ERR_TYPE,
        "null oldtype");
  CHECK(cls(MPI_Type_create_darray(4, 0, 2, g, d, a, p, MPI_ORDER_C, MPI_INT, NULL)) == MPI_ERR_ARG,
        "null newtype");
  CHECK(cls(MPI_Type_create_darray(4, 0, 2, NULL, d, a, p, MPI_ORDER_C, MPI_INT, &t)) == MPI_ERR_ARG, "null gsizes");
  const int g_bad[] = {10, 0}, d_bad[] = {BLOCK, 99}, d_none[] = {NONE, CYCLIC};
  const int a_short[] = {4, DFLT}, a_zero[] = {DFLT, 0}, a_neg[] = {-3, DFLT}, p_bad[] = {2, -2};
  CHECK(cls(MPI_Type_create_darray(4, 0, 2, g_bad, d, a, p, MPI_ORDER_C, MPI_INT, &t)) == MPI_ERR_ARG, "gsize 0");
  CHECK(cls(MPI_Type_create_darray(4, 0, 2, g, d_bad, a, p, MPI_ORDER_C, MPI_INT, &t)) == MPI_ERR_ARG,
        "distribution 99");
  CHECK(cls(MPI_Type_create_darray(4, 0, 2, g, d_none, a, p, MPI_ORDER_C, MPI_INT, &t)) == MPI_ERR_ARG,
        "NONE on 2 processes");
  CHECK(cls(MPI_Type_create_darray(4, 0, 2, g, d, a_short, p, MPI_ORDER_C, MPI_INT, &t)) == MPI_ERR_ARG,
        "BLOCK(4) x 2 < 10");
  CHECK(cls(MPI_Type_create_darray(4, 0, 2, g, d, a_zero, p, MPI_ORDER_C, MPI_INT, &t)) == MPI_ERR_ARG,
        "CYCLIC(0)");
  CHECK(cls(MPI_Type_create_darray(4, 0, 2, g, d, a_neg, p, MPI_ORDER_C, MPI_INT, &t)) == MPI_ERR_ARG,
        "BLOCK(-3)");
  CHECK(cls(MPI_Type_create_darray(4, 0, 2, g, d, a, p_bad, MPI_ORDER_C, MPI_INT, &t)) == MPI_ERR_ARG,
        "psize -2");
  CHECK(t == MPI_DATATYPE_NULL, "a failed constructor set newtype");
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int arr[64];
  for (int i = 0; i < 64; ++i) arr[i] = i;
  hand_computed(arr);
  if (rank == 0) standard_example();
  receive_through_darray(rank, size);
  bad_arguments();
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) printf("darray: ok\n");
  MPI_Finalize();
  return 0;
}
