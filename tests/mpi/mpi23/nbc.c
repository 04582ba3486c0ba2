/* Nonblocking collectives (MPI-3.1 §5.12) and the MPI-2 collectives that
 * share their schedules, against values computed here: every I-call, with
 * MPI_IN_PLACE where allowed, several in flight at once on one and on two
 * communicators, overlapping with point-to-point traffic, completed with
 * Wait, Test loops and Waitall; error classes of bad calls. */
#include <stdlib.h>
#include <string.h>

#include "check.h"

static int rank, size;

/* Non-commutative: a 2x2 integer matrix product (row-major in 4 ints). */
static void matmul(void* in, void* inout, int* len, MPI_Datatype* dt) {
  (void)dt;
  int* a = in;
  int* b = inout;
  for (int k = 0; k < *len; ++k, a += 4, b += 4) {
    int c[4] = {a[0] * b[0] + a[1] * b[2], a[0] * b[1] + a[1] * b[3], a[2] * b[0] + a[3] * b[2],
                a[2] * b[1] + a[3] * b[3]};
    memcpy(b, c, sizeof c);
  }
}

static void mat_of(int r, int* m) {
  m[0] = 1, m[1] = r + 1, m[2] = 0, m[3] = 1;  /* shear; products keep order visible */
  if (r % 2) m[2] = 1, m[1] = 0;
}

static void mat_prod(int lo, int hi, int* out) { /* m_lo * ... * m_hi */
  int acc[4] = {1, 0, 0, 1};
  for (int r = lo; r <= hi; ++r) {
    int m[4], c[4];
    mat_of(r, m);
    c[0] = acc[0] * m[0] + acc[1] * m[2], c[1] = acc[0] * m[1] + acc[1] * m[3];
    c[2] = acc[2] * m[0] + acc[3] * m[2], c[3] = acc[2] * m[1] + acc[3] * m[3];
    memcpy(acc, c, sizeof c);
  }
  memcpy(out, acc, sizeof acc);
}

static void wait_by_test(MPI_Request* req) {
  int flag = 0;
  while (!flag) CHECK_MPI(MPI_Test(req, &flag, MPI_STATUS_IGNORE));
  CHECK(*req == MPI_REQUEST_NULL, "a completed request was not reset");
}

