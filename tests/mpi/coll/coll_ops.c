/* Every predefined reduction op on every type MPI-1.2 allows it on, through
 * MPI_Allreduce and MPI_Reduce (plus a few through MPI_Scan and
 * MPI_Reduce_scatter), checked against a fold in rank order computed here;
 * and MPI_ERR_OP for pairs the standard forbids.
 *
 *   coll_ops [count]          (default 37 items per vector) */
#include <stdio.h>

#include "coll_util.h"

static int rank, np, count;

enum { MAX_, MIN_, SUM_, PROD_, LAND_, LOR_, LXOR_, BAND_, BOR_, BXOR_, NOPS };
static const MPI_Op kOps[NOPS] = {MPI_MAX, MPI_MIN, MPI_SUM, MPI_PROD, MPI_LAND, MPI_LOR, MPI_LXOR, MPI_BAND, MPI_BOR, MPI_BXOR};
static const char* kOpNames[NOPS] = {"MAX", "MIN", "SUM", "PROD", "LAND", "LOR", "LXOR", "BAND", "BOR", "BXOR"};

/* Inputs that keep every result exact and in range for the smallest type:
 * sums of at most 16 values below 8, products of at most three 2s. */
static long long input(int op, int r, int i, int is_signed) {
  switch (op) {
    case MAX_:
    case MIN_:
      return (r * 5 + i * 3) % 11 - (is_signed ? 5 : 0);
    case SUM_:
      return (r * 3 + i) % 8 - (is_signed && i % 2 ? 3 : 0);
    case PROD_:
      return (r + i) % 7 == 0 ? 2 : (is_signed && (r + i) % 5 == 1 ? -1 : 1);
    case LAND_:
    case LOR_:
    case LXOR_:
      return (r * 3 + i) % 4 != 0 ? i % 3 + 1 : 0;
    default:
      return (r * 37 + i * 11) & 0x7f;
  }
}

static int checked = 0;

#define FOLD_INT(op, acc, v)                              \
  switch (op) {                                           \
    case MAX_: acc = acc > v ? acc : v; break;            \
    case MIN_: acc = acc < v ? acc : v; break;            \
    case SUM_: acc = acc + v; break;                      \
    case PROD_: acc = acc * v; break;                     \
    case LAND_: acc = (acc != 0) && (v != 0); break;      \
    case LOR_: acc = (acc != 0) || (v != 0); break;       \
    case LXOR_: acc = (acc != 0) != (v != 0); break;      \
    case BAND_: acc = acc & v; break;                     \
    case BOR_: acc = acc | v; break;                      \
    case BXOR_: acc = acc ^ v; break;                     \
  }

#define FOLD_FLOAT(op, acc, v)                   \
  switch (op) {                                  \
    case MAX_: acc = acc > v ? acc : v; break;   \
    case MIN_: acc = acc < v ? acc : v; break;   \
    case SUM_: acc = acc + v; break;             \
    case PROD_: acc = acc * v; break;            \
  }

/* Runs op on type (C type CT) through Allreduce and Reduce at every root
 * up to 3, and compares with the rank-order fold. */
