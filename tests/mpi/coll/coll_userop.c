/* User reduction ops (MPI_Op_create): a non-commutative one, the 2x2
 * matrix product over unsigned integers (exact, associative, and
 * order-sensitive), through Reduce at every root, Allreduce, Scan and
 * Reduce_scatter, compared with the product in rank order computed here;
 * a commutative user op; a user op on a struct type with holes, which must
 * see the datatype handle it was called with; MPI_Op_free.
 *
 *   coll_userop [count]       (matrices per vector, default 50) */
#include <stddef.h>
#include <stdio.h>

#include "coll_util.h"

static int rank, np, count;
static MPI_Datatype mat_type, pair_type;
static int calls = 0;

typedef struct {
  unsigned a, b, c, d;
} Mat;

static Mat mul(Mat x, Mat y) {
  Mat r = {x.a * y.a + x.b * y.c, x.a * y.b + x.b * y.d, x.c * y.a + x.d * y.c, x.c * y.b + x.d * y.d};
  return r;
}

static Mat input(int r, int i) {
  Mat m = {1u + (unsigned)((r + i) % 3), (unsigned)(r * 7 + i), (unsigned)((r * 3 + i) % 5), 1u + (unsigned)(i % 2)};
  return m;
}

/* inout[k] = in[k] * inout[k]: in holds the lower ranks. */
static void matmul_fn(void* in, void* inout, int* len, MPI_Datatype* dt) {
  CHECK(*dt == mat_type, "user function called with another datatype");
  Mat* x = (Mat*)in;
  Mat* y = (Mat*)inout;
  for (int k = 0; k < *len; ++k) y[k] = mul(x[k], y[k]);
  ++calls;
}

static Mat product(int from, int to, int i) { /* input(from) * ... * input(to - 1) */
  Mat p = input(from, i);
  for (int q = from + 1; q < to; ++q) p = mul(p, input(q, i));
  return p;
}

static void check_mat(const Mat* got, Mat want, const char* what, int i) {
  CHECK(got->a == want.a && got->b == want.b && got->c == want.c && got->d == want.d, "%s: matrix %d wrong", what, i);
}

static void test_noncommutative(MPI_Op op) {
  Mat* s = malloc(sizeof(Mat) * (count * np + 1));
  Mat* r = malloc(sizeof(Mat) * (count * np + 1));
  for (int i = 0; i < count; ++i) s[i] = input(rank, i);
  for (int root = 0; root < np; ++root) {
    CHECK_MPI(MPI_Reduce(s, r, count, mat_type, op, root, MPI_COMM_WORLD));
    if (rank == root)
      for (int i = 0; i < count; ++i) check_mat(&r[i], product(0, np, i), "Reduce", i);
  }
  CHECK_MPI(MPI_Allreduce(s, r, count, mat_type, op, MPI_COMM_WORLD));
  for (int i = 0; i < count; ++i) check_mat(&r[i], product(0, np, i), "Allreduce", i);
  CHECK_MPI(MPI_Scan(s, r, count, mat_type, op, MPI_COMM_WORLD));
  for (int i = 0; i < count; ++i) check_mat(&r[i], product(0, rank + 1, i), "Scan", i);
  /* Reduce_scatter: rank q gets matrices [q * count, (q + 1) * count) of the vector. */
  int counts[64];
  for (int q = 0; q < np; ++q) counts[q] = count;
  for (int i = 0; i < count * np; ++i) s[i] = input(rank, i);
  CHECK_MPI(MPI_Reduce_scatter(s, r, counts, mat_type, op, MPI_COMM_WORLD));
  for (int i = 0; i < count; ++i) check_mat(&r[i], product(0, np, rank * count + i), "Reduce_scatter", i);
  free(s);
  free(r);
}

static void sum_fn(void* in, void* inout, int* len, MPI_Datatype* dt) {
  (void)dt;
  for (int k = 0; k < *len; ++k) ((long long*)inout)[k] += ((long long*)in)[k];
}

static void test_commutative(void) {
  MPI_Op op;
  CHECK_MPI(MPI_Op_create(sum_fn, 1, &op));
  long long* s = malloc(sizeof(long long) * (count * np + 1));
  long long* r = malloc(sizeof(long long) * (count * np + 1));
  for (int i = 0; i < count * np; ++i) s[i] = pattern(rank, i, 1);
  CHECK_MPI(MPI_Allreduce(s, r, count, MPI_LONG_LONG_INT, op, MPI_COMM_WORLD));
  for (int i = 0; i < count; ++i) {
    long long want = 0;
    for (int q = 0; q < np; ++q) want += pattern(q, i, 1);
    CHECK(r[i] == want, "commutative user op: [%d]", i);
  }
  int counts[64];
  for (int q = 0; q < np; ++q) counts[q] = count;
  CHECK_MPI(MPI_Reduce_scatter(s, r, counts, MPI_LONG_LONG_INT, op, MPI_COMM_WORLD));
  for (int i = 0; i < count; ++i) {
    long long want = 0;
    for (int q = 0; q < np; ++q) want += pattern(q, rank * count + i, 1);
    CHECK(r[i] == want, "commutative user op, Reduce_scatter: [%d]", i);
  }
  CHECK_MPI(MPI_Op_free(&op));
  CHECK(op == MPI_OP_NULL, "MPI_Op_free did not reset the handle");
  free(s);
  free(r);
}