static void data_movement(MPI_Comm comm) {
  MPI_Request req;
  const int root = 1 % size;
  /* Ibarrier, Ibcast */
  CHECK_MPI(MPI_Ibarrier(comm, &req));
  CHECK_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
  int b[5] = {0, 0, 0, 0, 0};
  if (rank == root)
    for (int i = 0; i < 5; ++i) b[i] = 100 + i;
  CHECK_MPI(MPI_Ibcast(b, 5, MPI_INT, root, comm, &req));
  wait_by_test(&req);
  for (int i = 0; i < 5; ++i) CHECK(b[i] == 100 + i, "ibcast b[%d] = %d", i, b[i]);
  /* Igather / Iscatter, with and without MPI_IN_PLACE at the root */
  int* all = malloc(sizeof(int) * 2 * size);
  int mine[2] = {rank * 10, rank * 10 + 1};
  for (int in_place = 0; in_place < 2; ++in_place) {
    for (int i = 0; i < 2 * size; ++i) all[i] = -1;
    if (in_place && rank == root) all[2 * root] = mine[0], all[2 * root + 1] = mine[1];
    CHECK_MPI(MPI_Igather(in_place && rank == root ? MPI_IN_PLACE : mine, 2, MPI_INT, all, 2, MPI_INT, root, comm, &req));
    CHECK_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
    if (rank == root)
      for (int i = 0; i < 2 * size; ++i) CHECK(all[i] == (i / 2) * 10 + i % 2, "igather[%d] = %d", i, all[i]);
    int got[2] = {-1, -1};
    if (rank == root)
      for (int i = 0; i < 2 * size; ++i) all[i] = 7 * i;
    CHECK_MPI(MPI_Iscatter(all, 2, MPI_INT, in_place && rank == root ? MPI_IN_PLACE : got, 2, MPI_INT, root, comm, &req));
    CHECK_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
    if (!(in_place && rank == root)) CHECK(got[0] == 14 * rank && got[1] == 14 * rank + 7, "iscatter %d %d", got[0], got[1]);
    if (rank == root) CHECK(all[2 * root] == 14 * root, "in-place iscatter changed the root's block");
  }
  /* Igatherv / Iscatterv: rank r contributes r + 1 ints */
  int* counts = malloc(sizeof(int) * size);
  int* displs = malloc(sizeof(int) * size);
  int total = 0;
  for (int r = 0; r < size; ++r) counts[r] = r + 1, displs[r] = total + r, total += r + 1 + r;  /* gaps of r */
  int* v = malloc(sizeof(int) * (total + 1));
  int* mv = malloc(sizeof(int) * (rank + 1));
  for (int k = 0; k <= rank; ++k) mv[k] = 1000 * rank + k;
  for (int i = 0; i < total; ++i) v[i] = -1;
  CHECK_MPI(MPI_Igatherv(mv, rank + 1, MPI_INT, v, counts, displs, MPI_INT, root, comm, &req));
  CHECK_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
  if (rank == root)
    for (int r = 0; r < size; ++r) {
      for (int k = 0; k <= r; ++k) CHECK(v[displs[r] + k] == 1000 * r + k, "igatherv r %d k %d", r, k);
      if (r > 0) CHECK(v[displs[r] - 1] == -1, "igatherv wrote into a gap");
    }
  for (int k = 0; k <= rank; ++k) mv[k] = -1;
  CHECK_MPI(MPI_Iscatterv(v, counts, displs, MPI_INT, mv, rank + 1, MPI_INT, root, comm, &req));
  CHECK_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
  for (int k = 0; k <= rank; ++k) CHECK(mv[k] == 1000 * rank + k, "iscatterv k %d: %d", k, mv[k]);
  /* Iallgather(v) with MPI_IN_PLACE */
  for (int i = 0; i < 2 * size; ++i) all[i] = i / 2 == rank ? mine[i % 2] : -1;
  CHECK_MPI(MPI_Iallgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, all, 2, MPI_INT, comm, &req));
  CHECK_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
  for (int i = 0; i < 2 * size; ++i) CHECK(all[i] == (i / 2) * 10 + i % 2, "iallgather in place [%d] = %d", i, all[i]);
  for (int i = 0; i < total; ++i) v[i] = -1;
  for (int k = 0; k <= rank; ++k) mv[k] = 1000 * rank + k;
  CHECK_MPI(MPI_Iallgatherv(mv, rank + 1, MPI_INT, v, counts, displs, MPI_INT, comm, &req));
  CHECK_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
  for (int r = 0; r < size; ++r)
    for (int k = 0; k <= r; ++k) CHECK(v[displs[r] + k] == 1000 * r + k, "iallgatherv r %d k %d", r, k);
  /* Ialltoall (in place) and Ialltoallv */
  for (int i = 0; i < 2 * size; ++i) all[i] = 100 * rank + i;
  CHECK_MPI(MPI_Ialltoall(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, all, 2, MPI_INT, comm, &req));
  CHECK_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
  for (int r = 0; r < size; ++r)
    for (int k = 0; k < 2; ++k) CHECK(all[2 * r + k] == 100 * r + 2 * rank + k, "ialltoall in place");
  int* sc = malloc(sizeof(int) * size);
  int* sd = malloc(sizeof(int) * size);
  int* rc = malloc(sizeof(int) * size);
  int* rd = malloc(sizeof(int) * size);
  int stot = 0, rtot = 0;
  for (int r = 0; r < size; ++r) {
    sc[r] = (rank + r) % 3, sd[r] = stot, stot += sc[r];
    rc[r] = (r + rank) % 3, rd[r] = rtot, rtot += rc[r];
  }
  int* sbuf = malloc(sizeof(int) * (stot + 1));
  int* rbuf = malloc(sizeof(int) * (rtot + 1));
  for (int r = 0; r < size; ++r)
    for (int k = 0; k < sc[r]; ++k) sbuf[sd[r] + k] = 10000 * rank + 100 * r + k;
  CHECK_MPI(MPI_Ialltoallv(sbuf, sc, sd, MPI_INT, rbuf, rc, rd, MPI_INT, comm, &req));
  CHECK_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
  for (int r = 0; r < size; ++r)
    for (int k = 0; k < rc[r]; ++k) CHECK(rbuf[rd[r] + k] == 10000 * r + 100 * rank + k, "ialltoallv");
  /* Alltoallw / Ialltoallw: from peer r an int block as MPI_INT, received as 2 shorts' worth... keep
   * per-peer types: even peers send doubles, odd peers ints. */
  MPI_Datatype* st = malloc(sizeof(MPI_Datatype) * size);
  MPI_Datatype* rt = malloc(sizeof(MPI_Datatype) * size);
  double* ds = malloc(sizeof(double) * size);
  double* dr = malloc(sizeof(double) * size);
  int* one = malloc(sizeof(int) * size);
  for (int r = 0; r < size; ++r) {
    one[r] = 1;
    sd[r] = r * (int)sizeof(double);
    rd[r] = r * (int)sizeof(double);
    st[r] = rt[r] = (rank + r) % 2 ? MPI_INT : MPI_DOUBLE;
    if (st[r] == MPI_INT) ((int*)&ds[r])[0] = 10 * rank + r;
    else ds[r] = 0.5 + 10 * rank + r;
    dr[r] = -1;
  }
  for (int nb = 0; nb < 2; ++nb) {
    if (nb) {
      CHECK_MPI(MPI_Ialltoallw(ds, one, sd, st, dr, one, rd, rt, comm, &req));
      CHECK_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
    } else {
      CHECK_MPI(MPI_Alltoallw(ds, one, sd, st, dr, one, rd, rt, comm));
    }
    for (int r = 0; r < size; ++r) {
      if (rt[r] == MPI_INT) CHECK(((int*)&dr[r])[0] == 10 * r + rank, "alltoallw int from %d", r);
      else CHECK(dr[r] == 0.5 + 10 * r + rank, "alltoallw double from %d: %g", r, dr[r]);
    }
  }
  free(st), free(rt), free(ds), free(dr), free(one);
  free(sc), free(sd), free(rc), free(rd), free(sbuf), free(rbuf);
  free(all), free(counts), free(displs), free(v), free(mv);
}