#define DEFINE_TEST(NAME, CT, FOLD)                                                                    \
  static void NAME(MPI_Datatype dt, const char* tname, int op, int is_signed) {                        \
    CT* s = malloc(sizeof(CT) * (count + 1));                                                          \
    CT* r = malloc(sizeof(CT) * (count + 1));                                                          \
    CT* want = malloc(sizeof(CT) * (count + 1));                                                       \
    for (int i = 0; i < count; ++i) {                                                                  \
      s[i] = (CT)input(op, rank, i, is_signed);                                                        \
      CT acc = (CT)input(op, 0, i, is_signed);                                                         \
      for (int q = 1; q < np; ++q) {                                                                   \
        CT v = (CT)input(op, q, i, is_signed);                                                         \
        FOLD(op, acc, v)                                                                               \
      }                                                                                                \
      want[i] = acc;                                                                                   \
    }                                                                                                  \
    CHECK_MPI(MPI_Allreduce(s, r, count, dt, kOps[op], MPI_COMM_WORLD));                               \
    for (int i = 0; i < count; ++i)                                                                    \
      CHECK(r[i] == want[i], "Allreduce %s on %s: [%d] wrong", kOpNames[op], tname, i);                \
    for (int root = 0; root < np && root < 3; ++root) {                                                \
      memset(r, 0, sizeof(CT) * count);                                                                \
      CHECK_MPI(MPI_Reduce(s, r, count, dt, kOps[op], root, MPI_COMM_WORLD));                          \
      if (rank == root)                                                                                \
        for (int i = 0; i < count; ++i)                                                                \
          CHECK(r[i] == want[i], "Reduce %s on %s root %d: [%d] wrong", kOpNames[op], tname, root, i); \
    }                                                                                                  \
    ++checked;                                                                                         \
    free(s);                                                                                           \
    free(r);                                                                                           \
    free(want);                                                                                        \
  }

DEFINE_TEST(test_schar, signed char, FOLD_INT)
DEFINE_TEST(test_uchar, unsigned char, FOLD_INT)
DEFINE_TEST(test_short, short, FOLD_INT)
DEFINE_TEST(test_ushort, unsigned short, FOLD_INT)
DEFINE_TEST(test_int, int, FOLD_INT)
DEFINE_TEST(test_unsigned, unsigned, FOLD_INT)
DEFINE_TEST(test_long, long, FOLD_INT)
DEFINE_TEST(test_ulong, unsigned long, FOLD_INT)
DEFINE_TEST(test_llong, long long, FOLD_INT)
DEFINE_TEST(test_ullong, unsigned long long, FOLD_INT)
DEFINE_TEST(test_float, float, FOLD_FLOAT)
DEFINE_TEST(test_double, double, FOLD_FLOAT)
DEFINE_TEST(test_ldouble, long double, FOLD_FLOAT)

typedef void (*TestFn)(MPI_Datatype, const char*, int, int);
struct Case {
  MPI_Datatype dt;
  const char* name;
  TestFn fn;
  int is_signed;
  unsigned ops; /* bit per op */
};

#define ALL_INT ((1u << NOPS) - 1)
#define NUMERIC ((1u << MAX_) | (1u << MIN_) | (1u << SUM_) | (1u << PROD_))
#define LOGICAL ((1u << LAND_) | (1u << LOR_) | (1u << LXOR_))
#define BITWISE ((1u << BAND_) | (1u << BOR_) | (1u << BXOR_))

static void test_complex(MPI_Datatype dt, const char* name, int is_double) {
  /* (re, im) pairs of small integers; SUM and PROD in rank order. */
  for (int op = SUM_; op <= PROD_; ++op) {
    double* s = malloc(sizeof(double) * 2 * (count + 1));
    double* r = malloc(sizeof(double) * 2 * (count + 1));
    float* fs = (float*)s;
    float* fr = (float*)r;
    int ok = 1;
    for (int i = 0; i < count; ++i) {
      double re = op == SUM_ ? (rank + i) % 5 : ((rank + i) % 6 == 0 ? 0 : 1);
      double im = op == SUM_ ? (rank * 2 + i) % 3 : ((rank + i) % 6 == 0 ? 1 : 0);
      if (is_double) {
        s[2 * i] = re;
        s[2 * i + 1] = im;
      } else {
        fs[2 * i] = (float)re;
        fs[2 * i + 1] = (float)im;
      }
    }
    CHECK_MPI(MPI_Allreduce(s, r, count, dt, kOps[op], MPI_COMM_WORLD));
    for (int i = 0; i < count; ++i) {
      double wr = op == SUM_ ? 0 : 1, wi = 0;
      for (int q = 0; q < np; ++q) {
        double re = op == SUM_ ? (q + i) % 5 : ((q + i) % 6 == 0 ? 0 : 1);
        double im = op == SUM_ ? (q * 2 + i) % 3 : ((q + i) % 6 == 0 ? 1 : 0);
        if (op == SUM_) {
          wr += re;
          wi += im;
        } else {
          double nr = wr * re - wi * im, ni = wr * im + wi * re;
          wr = nr;
          wi = ni;
        }
      }
      double gr = is_double ? r[2 * i] : fr[2 * i], gi = is_double ? r[2 * i + 1] : fr[2 * i + 1];
      if (gr != wr || gi != wi) ok = 0;
    }
    CHECK(ok, "Allreduce %s on %s wrong", kOpNames[op], name);
    ++checked;
    free(s);
    free(r);
  }
}