/* A struct {short; double} with a hole between the members and padding at
 * the end: the user function gets the data in that layout. */
typedef struct {
  short k;
  double v;
} Pair;

static void pairmax_fn(void* in, void* inout, int* len, MPI_Datatype* dt) {
  CHECK(*dt == pair_type, "user function called with another datatype");
  Pair* x = (Pair*)in;
  Pair* y = (Pair*)inout;
  for (int i = 0; i < *len; ++i) {
    if (x[i].v > y[i].v || (x[i].v == y[i].v && x[i].k < y[i].k)) {
      y[i].k = x[i].k; /* member by member: the holes are not data */
      y[i].v = x[i].v;
    }
  }
}

static void test_struct_type(void) {
  int bl[2] = {1, 1};
  MPI_Aint disp[2] = {offsetof(Pair, k), offsetof(Pair, v)};
  MPI_Datatype types[2] = {MPI_SHORT, MPI_DOUBLE};
  CHECK_MPI(MPI_Type_struct(2, bl, disp, types, &pair_type));
  CHECK_MPI(MPI_Type_commit(&pair_type));
  MPI_Op op;
  CHECK_MPI(MPI_Op_create(pairmax_fn, 0, &op));
  Pair* s = malloc(sizeof(Pair) * (count + 1));
  Pair* r = malloc(sizeof(Pair) * (count + 1));
  for (int i = 0; i < count; ++i) {
    s[i].k = (short)rank;
    s[i].v = (double)((rank * 5 + i) % 7);
  }
  memset(r, 0x77, sizeof(Pair) * count);
  CHECK_MPI(MPI_Allreduce(s, r, count, pair_type, op, MPI_COMM_WORLD));
  for (int i = 0; i < count; ++i) {
    Pair best = {0, (double)(i % 7)};
    for (short q = 1; q < np; ++q) {
      double v = (double)((q * 5 + i) % 7);
      if (v > best.v) {
        best.v = v;
        best.k = q;
      }
    }
    CHECK(r[i].k == best.k && r[i].v == best.v, "struct user op: [%d] = (%d, %g), want (%d, %g)", i, r[i].k, r[i].v,
          best.k, best.v);
    /* The hole after k was never written. */
    const unsigned char* hole = (const unsigned char*)&r[i] + sizeof(short);
    for (size_t b = 0; b < offsetof(Pair, v) - sizeof(short); ++b) CHECK(hole[b] == 0x77, "hole written at [%d]", i);
  }
  CHECK_MPI(MPI_Op_free(&op));
  CHECK_MPI(MPI_Type_free(&pair_type));
  free(s);
  free(r);
}

static void test_op_errors(void) {
  CHECK_MPI(MPI_Errhandler_set(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
  int cls, x = 1, y;
  MPI_Op op = MPI_SUM;
  CHECK(MPI_Error_class(MPI_Op_free(&op), &cls) == MPI_SUCCESS && cls == MPI_ERR_OP, "freeing MPI_SUM: class %d", cls);
  MPI_Op freed;
  CHECK_MPI(MPI_Op_create(sum_fn, 1, &freed));
  MPI_Op stale = freed;
  CHECK_MPI(MPI_Op_free(&freed));
  MPI_Error_class(MPI_Allreduce(&x, &y, 1, MPI_INT, stale, MPI_COMM_WORLD), &cls);
  CHECK(cls == MPI_ERR_OP, "allreduce with a freed op: class %d", cls);
  MPI_Error_class(MPI_Op_free(&stale), &cls);
  CHECK(cls == MPI_ERR_OP, "freeing a freed op: class %d", cls);
  MPI_Error_class(MPI_Op_create(NULL, 1, &op), &cls);
  CHECK(cls == MPI_ERR_ARG, "MPI_Op_create with a null function: class %d", cls);
  CHECK_MPI(MPI_Errhandler_set(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL));
}

int main(int argc, char** argv) {
  CHECK_MPI(MPI_Init(&argc, &argv));
  CHECK_MPI(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
  CHECK_MPI(MPI_Comm_size(MPI_COMM_WORLD, &np));
  CHECK(np <= 64, "at most 64 ranks");
  count = argc > 1 ? atoi(argv[1]) : 50;
  CHECK_MPI(MPI_Type_contiguous(4, MPI_UNSIGNED, &mat_type));
  CHECK_MPI(MPI_Type_commit(&mat_type));
  MPI_Op matmul;
  CHECK_MPI(MPI_Op_create(matmul_fn, 0, &matmul));
  test_noncommutative(matmul);
  CHECK(np == 1 || calls > 0, "the user function was never called");
  CHECK_MPI(MPI_Op_free(&matmul));
  test_commutative();
  test_struct_type();
  test_op_errors();
  CHECK_MPI(MPI_Type_free(&mat_type));
  if (rank == 0) printf("coll_userop: np %d ok\n", np);
  CHECK_MPI(MPI_Finalize());
  return 0;
}
