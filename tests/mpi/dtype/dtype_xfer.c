/* Derived datatypes in messages: every pair of seven layouts of the same
 * signature (N doubles) as send and receive type, so that data leaves one
 * layout and lands in a different one: contiguous, every other element,
 * reversed (negative stride), a struct with MPI_LB / MPI_UB, irregular
 * indexed blocks, a few large blocks, and an hvector with a negative stride.
 * Sizes below and above the eager limit exercise the eager, single-copy and
 * pipelined paths (the CMake tests add FTMPI_TRANSPORT=tcp and FTMPI_CMA=0).
 * Holes of the receive layout must stay untouched; types are freed while
 * their operations are pending; a truncated receive writes nothing past the
 * receive type's capacity; a struct of mixed basic types is received with
 * its members in a different memory order. */
#include <stdlib.h>
#include <string.h>

#include "check.h"

#define NLAYOUTS 7
#define HOLE -12345.0

struct layout {
  MPI_Datatype type;
  int count;
  long nbuf; /* doubles in the buffer */
  long base; /* where the buffer pointer passed to MPI points, in doubles */
  long* pos; /* pos[k]: buffer index of the k-th double of the stream */
};

static int rank, size;

static void commit(MPI_Datatype* t) { CHECK_MPI(MPI_Type_commit(t)); }

static struct layout make_layout(int which, long n) {
  struct layout l = {MPI_DOUBLE, (int)n, n, 0, malloc(sizeof(long) * (size_t)n)};
  switch (which) {
    case 0: /* contiguous */
      for (long k = 0; k < n; ++k) l.pos[k] = k;
      return l;
    case 1: /* every other element */
      CHECK_MPI(MPI_Type_vector((int)n, 1, 2, MPI_DOUBLE, &l.type));
      l.count = 1;
      l.nbuf = 2 * n;
      for (long k = 0; k < n; ++k) l.pos[k] = 2 * k;
      break;
    case 2: /* reversed: stride -1 from the last element */
      CHECK_MPI(MPI_Type_vector((int)n, 1, -1, MPI_DOUBLE, &l.type));
      l.count = 1;
      l.base = n - 1;
      for (long k = 0; k < n; ++k) l.pos[k] = n - 1 - k;
      break;
    case 3: { /* struct {LB@-8, double@0, double@16, UB@32}: two doubles per 40 bytes */
      int bl[4] = {1, 1, 1, 1};
      MPI_Aint d[4] = {-8, 0, 16, 32};
      MPI_Datatype t[4] = {MPI_LB, MPI_DOUBLE, MPI_DOUBLE, MPI_UB};
      CHECK_MPI(MPI_Type_struct(4, bl, d, t, &l.type));
      l.count = (int)(n / 2);
      l.base = 1; /* the LB lies one double before each item */
      l.nbuf = 5 * (n / 2) + 1;
      for (long i = 0; i < n / 2; ++i) {
        l.pos[2 * i] = 1 + 5 * i;
        l.pos[2 * i + 1] = 1 + 5 * i + 2;
      }
      break;
    }
    case 4: { /* indexed: blocks of 1..7 doubles, 3 apart */
      int nb = 0, *bl = malloc(sizeof(int) * (size_t)n), *ds = malloc(sizeof(int) * (size_t)n);
      long k = 0, at = 0;
      while (k < n) {
        int len = 1 + nb % 7;
        if (len > n - k) len = (int)(n - k);
        bl[nb] = len;
        ds[nb] = (int)at;
        for (int j = 0; j < len; ++j) l.pos[k++] = at + j;
        at += len + 3;
        ++nb;
      }
      CHECK_MPI(MPI_Type_indexed(nb, bl, ds, MPI_DOUBLE, &l.type));
      l.count = 1;
      l.nbuf = at;
      free(bl);
      free(ds);
      break;
    }
    case 5: { /* four large blocks, 7 doubles apart */
      long blk = n / 4;
      CHECK_MPI(MPI_Type_vector(4, (int)blk, (int)blk + 7, MPI_DOUBLE, &l.type));
      l.count = 1;
      l.nbuf = 4 * (blk + 7);
      for (long k = 0; k < n; ++k) l.pos[k] = (k / blk) * (blk + 7) + k % blk;
      break;
    }
    default: { /* hvector of 3 doubles, -40 bytes apart */
      MPI_Datatype three;
      CHECK_MPI(MPI_Type_contiguous(3, MPI_DOUBLE, &three));
      CHECK_MPI(MPI_Type_hvector((int)(n / 3), 1, -40, three, &l.type));
      CHECK_MPI(MPI_Type_free(&three)); /* the hvector keeps it */
      l.count = 1;
      l.base = 5 * (n / 3 - 1);
      l.nbuf = l.base + 3;
      for (long k = 0; k < n; ++k) l.pos[k] = l.base - 5 * (k / 3) + k % 3;
      break;
    }
  }
  commit(&l.type);
  return l;
}