/* MAXLOC / MINLOC on every pair type, with many ties (the smaller index wins). */
#define DEFINE_PAIR_TEST(NAME, VT, IT)                                                                        \
  static void NAME(MPI_Datatype dt, const char* tname) {                                                      \
    typedef struct {                                                                                          \
      VT v;                                                                                                   \
      IT i;                                                                                                   \
    } P;                                                                                                      \
    P* s = malloc(sizeof(P) * (count + 1));                                                                   \
    P* r = malloc(sizeof(P) * (count + 1));                                                                   \
    for (int k = 0; k < 2; ++k) {                                                                             \
      MPI_Op op = k == 0 ? MPI_MAXLOC : MPI_MINLOC;                                                           \
      for (int i = 0; i < count; ++i) {                                                                       \
        s[i].v = (VT)((rank * 7 + i) % 4);                                                                    \
        s[i].i = (IT)(np - rank + i % 3);                                                                     \
      }                                                                                                       \
      for (int root = -1; root < 2 && root < np; ++root) {                                                    \
        if (root < 0) CHECK_MPI(MPI_Allreduce(s, r, count, dt, op, MPI_COMM_WORLD));                          \
        else CHECK_MPI(MPI_Reduce(s, r, count, dt, op, root, MPI_COMM_WORLD));                                \
        if (root >= 0 && rank != root) continue;                                                              \
        for (int i = 0; i < count; ++i) {                                                                     \
          VT best = (VT)((0 * 7 + i) % 4);                                                                    \
          IT idx = (IT)(np + i % 3);                                                                          \
          for (int q = 1; q < np; ++q) {                                                                      \
            VT v = (VT)((q * 7 + i) % 4);                                                                     \
            IT qi = (IT)(np - q + i % 3);                                                                     \
            if ((k == 0 ? v > best : v < best) || (v == best && qi < idx)) {                                  \
              best = v;                                                                                       \
              idx = qi;                                                                                       \
            }                                                                                                 \
          }                                                                                                   \
          CHECK(r[i].v == best && r[i].i == idx, "%s on %s root %d: [%d] wrong", k == 0 ? "MAXLOC" : "MINLOC", \
                tname, root, i);                                                                              \
        }                                                                                                     \
      }                                                                                                       \
      ++checked;                                                                                              \
    }                                                                                                         \
    free(s);                                                                                                  \
    free(r);                                                                                                  \
  }

DEFINE_PAIR_TEST(test_float_int, float, int)
DEFINE_PAIR_TEST(test_double_int, double, int)
DEFINE_PAIR_TEST(test_long_int, long, int)
DEFINE_PAIR_TEST(test_2int, int, int)
DEFINE_PAIR_TEST(test_short_int, short, int)
DEFINE_PAIR_TEST(test_ldouble_int, long double, int)
DEFINE_PAIR_TEST(test_2float, float, float)
DEFINE_PAIR_TEST(test_2double, double, double)

