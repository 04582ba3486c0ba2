/* The datatype calls of MPI-1.2 §3.12-3.13 in one process: every
 * constructor with its size, extent and bounds (MPI_LB / MPI_UB markers,
 * negative strides and displacements, struct padding), the predefined and
 * pair types, commit / free, MPI_Address, MPI_Get_elements / MPI_Get_count,
 * MPI_Pack / MPI_Unpack / MPI_Pack_size with positions and truncation, and
 * the error classes of bad arguments. Self-messages carry the types. */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"

#define EXPECT_CLASS(call, want)                                                          \
  do {                                                                                    \
    int rc = (call);                                                                      \
    CHECK(cls(rc) == (want), "%s returned class %d, expected %s", #call, cls(rc), #want); \
  } while (0)

static void expect_shape(MPI_Datatype t, int size, long lb, long ub, const char* what) {
  int s = -1;
  MPI_Aint l = -1, u = -1, e = -1;
  CHECK_MPI(MPI_Type_size(t, &s));
  CHECK_MPI(MPI_Type_lb(t, &l));
  CHECK_MPI(MPI_Type_ub(t, &u));
  CHECK_MPI(MPI_Type_extent(t, &e));
  CHECK(s == size && l == lb && u == ub && e == ub - lb, "%s: size %d lb %ld ub %ld extent %ld, expected %d %ld %ld",
        what, s, (long)l, (long)u, (long)e, size, lb, ub);
}

static void predefined(void) {
  struct {
    MPI_Datatype t;
    int size;
    long extent;
  } all[] = {
      {MPI_CHAR, 1, 1},           {MPI_SIGNED_CHAR, 1, 1},     {MPI_UNSIGNED_CHAR, 1, 1},
      {MPI_BYTE, 1, 1},           {MPI_SHORT, sizeof(short), sizeof(short)},
      {MPI_UNSIGNED_SHORT, sizeof(short), sizeof(short)},     {MPI_INT, sizeof(int), sizeof(int)},
      {MPI_UNSIGNED, sizeof(int), sizeof(int)},               {MPI_LONG, sizeof(long), sizeof(long)},
      {MPI_UNSIGNED_LONG, sizeof(long), sizeof(long)},        {MPI_LONG_LONG_INT, 8, 8},
      {MPI_UNSIGNED_LONG_LONG, 8, 8},                         {MPI_FLOAT, 4, 4},
      {MPI_DOUBLE, 8, 8},         {MPI_LONG_DOUBLE, sizeof(long double), sizeof(long double)},
      {MPI_WCHAR, sizeof(wchar_t), sizeof(wchar_t)},          {MPI_PACKED, 1, 1},
      {MPI_LB, 0, 0},             {MPI_UB, 0, 0},
      /* the pairs: data bytes, and the C struct's extent */
      {MPI_FLOAT_INT, 8, 8},      {MPI_DOUBLE_INT, 12, 16},    {MPI_LONG_INT, 12, 16},
      {MPI_2INT, 8, 8},           {MPI_SHORT_INT, 6, 8},
      {MPI_LONG_DOUBLE_INT, (int)sizeof(long double) + 4, 2 * sizeof(long double)},
  };
  for (size_t i = 0; i < sizeof all / sizeof all[0]; ++i) {
    char what[32];
    snprintf(what, sizeof what, "predefined #%zu", i);
    expect_shape(all[i].t, all[i].size, 0, all[i].extent, what);
  }
  /* pairs travel as their struct: values survive a self-message */
  struct {
    double v;
    int i;
  } di[3] = {{1.5, 1}, {2.5, 2}, {3.5, 3}}, dr[3];
  struct {
    short v;
    int i;
  } si[2] = {{-7, 70}, {8, 80}}, sr[2];
  MPI_Status st;
  int n;
  CHECK_MPI(MPI_Sendrecv(di, 3, MPI_DOUBLE_INT, 0, 1, dr, 3, MPI_DOUBLE_INT, 0, 1, MPI_COMM_SELF, &st));
  CHECK_MPI(MPI_Get_count(&st, MPI_DOUBLE_INT, &n));
  CHECK(n == 3 && dr[2].v == 3.5 && dr[2].i == 3 && dr[0].i == 1, "double_int transfer (count %d)", n);
  CHECK_MPI(MPI_Get_elements(&st, MPI_DOUBLE_INT, &n));
  CHECK(n == 6, "double_int elements %d", n);
  CHECK_MPI(MPI_Sendrecv(si, 2, MPI_SHORT_INT, 0, 1, sr, 2, MPI_SHORT_INT, 0, 1, MPI_COMM_SELF, &st));
  CHECK(sr[0].v == -7 && sr[1].i == 80, "short_int transfer");
  /* a predefined type cannot be freed, and needs no commit */
  MPI_Datatype t = MPI_INT;
  EXPECT_CLASS(MPI_Type_free(&t), MPI_ERR_TYPE);
  CHECK_MPI(MPI_Type_commit(&t));
}

static void constructors(void) {
  MPI_Datatype t, u, v;
  CHECK_MPI(MPI_Type_contiguous(5, MPI_INT, &t));
  expect_shape(t, 20, 0, 20, "contiguous");
  CHECK_MPI(MPI_Type_free(&t));
  CHECK(t == MPI_DATATYPE_NULL, "type_free left the handle");
  CHECK_MPI(MPI_Type_contiguous(0, MPI_INT, &t));
  expect_shape(t, 0, 0, 0, "contiguous(0)");
  CHECK_MPI(MPI_Type_free(&t));

  CHECK_MPI(MPI_Type_vector(3, 2, 4, MPI_INT, &t));
  expect_shape(t, 24, 0, 40, "vector(3,2,4)");
  CHECK_MPI(MPI_Type_vector(3, 1, -2, MPI_DOUBLE, &u));
  expect_shape(u, 24, -32, 8, "vector negative stride");
  CHECK_MPI(MPI_Type_free(&u));
  CHECK_MPI(MPI_Type_hvector(3, 2, -16, MPI_INT, &u));
  expect_shape(u, 24, -32, 8, "hvector negative stride");
  CHECK_MPI(MPI_Type_free(&u));
  CHECK_MPI(MPI_Type_hvector(2, 1, 100, t, &u)); /* of a derived type */
  expect_shape(u, 48, 0, 140, "hvector of vector");
  CHECK_MPI(MPI_Type_free(&u));
  CHECK_MPI(MPI_Type_free(&t));

  int bl[3] = {1, 2, 3}, ds[3] = {5, 0, 10};
  CHECK_MPI(MPI_Type_indexed(3, bl, ds, MPI_INT, &t));
  expect_shape(t, 24, 0, 52, "indexed");
  CHECK_MPI(MPI_Type_free(&t));
  int hbl[2] = {2, 1};
  MPI_Aint hds[2] = {8, -4};
  CHECK_MPI(MPI_Type_hindexed(2, hbl, hds, MPI_SHORT, &t));
  expect_shape(t, 6, -4, 12, "hindexed");
  CHECK_MPI(MPI_Type_free(&t));

  /* struct {int; double; char}: padded to the double's alignment */
  int sbl[3] = {1, 1, 1};
  MPI_Aint sds[3] = {0, 8, 16};
  MPI_Datatype sty[3] = {MPI_INT, MPI_DOUBLE, MPI_CHAR};
  CHECK_MPI(MPI_Type_struct(3, sbl, sds, sty, &t));
  expect_shape(t, 13, 0, 24, "struct padded");
  CHECK_MPI(MPI_Type_free(&t));
  /* explicit bounds: MPI_LB at -8, MPI_UB at 32 */
  MPI_Aint mds[3] = {-8, 0, 32};
  MPI_Datatype mty[3] = {MPI_LB, MPI_INT, MPI_UB};
  CHECK_MPI(MPI_Type_struct(3, sbl, mds, mty, &t));
  expect_shape(t, 4, -8, 32, "struct with LB/UB");
  CHECK_MPI(MPI_Type_contiguous(3, t, &u));
  expect_shape(u, 12, -8, 112, "contiguous of LB/UB struct");
  /* markers are sticky: a vector of it keeps them */
  CHECK_MPI(MPI_Type_vector(2, 1, 2, t, &v));
  expect_shape(v, 8, -8, 112, "vector of LB/UB struct");
  CHECK_MPI(MPI_Type_free(&v));
  CHECK_MPI(MPI_Type_free(&u));
  CHECK_MPI(MPI_Type_free(&t));

  /* MPI_Address: differences are byte distances */
  struct {
    int a;
    double b[3];
  } s;
  MPI_Aint a0, a1;
  CHECK_MPI(MPI_Address(&s.a, &a0));
  CHECK_MPI(MPI_Address(&s.b[2], &a1));
  CHECK(a1 - a0 == (MPI_Aint)offsetof(__typeof__(s), b) + 16, "address difference %ld", (long)(a1 - a0));
  /* absolute addresses with MPI_BOTTOM */
  int abl[2] = {1, 3};
  MPI_Aint ads[2] = {a0, 0};
  CHECK_MPI(MPI_Address(&s.b[0], &ads[1]));
  MPI_Datatype aty[2] = {MPI_INT, MPI_DOUBLE};
  CHECK_MPI(MPI_Type_struct(2, abl, ads, aty, &t));
  CHECK_MPI(MPI_Type_commit(&t));
  s.a = 17;
  s.b[0] = 1;
  s.b[1] = 2;
  s.b[2] = 3;
  struct {
    int a;
    double b[3];
  } r;
  MPI_Aint rd[2];
  CHECK_MPI(MPI_Address(&r.a, &rd[0]));
  CHECK_MPI(MPI_Address(&r.b[0], &rd[1]));
  CHECK_MPI(MPI_Type_struct(2, abl, rd, aty, &u));
  CHECK_MPI(MPI_Type_commit(&u));
  CHECK_MPI(MPI_Sendrecv(MPI_BOTTOM, 1, t, 0, 2, MPI_BOTTOM, 1, u, 0, 2, MPI_COMM_SELF, MPI_STATUS_IGNORE));
  CHECK(r.a == 17 && r.b[0] == 1 && r.b[2] == 3, "MPI_BOTTOM transfer");
  CHECK_MPI(MPI_Type_free(&t));
  CHECK_MPI(MPI_Type_free(&u));
}

/* MPI_Get_elements counts basic elements, also for a partial last item. */
static void elements(void) {
  MPI_Datatype id, r, sent;
  int bl[3] = {1, 1, 1}, n;
  MPI_Aint d2[2] = {0, 8}, d3[3] = {0, 8, 16};
  MPI_Datatype t2[2] = {MPI_INT, MPI_DOUBLE}, t3[3] = {MPI_INT, MPI_DOUBLE, MPI_INT};
  CHECK_MPI(MPI_Type_struct(2, bl, d2, t2, &id));
  CHECK_MPI(MPI_Type_contiguous(2, id, &r));
  CHECK_MPI(MPI_Type_commit(&r));
  CHECK_MPI(MPI_Type_commit(&id));
  CHECK_MPI(MPI_Type_struct(3, bl, d3, t3, &sent));
  CHECK_MPI(MPI_Type_commit(&sent));
  char out[24], in[64];
  memset(out, 0, sizeof out);
  MPI_Status st;
  CHECK_MPI(MPI_Sendrecv(out, 1, sent, 0, 3, in, 1, r, 0, 3, MPI_COMM_SELF, &st));
  CHECK_MPI(MPI_Get_elements(&st, r, &n));
  CHECK(n == 3, "elements of (int,double,int) in 2 x (int,double): %d", n);
  CHECK_MPI(MPI_Get_count(&st, r, &n));
  CHECK(n == MPI_UNDEFINED, "count of a partial item: %d", n);
  CHECK_MPI(MPI_Get_count(&st, id, &n));
  CHECK(n == MPI_UNDEFINED, "count in (int,double) units: %d", n);
  CHECK_MPI(MPI_Get_elements(&st, MPI_INT, &n));
  CHECK(n == 4, "elements counted as ints: %d", n);
  MPI_Type_free(&id);
  MPI_Type_free(&r);
  MPI_Type_free(&sent);
}

static void packing(void) {
  double d[10];
  for (int i = 0; i < 10; ++i) d[i] = i * 1.25;
  MPI_Datatype evens;
  CHECK_MPI(MPI_Type_vector(5, 1, 2, MPI_DOUBLE, &evens));
  CHECK_MPI(MPI_Type_commit(&evens));
  int s1, s2, s3;
  CHECK_MPI(MPI_Pack_size(2, MPI_INT, MPI_COMM_WORLD, &s1));
  CHECK_MPI(MPI_Pack_size(1, evens, MPI_COMM_WORLD, &s2));
  CHECK_MPI(MPI_Pack_size(6, MPI_CHAR, MPI_COMM_WORLD, &s3));
  CHECK(s1 >= 8 && s2 >= 40 && s3 >= 6, "pack sizes %d %d %d", s1, s2, s3);
  int total = s1 + s2 + s3;
  char* buf = malloc((size_t)total + 16);
  memset(buf, 0x5a, (size_t)total + 16);
  int ints[2] = {-3, 44}, pos = 0;
  CHECK_MPI(MPI_Pack(ints, 2, MPI_INT, buf, total, &pos, MPI_COMM_WORLD));
  CHECK_MPI(MPI_Pack(d, 1, evens, buf, total, &pos, MPI_COMM_WORLD));
  CHECK_MPI(MPI_Pack("hello", 6, MPI_CHAR, buf, total, &pos, MPI_COMM_WORLD));
  CHECK(pos <= total, "position %d beyond %d", pos, total);
  int used = pos;
  for (int i = total; i < total + 16; ++i) CHECK(buf[i] == 0x5a, "pack wrote past the buffer at %d", i);
  /* Unpack in the same order; the doubles land in a contiguous array. */
  int ri[2];
  double rd[5];
  char rs[6];
  pos = 0;
  CHECK_MPI(MPI_Unpack(buf, used, &pos, ri, 2, MPI_INT, MPI_COMM_WORLD));
  CHECK_MPI(MPI_Unpack(buf, used, &pos, rd, 5, MPI_DOUBLE, MPI_COMM_WORLD));
  CHECK_MPI(MPI_Unpack(buf, used, &pos, rs, 6, MPI_CHAR, MPI_COMM_WORLD));
  CHECK(pos == used, "unpack position %d, packed %d", pos, used);
  CHECK(ri[0] == -3 && ri[1] == 44 && !strcmp(rs, "hello"), "unpacked ints / string");
  for (int i = 0; i < 5; ++i) CHECK(rd[i] == 2 * i * 1.25, "unpacked double %d: %g", i, rd[i]);
  /* Packed data sent as MPI_PACKED, received with a matching type, and back. */
  double back[10];
  for (int i = 0; i < 10; ++i) back[i] = -1;
  int dpos = 0;
  char dbuf[64];
  CHECK_MPI(MPI_Pack(d, 1, evens, dbuf, sizeof dbuf, &dpos, MPI_COMM_WORLD));
  MPI_Status st;
  CHECK_MPI(MPI_Sendrecv(dbuf, dpos, MPI_PACKED, 0, 4, back, 1, evens, 0, 4, MPI_COMM_SELF, &st));
  for (int i = 0; i < 10; ++i) CHECK(back[i] == (i % 2 ? -1 : i * 1.25), "packed -> evens element %d", i);
  char pk[64];
  int n;
  CHECK_MPI(MPI_Sendrecv(d, 1, evens, 0, 5, pk, sizeof pk, MPI_PACKED, 0, 5, MPI_COMM_SELF, &st));
  CHECK_MPI(MPI_Get_count(&st, MPI_PACKED, &n));
  CHECK(n == dpos && !memcmp(pk, dbuf, (size_t)n), "evens -> MPI_PACKED: %d bytes", n);

  /* Too small: MPI_ERR_TRUNCATE, nothing written, position unchanged. */
  memset(buf, 0x5a, (size_t)total + 16);
  pos = 4;
  EXPECT_CLASS(MPI_Pack(d, 1, evens, buf, 4 + s2 - 1, &pos, MPI_COMM_WORLD), MPI_ERR_TRUNCATE);
  CHECK(pos == 4, "position moved to %d", pos);
  for (int i = 0; i < total + 16; ++i) CHECK(buf[i] == 0x5a, "failed pack wrote byte %d", i);
  for (int i = 0; i < 5; ++i) rd[i] = -9;
  pos = 0;
  EXPECT_CLASS(MPI_Unpack(dbuf, dpos - 8, &pos, rd, 5, MPI_DOUBLE, MPI_COMM_WORLD), MPI_ERR_TRUNCATE);
  CHECK(pos == 0 && rd[0] == -9 && rd[4] == -9, "failed unpack changed the output");
  pos = -1;
  EXPECT_CLASS(MPI_Pack(d, 1, evens, buf, total, &pos, MPI_COMM_WORLD), MPI_ERR_ARG);
  pos = 0;
  EXPECT_CLASS(MPI_Pack(d, -1, evens, buf, total, &pos, MPI_COMM_WORLD), MPI_ERR_COUNT);
  EXPECT_CLASS(MPI_Pack(d, 1, evens, buf, total, &pos, MPI_COMM_NULL), MPI_ERR_COMM);
  EXPECT_CLASS(MPI_Pack_size(1, MPI_DATATYPE_NULL, MPI_COMM_WORLD, &n), MPI_ERR_TYPE);
  CHECK_MPI(MPI_Type_free(&evens));
  free(buf);
}

static void errors(void) {
  MPI_Datatype t = MPI_DATATYPE_NULL, bad = (MPI_Datatype)MPI_COMM_WORLD;
  int bl[2] = {1, -1}, ds[2] = {0, 4}, v = 0;
  MPI_Aint ads[2] = {0, 4};
  MPI_Datatype tys[2] = {MPI_INT, MPI_DATATYPE_NULL};
  EXPECT_CLASS(MPI_Type_contiguous(-1, MPI_INT, &t), MPI_ERR_COUNT);
  EXPECT_CLASS(MPI_Type_contiguous(2, MPI_DATATYPE_NULL, &t), MPI_ERR_TYPE);
  EXPECT_CLASS(MPI_Type_contiguous(2, bad, &t), MPI_ERR_TYPE);
  EXPECT_CLASS(MPI_Type_vector(2, -1, 1, MPI_INT, &t), MPI_ERR_ARG);
  EXPECT_CLASS(MPI_Type_vector(-2, 1, 1, MPI_INT, &t), MPI_ERR_COUNT);
  EXPECT_CLASS(MPI_Type_hvector(2, 1, 4, MPI_DATATYPE_NULL, &t), MPI_ERR_TYPE);
  EXPECT_CLASS(MPI_Type_indexed(2, bl, ds, MPI_INT, &t), MPI_ERR_ARG);
  EXPECT_CLASS(MPI_Type_indexed(2, NULL, ds, MPI_INT, &t), MPI_ERR_ARG);
  EXPECT_CLASS(MPI_Type_hindexed(-1, bl, ads, MPI_INT, &t), MPI_ERR_COUNT);
  bl[1] = 1;
  EXPECT_CLASS(MPI_Type_struct(2, bl, ads, tys, &t), MPI_ERR_TYPE);
  EXPECT_CLASS(MPI_Type_commit(&t), MPI_ERR_TYPE);
  EXPECT_CLASS(MPI_Type_free(&t), MPI_ERR_TYPE);
  EXPECT_CLASS(MPI_Type_size(bad, &v), MPI_ERR_TYPE);
  EXPECT_CLASS(MPI_Type_extent(MPI_DATATYPE_NULL, ads), MPI_ERR_TYPE);
  /* an uncommitted type cannot carry a message */
  CHECK_MPI(MPI_Type_contiguous(2, MPI_INT, &t));
  int two[2];
  EXPECT_CLASS(MPI_Send(two, 1, t, 0, 0, MPI_COMM_SELF), MPI_ERR_TYPE);
  MPI_Request rq;
  EXPECT_CLASS(MPI_Irecv(two, 1, t, 0, 0, MPI_COMM_SELF, &rq), MPI_ERR_TYPE);
  /* a freed handle is invalid */
  MPI_Datatype copy = t;
  CHECK_MPI(MPI_Type_free(&t));
  EXPECT_CLASS(MPI_Type_size(copy, &v), MPI_ERR_TYPE);
  EXPECT_CLASS(MPI_Get_elements(MPI_STATUS_IGNORE, MPI_INT, &v), MPI_ERR_ARG);
}

int main(int argc, char** argv) {
  int rank;
  CHECK_MPI(MPI_Init(&argc, &argv));
  CHECK_MPI(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
  CHECK_MPI(MPI_Errhandler_set(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
  CHECK_MPI(MPI_Errhandler_set(MPI_COMM_SELF, MPI_ERRORS_RETURN));
  predefined();
  constructors();
  elements();
  packing();
  errors();
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  if (rank == 0) printf("dtype_calls: ok\n");
  CHECK_MPI(MPI_Finalize());
  return 0;
}