static void reductions(MPI_Comm comm) {
  MPI_Request req;
  MPI_Op mat;
  CHECK_MPI(MPI_Op_create(matmul, 0, &mat));
  const int root = size - 1;
  int x[3] = {rank, 2 * rank, 1}, y[3];
  const int tri = size * (size - 1) / 2;
  /* Ireduce (in place at the root), Iallreduce */
  for (int in_place = 0; in_place < 2; ++in_place) {
    y[0] = y[1] = y[2] = -1;
    if (in_place && rank == root) memcpy(y, x, sizeof x);
    CHECK_MPI(MPI_Ireduce(in_place && rank == root ? MPI_IN_PLACE : x, y, 3, MPI_INT, MPI_SUM, root, comm, &req));
    CHECK_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
    if (rank == root) CHECK(y[0] == tri && y[1] == 2 * tri && y[2] == size, "ireduce %d %d %d", y[0], y[1], y[2]);
  }
  memcpy(y, x, sizeof x);
  CHECK_MPI(MPI_Iallreduce(MPI_IN_PLACE, y, 3, MPI_INT, MPI_SUM, comm, &req));
  CHECK_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
  CHECK(y[0] == tri && y[1] == 2 * tri && y[2] == size, "iallreduce in place");
  /* Non-commutative op: rank order kept */
  int m[4], p[4], expect[4];
  mat_of(rank, m);
  MPI_Datatype quad;
  CHECK_MPI(MPI_Type_contiguous(4, MPI_INT, &quad));
  CHECK_MPI(MPI_Type_commit(&quad));
  CHECK_MPI(MPI_Iallreduce(m, p, 1, quad, mat, comm, &req));
  CHECK_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
  mat_prod(0, size - 1, expect);
  CHECK(memcmp(p, expect, sizeof p) == 0, "non-commutative iallreduce out of order");
  CHECK_MPI(MPI_Iscan(m, p, 1, quad, mat, comm, &req));
  CHECK_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
  mat_prod(0, rank, expect);
  CHECK(memcmp(p, expect, sizeof p) == 0, "non-commutative iscan");
  /* Iexscan and Exscan */
  for (int nb = 0; nb < 2; ++nb) {
    y[0] = y[1] = y[2] = -7;
    if (nb) {
      CHECK_MPI(MPI_Iexscan(x, y, 3, MPI_INT, MPI_SUM, comm, &req));
      CHECK_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
    } else {
      CHECK_MPI(MPI_Exscan(x, y, 3, MPI_INT, MPI_SUM, comm));
    }
    const int below = rank * (rank - 1) / 2;
    if (rank > 0) CHECK(y[0] == below && y[1] == 2 * below && y[2] == rank, "exscan %d", y[0]);
    else CHECK(y[0] == -7, "exscan wrote rank 0's receive buffer");
  }
  if (rank > 0) {
    CHECK_MPI(MPI_Iexscan(m, p, 1, quad, mat, comm, &req));
    CHECK_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
    mat_prod(0, rank - 1, expect);
    CHECK(memcmp(p, expect, sizeof p) == 0, "non-commutative iexscan");
  } else {
    CHECK_MPI(MPI_Iexscan(m, p, 1, quad, mat, comm, &req));
    CHECK_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
  }
  /* Ireduce_scatter(_block), Reduce_scatter_block (in place) */
  int* vec = malloc(sizeof(int) * 2 * size);
  int* counts = malloc(sizeof(int) * size);
  for (int i = 0; i < 2 * size; ++i) vec[i] = rank + i;
  for (int r = 0; r < size; ++r) counts[r] = 2;
  int out[2] = {-1, -1};
  CHECK_MPI(MPI_Ireduce_scatter(vec, out, counts, MPI_INT, MPI_SUM, comm, &req));
  CHECK_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
  for (int k = 0; k < 2; ++k) CHECK(out[k] == tri + size * (2 * rank + k), "ireduce_scatter %d", out[k]);
  out[0] = out[1] = -1;
  CHECK_MPI(MPI_Ireduce_scatter_block(vec, out, 2, MPI_INT, MPI_SUM, comm, &req));
  CHECK_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
  for (int k = 0; k < 2; ++k) CHECK(out[k] == tri + size * (2 * rank + k), "ireduce_scatter_block %d", out[k]);
  CHECK_MPI(MPI_Reduce_scatter_block(MPI_IN_PLACE, vec, 2, MPI_INT, MPI_SUM, comm));
  for (int k = 0; k < 2; ++k) CHECK(vec[k] == tri + size * (2 * rank + k), "reduce_scatter_block in place %d", vec[k]);
  /* Reduce_local */
  int in[3] = {1, 2, 3}, io[3] = {10, 20, 30};
  CHECK_MPI(MPI_Reduce_local(in, io, 3, MPI_INT, MPI_SUM));
  CHECK(io[0] == 11 && io[1] == 22 && io[2] == 33, "reduce_local");
  int ma[4] = {1, 1, 0, 1}, mb[4] = {1, 0, 1, 1};
  CHECK_MPI(MPI_Reduce_local(ma, mb, 1, quad, mat)); /* mb := ma * mb */
  CHECK(mb[0] == 2 && mb[1] == 1 && mb[2] == 1 && mb[3] == 1, "reduce_local non-commutative order");
  CHECK(cls(MPI_Reduce_local(in, io, 3, MPI_INT, MPI_OP_NULL)) == MPI_ERR_OP, "reduce_local MPI_OP_NULL");
  free(vec), free(counts);
  MPI_Type_free(&quad);
  MPI_Op_free(&mat);
}