/* Scan and Reduce_scatter carry the op too. */
static void test_scan_reduce_scatter(void) {
  unsigned* s = malloc(sizeof(unsigned) * (count * np + 1));
  unsigned* r = malloc(sizeof(unsigned) * (count * np + 1));
  for (int i = 0; i < count; ++i) s[i] = (unsigned)input(BXOR_, rank, i, 0);
  CHECK_MPI(MPI_Scan(s, r, count, MPI_UNSIGNED, MPI_BXOR, MPI_COMM_WORLD));
  for (int i = 0; i < count; ++i) {
    unsigned want = 0;
    for (int q = 0; q <= rank; ++q) want ^= (unsigned)input(BXOR_, q, i, 0);
    CHECK(r[i] == want, "Scan BXOR [%d]", i);
  }
  int counts[64];
  for (int q = 0; q < np; ++q) counts[q] = count;
  for (int i = 0; i < count * np; ++i) s[i] = (unsigned)input(MAX_, rank, i, 0);
  CHECK_MPI(MPI_Reduce_scatter(s, r, counts, MPI_UNSIGNED, MPI_MAX, MPI_COMM_WORLD));
  for (int i = 0; i < count; ++i) {
    unsigned want = 0;
    for (int q = 0; q < np; ++q)
      if ((unsigned)input(MAX_, q, rank * count + i, 0) > want) want = (unsigned)input(MAX_, q, rank * count + i, 0);
    CHECK(r[i] == want, "Reduce_scatter MAX [%d]", i);
  }
  checked += 2;
  free(s);
  free(r);
}

static void expect_op_error(MPI_Datatype dt, MPI_Op op, const char* what) {
  char buf[64 * 32], out[64 * 32];
  int counts[64];
  for (int q = 0; q < np; ++q) counts[q] = 1;
  memset(buf, 0, sizeof buf);
  int cls, rc = MPI_Allreduce(buf, out, 1, dt, op, MPI_COMM_WORLD);
  MPI_Error_class(rc, &cls);
  CHECK(cls == MPI_ERR_OP, "Allreduce with %s returned class %d, not MPI_ERR_OP", what, cls);
  rc = MPI_Reduce(buf, out, 1, dt, op, 0, MPI_COMM_WORLD);
  MPI_Error_class(rc, &cls);
  CHECK(cls == MPI_ERR_OP, "Reduce with %s returned class %d", what, cls);
  rc = MPI_Scan(buf, out, 1, dt, op, MPI_COMM_WORLD);
  MPI_Error_class(rc, &cls);
  CHECK(cls == MPI_ERR_OP, "Scan with %s returned class %d", what, cls);
  rc = MPI_Reduce_scatter(buf, out, counts, dt, op, MPI_COMM_WORLD);
  MPI_Error_class(rc, &cls);
  CHECK(cls == MPI_ERR_OP, "Reduce_scatter with %s returned class %d", what, cls);
  ++checked;
}