static double value(long k, int seed) { return seed * 1e7 + (double)k; }

/* One message from `from` to `to` (maybe the same rank), send layout s,
 * receive layout r, n doubles. */
static void transfer(int from, int to, int s, int r, long n, int tag) {
  MPI_Request rq[2];
  int nr = 0;
  struct layout ls = {0}, lr = {0};
  double *sbuf = NULL, *rbuf = NULL;
  if (rank == to) {
    lr = make_layout(r, n);
    rbuf = malloc(sizeof(double) * (size_t)lr.nbuf);
    for (long i = 0; i < lr.nbuf; ++i) rbuf[i] = HOLE;
    CHECK_MPI(MPI_Irecv(rbuf + lr.base, lr.count, lr.type, from, tag, MPI_COMM_WORLD, &rq[nr++]));
    if (lr.type != MPI_DOUBLE) CHECK_MPI(MPI_Type_free(&lr.type)); /* still in use: must stay valid */
  }
  if (rank == from) {
    ls = make_layout(s, n);
    sbuf = malloc(sizeof(double) * (size_t)ls.nbuf);
    for (long i = 0; i < ls.nbuf; ++i) sbuf[i] = -1.0;
    for (long k = 0; k < n; ++k) sbuf[ls.pos[k]] = value(k, tag);
    CHECK_MPI(MPI_Isend(sbuf + ls.base, ls.count, ls.type, to, tag, MPI_COMM_WORLD, &rq[nr++]));
    if (ls.type != MPI_DOUBLE) CHECK_MPI(MPI_Type_free(&ls.type));
  }
  MPI_Status st[2];
  CHECK_MPI(MPI_Waitall(nr, rq, st));
  if (rank == to) {
    int got;
    CHECK_MPI(MPI_Get_elements(&st[0], MPI_DOUBLE, &got));
    CHECK(got == n && st[0].MPI_SOURCE == from, "layouts %d->%d n %ld: %d elements from %d", s, r, n, got,
          st[0].MPI_SOURCE);
    long holes = lr.nbuf - n;
    for (long k = 0; k < n; ++k) {
      CHECK(rbuf[lr.pos[k]] == value(k, tag), "layouts %d->%d n %ld: element %ld at %ld is %g", s, r, n, k, lr.pos[k],
            rbuf[lr.pos[k]]);
      rbuf[lr.pos[k]] = HOLE;
    }
    for (long i = 0; i < lr.nbuf; ++i)
      CHECK(rbuf[i] == HOLE, "layouts %d->%d n %ld: hole %ld of %ld overwritten", s, r, n, i, holes);
    free(lr.pos);
    free(rbuf);
  }
  if (rank == from) {
    free(ls.pos);
    free(sbuf);
  }
}