/* Several nonblocking collectives in flight on two communicators, with a
 * ring of point-to-point messages in between, completed by one Waitall. */
static void overlap(MPI_Comm other) {
  enum { N = 4096 };
  static double big[N], bigsum[N];
  for (int i = 0; i < N; ++i) big[i] = rank + i;
  int token = rank, from = -1, bval[2] = {0, 0}, barr = 0;
  MPI_Request reqs[6];
  CHECK_MPI(MPI_Iallreduce(big, bigsum, N, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD, &reqs[0]));
  int orank;
  MPI_Comm_rank(other, &orank);
  if (orank == 0) bval[0] = 42, bval[1] = 43;
  CHECK_MPI(MPI_Ibcast(bval, 2, MPI_INT, 0, other, &reqs[1]));
  CHECK_MPI(MPI_Irecv(&from, 1, MPI_INT, (rank - 1 + size) % size, 9, MPI_COMM_WORLD, &reqs[2]));
  CHECK_MPI(MPI_Isend(&token, 1, MPI_INT, (rank + 1) % size, 9, MPI_COMM_WORLD, &reqs[3]));
  CHECK_MPI(MPI_Ibarrier(MPI_COMM_WORLD, &reqs[4]));
  CHECK_MPI(MPI_Iallreduce(&rank, &barr, 1, MPI_INT, MPI_MAX, other, &reqs[5]));
  /* A blocking collective while they are in flight. */
  int s = 0;
  CHECK_MPI(MPI_Allreduce(&rank, &s, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
  CHECK(s == size * (size - 1) / 2, "blocking allreduce among nonblocking ones");
  MPI_Status st[6];
  CHECK_MPI(MPI_Waitall(6, reqs, st));
  for (int i = 0; i < N; i += 511) CHECK(bigsum[i] == size * (double)i + size * (size - 1) / 2.0, "big iallreduce [%d]", i);
  CHECK(bval[0] == 42 && bval[1] == 43, "ibcast on the other communicator");
  CHECK(from == (rank - 1 + size) % size, "ring message %d", from);
  CHECK(barr == size - 1, "iallreduce max on the other communicator");
  CHECK(st[0].MPI_ERROR == MPI_SUCCESS, "status error of a collective");
  /* Completion in reverse order of start, many at once on one communicator. */
  enum { K = 8 };
  MPI_Request rs[K];
  int vals[K], sums[K];
  for (int k = 0; k < K; ++k) {
    vals[k] = rank * k;
    CHECK_MPI(MPI_Iallreduce(&vals[k], &sums[k], 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &rs[k]));
  }
  for (int k = K - 1; k >= 0; --k) {
    CHECK_MPI(MPI_Wait(&rs[k], MPI_STATUS_IGNORE));
    CHECK(sums[k] == k * size * (size - 1) / 2, "iallreduce %d of %d in flight", k, K);
  }
}

static void errors(void) {
  MPI_Request req = MPI_REQUEST_NULL;
  int x = 0;
  CHECK(cls(MPI_Ibcast(&x, 1, MPI_INT, size, MPI_COMM_WORLD, &req)) == MPI_ERR_ROOT, "ibcast bad root");
  CHECK(cls(MPI_Ibarrier(MPI_COMM_NULL, &req)) == MPI_ERR_COMM, "ibarrier MPI_COMM_NULL");
  CHECK(cls(MPI_Ibarrier(MPI_COMM_WORLD, NULL)) == MPI_ERR_ARG, "ibarrier null request");
  CHECK(cls(MPI_Iallreduce(&x, &x, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &req)) == MPI_ERR_BUFFER, "aliased buffers");
  CHECK(cls(MPI_Iallreduce(&x, &req, -1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &req)) == MPI_ERR_COUNT, "negative count");
  CHECK(cls(MPI_Exscan(&x, &req, 1, MPI_DATATYPE_NULL, MPI_SUM, MPI_COMM_WORLD)) == MPI_ERR_TYPE, "exscan null type");
  CHECK_MPI(MPI_Ibarrier(MPI_COMM_WORLD, &req));
  MPI_Request copy = req;
  CHECK(cls(MPI_Request_free(&copy)) == MPI_ERR_REQUEST, "Request_free of a nonblocking collective");
  CHECK(cls(MPI_Cancel(&copy)) == MPI_ERR_REQUEST, "Cancel of a nonblocking collective");
  MPI_Status st;
  CHECK_MPI(MPI_Wait(&req, &st));
  CHECK(req == MPI_REQUEST_NULL && st.MPI_ERROR == MPI_SUCCESS, "wait after refused free");
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Comm rev;
  CHECK_MPI(MPI_Comm_split(MPI_COMM_WORLD, 0, size - rank, &rev));
  data_movement(MPI_COMM_WORLD);
  reductions(MPI_COMM_WORLD);
  /* The same on a communicator whose ranks run backwards. */
  int wr = rank;
  MPI_Comm_rank(rev, &rank);
  data_movement(rev);
  reductions(rev);
  rank = wr;
  overlap(rev);
  errors();
  MPI_Comm_free(&rev);
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) printf("nbc: ok\n");
  MPI_Finalize();
  return 0;
}