int main(int argc, char** argv) {
  CHECK_MPI(MPI_Init(&argc, &argv));
  CHECK_MPI(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
  CHECK_MPI(MPI_Comm_size(MPI_COMM_WORLD, &np));
  CHECK(np <= 64, "at most 64 ranks");
  count = argc > 1 ? atoi(argv[1]) : 37;

  const struct Case cases[] = {
      {MPI_SIGNED_CHAR, "MPI_SIGNED_CHAR", test_schar, 1, ALL_INT},
      {MPI_UNSIGNED_CHAR, "MPI_UNSIGNED_CHAR", test_uchar, 0, ALL_INT},
      {MPI_SHORT, "MPI_SHORT", test_short, 1, ALL_INT},
      {MPI_UNSIGNED_SHORT, "MPI_UNSIGNED_SHORT", test_ushort, 0, ALL_INT},
      {MPI_INT, "MPI_INT", test_int, 1, ALL_INT},
      {MPI_UNSIGNED, "MPI_UNSIGNED", test_unsigned, 0, ALL_INT},
      {MPI_LONG, "MPI_LONG", test_long, 1, ALL_INT},
      {MPI_UNSIGNED_LONG, "MPI_UNSIGNED_LONG", test_ulong, 0, ALL_INT},
      {MPI_LONG_LONG_INT, "MPI_LONG_LONG_INT", test_llong, 1, ALL_INT},
      {MPI_UNSIGNED_LONG_LONG, "MPI_UNSIGNED_LONG_LONG", test_ullong, 0, ALL_INT},
      {MPI_INTEGER, "MPI_INTEGER", test_int, 1, NUMERIC | BITWISE},
      {MPI_LOGICAL, "MPI_LOGICAL", test_int, 0, LOGICAL},
      {MPI_BYTE, "MPI_BYTE", test_uchar, 0, BITWISE},
      {MPI_FLOAT, "MPI_FLOAT", test_float, 1, NUMERIC},
      {MPI_DOUBLE, "MPI_DOUBLE", test_double, 1, NUMERIC},
      {MPI_LONG_DOUBLE, "MPI_LONG_DOUBLE", test_ldouble, 1, NUMERIC},
      {MPI_REAL, "MPI_REAL", test_float, 1, NUMERIC},
      {MPI_DOUBLE_PRECISION, "MPI_DOUBLE_PRECISION", test_double, 1, NUMERIC},
  };
  for (size_t c = 0; c < sizeof cases / sizeof cases[0]; ++c)
    for (int op = 0; op < NOPS; ++op)
      if (cases[c].ops & (1u << op)) cases[c].fn(cases[c].dt, cases[c].name, op, cases[c].is_signed);
  test_complex(MPI_COMPLEX, "MPI_COMPLEX", 0);
  test_complex(MPI_DOUBLE_COMPLEX, "MPI_DOUBLE_COMPLEX", 1);
  test_float_int(MPI_FLOAT_INT, "MPI_FLOAT_INT");
  test_double_int(MPI_DOUBLE_INT, "MPI_DOUBLE_INT");
  test_long_int(MPI_LONG_INT, "MPI_LONG_INT");
  test_2int(MPI_2INT, "MPI_2INT");
  test_short_int(MPI_SHORT_INT, "MPI_SHORT_INT");
  test_ldouble_int(MPI_LONG_DOUBLE_INT, "MPI_LONG_DOUBLE_INT");
  test_2int(MPI_2INTEGER, "MPI_2INTEGER");
  test_2float(MPI_2REAL, "MPI_2REAL");
  test_2double(MPI_2DOUBLE_PRECISION, "MPI_2DOUBLE_PRECISION");
  test_scan_reduce_scatter();

  CHECK_MPI(MPI_Errhandler_set(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
  expect_op_error(MPI_CHAR, MPI_SUM, "MPI_SUM on MPI_CHAR");
  expect_op_error(MPI_FLOAT, MPI_BAND, "MPI_BAND on MPI_FLOAT");
  expect_op_error(MPI_DOUBLE, MPI_LAND, "MPI_LAND on MPI_DOUBLE");
  expect_op_error(MPI_INT, MPI_MAXLOC, "MPI_MAXLOC on MPI_INT");
  expect_op_error(MPI_COMPLEX, MPI_MAX, "MPI_MAX on MPI_COMPLEX");
  expect_op_error(MPI_2INT, MPI_SUM, "MPI_SUM on MPI_2INT");
  expect_op_error(MPI_BYTE, MPI_LXOR, "MPI_LXOR on MPI_BYTE");
  expect_op_error(MPI_LOGICAL, MPI_SUM, "MPI_SUM on MPI_LOGICAL");
  expect_op_error(MPI_PACKED, MPI_BOR, "MPI_BOR on MPI_PACKED");
  expect_op_error(MPI_INT, MPI_OP_NULL, "MPI_OP_NULL");
  /* Still in step after all those errors. */
  int one = 1, sum = 0;
  CHECK_MPI(MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
  CHECK(sum == np, "allreduce after errors gave %d", sum);
  if (rank == 0) printf("coll_ops: np %d, %d op/type cases checked\n", np, checked);
  CHECK_MPI(MPI_Finalize());
  return 0;
}