/* A receive layout with room for fewer elements than sent. */
static void truncated(int from, int to, long n) {
  struct layout lr = {0};
  double *rbuf = NULL, *sbuf = NULL;
  MPI_Request rq = MPI_REQUEST_NULL;
  if (rank == to) {
    lr = make_layout(1, n / 2); /* every other element, n/2 of them */
    rbuf = malloc(sizeof(double) * (size_t)(lr.nbuf + 64));
    for (long i = 0; i < lr.nbuf + 64; ++i) rbuf[i] = HOLE;
    CHECK_MPI(MPI_Irecv(rbuf, 1, lr.type, from, 77, MPI_COMM_WORLD, &rq));
  }
  if (rank == from) {
    sbuf = malloc(sizeof(double) * (size_t)n);
    for (long k = 0; k < n; ++k) sbuf[k] = value(k, 77);
    CHECK_MPI(MPI_Send(sbuf, (int)n, MPI_DOUBLE, to, 77, MPI_COMM_WORLD));
    free(sbuf);
  }
  if (rank == to) {
    MPI_Status st;
    int rc = MPI_Wait(&rq, &st);
    int c = -1;
    MPI_Error_class(rc, &c);
    CHECK(c == MPI_ERR_TRUNCATE, "truncated derived receive returned class %d", c);
    for (long k = 0; k < n / 2; ++k) CHECK(rbuf[2 * k] == value(k, 77), "truncated: element %ld", k);
    for (long i = 0; i < lr.nbuf + 64; ++i)
      if (i % 2 || i >= 2 * (n / 2)) CHECK(rbuf[i] == HOLE, "truncated receive wrote index %ld", i);
    MPI_Type_free(&lr.type);
    free(lr.pos);
    free(rbuf);
  }
}

/* struct {int; double} sent; received as {double at 0, int at 8} declared
 * int first (same signature, members in the other memory order). */
static void mixed(int from, int to, int items) {
  struct sd {
    int i;
    double d;
  };
  struct rd {
    double d;
    int i;
  };
  int bl[2] = {1, 1};
  MPI_Datatype tys[2] = {MPI_INT, MPI_DOUBLE}, t;
  MPI_Request rq = MPI_REQUEST_NULL;
  struct rd* r = NULL;
  MPI_Datatype rt = MPI_DATATYPE_NULL;
  if (rank == to) {
    MPI_Aint ds[2] = {8, 0};
    CHECK_MPI(MPI_Type_struct(2, bl, ds, tys, &rt));
    commit(&rt);
    r = calloc((size_t)items, sizeof *r);
    CHECK_MPI(MPI_Irecv(r, items, rt, from, 78, MPI_COMM_WORLD, &rq));
  }
  if (rank == from) {
    MPI_Aint ds[2] = {0, 8};
    CHECK_MPI(MPI_Type_struct(2, bl, ds, tys, &t));
    commit(&t);
    struct sd* s = malloc(sizeof *s * (size_t)items);
    for (int k = 0; k < items; ++k) {
      s[k].i = k;
      s[k].d = k * 0.5;
    }
    CHECK_MPI(MPI_Send(s, items, t, to, 78, MPI_COMM_WORLD));
    MPI_Type_free(&t);
    free(s);
  }
  if (rank == to) {
    CHECK_MPI(MPI_Wait(&rq, MPI_STATUS_IGNORE));
    for (int k = 0; k < items; ++k) CHECK(r[k].i == k && r[k].d == k * 0.5, "mixed item %d: %d %g", k, r[k].i, r[k].d);
    MPI_Type_free(&rt);
    free(r);
  }
}

int main(int argc, char** argv) {
  CHECK_MPI(MPI_Init(&argc, &argv));
  CHECK_MPI(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
  CHECK_MPI(MPI_Comm_size(MPI_COMM_WORLD, &size));
  CHECK_MPI(MPI_Errhandler_set(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
  long sizes[] = {12, 1200, 60000};
  /* Pairs 0-1, 2-3, ...; an odd last rank (or a single one) talks to itself. */
  int peer = (rank ^ 1) < size ? rank ^ 1 : rank;
  int lo = rank < peer ? rank : peer, hi = rank < peer ? peer : rank;
  int tag = 0;
  for (int z = 0; z < 3; ++z) {
    for (int s = 0; s < NLAYOUTS; ++s) {
      for (int r = 0; r < NLAYOUTS; ++r) {
        transfer(lo, hi, s, r, sizes[z], ++tag);
        if (lo != hi) transfer(hi, lo, s, r, sizes[z], ++tag);
      }
    }
    truncated(lo, hi, sizes[z]);
    mixed(lo, hi, (int)sizes[z]);
  }
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  if (rank == 0) printf("dtype_xfer: ok\n");
  CHECK_MPI(MPI_Finalize());
  return 0;
}
