/* Collectives on an intercommunicator (MPI-3.1 §5.2.2): MPI_COMM_WORLD is
 * split into even and odd ranks (np 4: 2 + 2, np 5: 3 + 2, np 7: 4 + 3) and
 * joined by MPI_Intercomm_create; every collective with an intercommunicator
 * form runs in both directions and each process checks the values it gets
 * from the other group (and that MPI_PROC_NULL roots' buffers stay
 * untouched). Scan and Exscan must fail with MPI_ERR_COMM; bad roots with
 * MPI_ERR_ROOT; MPI_IN_PLACE with MPI_ERR_BUFFER. */
#include <stdlib.h>
#include <string.h>

#include "check.h"

static int color, lr, ln, rn;
static MPI_Comm inter;

/* The root argument for a root at local rank `at` of group `g`. */
static int root_arg(int g, int at) {
  if (color != g) return at;
  return lr == at ? MPI_ROOT : MPI_PROC_NULL;
}

static int size_of(int g) { return g == color ? ln : rn; }

static void bcasts(void) {
  for (int g = 0; g < 2; ++g) {
    const int at = size_of(g) - 1;
    int buf[4] = {-1, -1, -1, -1};
    const int root = root_arg(g, at);
    if (root == MPI_ROOT)
      for (int i = 0; i < 4; ++i) buf[i] = 100 * g + i;
    CHECK_MPI(MPI_Bcast(buf, 4, MPI_INT, root, inter));
    for (int i = 0; i < 4; ++i) {
      const int want = root == MPI_PROC_NULL ? -1 : 100 * g + i;
      CHECK(buf[i] == want, "bcast from group %d: [%d] = %d, expected %d", g, i, buf[i], want);
    }
  }
  /* A strided type on both sides: holes stay untouched. */
  MPI_Datatype every_other;
  CHECK_MPI(MPI_Type_vector(3, 1, 2, MPI_INT, &every_other));
  CHECK_MPI(MPI_Type_commit(&every_other));
  int v[5] = {-1, -1, -1, -1, -1};
  const int root = root_arg(1, 0);
  if (root == MPI_ROOT) v[0] = 7, v[2] = 8, v[4] = 9;
  CHECK_MPI(MPI_Bcast(v, 1, every_other, root, inter));
  if (color == 0)
    CHECK(v[0] == 7 && v[1] == -1 && v[2] == 8 && v[3] == -1 && v[4] == 9, "strided bcast %d %d %d %d %d", v[0], v[1],
          v[2], v[3], v[4]);
  CHECK_MPI(MPI_Type_free(&every_other));
}

static void reductions(void) {
  /* Reduce to local rank 0 of group 1 from group 0. */
  int in[2] = {lr + 1, 10 * (lr + 1)}, out[2] = {-1, -1};
  const int root = root_arg(1, 0);
  CHECK_MPI(MPI_Reduce(in, out, 2, MPI_INT, MPI_SUM, root, inter));
  if (root == MPI_ROOT) {
    const int s = rn * (rn + 1) / 2;
    CHECK(out[0] == s && out[1] == 10 * s, "reduce: %d %d, expected %d %d", out[0], out[1], s, 10 * s);
  } else {
    CHECK(out[0] == -1 && out[1] == -1, "reduce wrote a non-root's buffer");
  }
  /* Allreduce: each group gets the other's sum and max. */
  long long mine = 1000LL * color + lr, sum = -1, mx = -1;
  CHECK_MPI(MPI_Allreduce(&mine, &sum, 1, MPI_LONG_LONG, MPI_SUM, inter));
  CHECK_MPI(MPI_Allreduce(&mine, &mx, 1, MPI_LONG_LONG, MPI_MAX, inter));
  const long long want = 1000LL * (1 - color) * rn + (long long)rn * (rn - 1) / 2;
  CHECK(sum == want, "allreduce: %lld, expected %lld", sum, want);
  CHECK(mx == 1000LL * (1 - color) + rn - 1, "allreduce max: %lld", mx);
}

static void reduce_scatters(void) {
  /* Both groups' vectors are 12 long; each group spreads them its own way. */
  const int total = 12;
  int* counts = malloc(sizeof(int) * (size_t)ln);
  int displ = 0, my_displ = 0;
  for (int i = 0; i < ln; ++i) {
    counts[i] = total / ln + (i < total % ln);
    if (i == lr) my_displ = displ;
    displ += counts[i];
  }
  int in[12], out[13];
  for (int k = 0; k < total; ++k) in[k] = (color + 1) * (lr + 1) + k, out[k] = -1;
  out[12] = -1;
  CHECK_MPI(MPI_Reduce_scatter(in, out, counts, MPI_INT, MPI_SUM, inter));
  const int other = 2 - color; /* (1 - color) + 1 */
  for (int j = 0; j < counts[lr]; ++j) {
    const int k = my_displ + j;
    const int want = other * rn * (rn + 1) / 2 + rn * k;
    CHECK(out[j] == want, "reduce_scatter [%d] = %d, expected %d", j, out[j], want);
  }
  CHECK(out[counts[lr]] == -1, "reduce_scatter wrote past its block");
  /* Block form: recvcount * group size is the same in both groups. */
  const int rc = rn;
  int* vin = malloc(sizeof(int) * (size_t)(ln * rc));
  int vout[16];
  for (int k = 0; k < ln * rc; ++k) vin[k] = color * 50 + lr + k;
  CHECK_MPI(MPI_Reduce_scatter_block(vin, vout, rc, MPI_INT, MPI_SUM, inter));
  for (int j = 0; j < rc; ++j) {
    const int k = lr * rc + j;
    const int want = (1 - color) * 50 * rn + rn * (rn - 1) / 2 + rn * k;
    CHECK(vout[j] == want, "reduce_scatter_block [%d] = %d, expected %d", j, vout[j], want);
  }
  free(vin);
  free(counts);
}

static void gathers_and_scatters(void) {
  /* Gather to local rank 0 of group 0 from group 1: 3 ints each. */
  int s3[3] = {lr, 2 * lr, 3 * lr};
  int* all = malloc(sizeof(int) * 3 * 8);
  for (int i = 0; i < 24; ++i) all[i] = -1;
  int root = root_arg(0, 0);
  CHECK_MPI(MPI_Gather(s3, 3, MPI_INT, all, 3, MPI_INT, root, inter));
  if (root == MPI_ROOT)
    for (int r = 0; r < rn; ++r)
      for (int j = 0; j < 3; ++j) CHECK(all[3 * r + j] == (j + 1) * r, "gather block %d [%d] = %d", r, j, all[3 * r + j]);
  /* Gatherv to the last rank of group 1: r + 1 ints from remote rank r, a gap of one between blocks. */
  int counts[8], displs[8], d = 0;
  for (int r = 0; r < 8; ++r) counts[r] = r + 1, displs[r] = d, d += r + 2;
  int sv[8];
  for (int j = 0; j <= lr; ++j) sv[j] = 100 * lr + j;
  int gv[64];
  for (int i = 0; i < 64; ++i) gv[i] = -1;
  root = root_arg(1, size_of(1) - 1);
  CHECK_MPI(MPI_Gatherv(sv, lr + 1, MPI_INT, gv, counts, displs, MPI_INT, root, inter));
  if (root == MPI_ROOT)
    for (int r = 0; r < rn; ++r) {
      for (int j = 0; j <= r; ++j) CHECK(gv[displs[r] + j] == 100 * r + j, "gatherv %d/%d: %d", r, j, gv[displs[r] + j]);
      CHECK(gv[displs[r] + r + 1] == -1, "gatherv wrote a gap");
    }
  /* Scatter from local rank 0 of group 1: {r, -r} to remote rank r. */
  int src[16], got[2] = {-1, -1};
  for (int r = 0; r < 8; ++r) src[2 * r] = r, src[2 * r + 1] = -r;
  root = root_arg(1, 0);
  CHECK_MPI(MPI_Scatter(src, 2, MPI_INT, got, 2, MPI_INT, root, inter));
  if (color == 0) CHECK(got[0] == lr && got[1] == -lr, "scatter got %d %d", got[0], got[1]);
  else CHECK(got[0] == -1, "scatter wrote on the root's side");
  /* Scatterv from the last rank of group 0: r + 1 ints to remote rank r. */
  int sbig[64], rv[8];
  for (int r = 0; r < 8; ++r)
    for (int j = 0; j <= r; ++j) sbig[displs[r] + j] = 1000 + 10 * r + j;
  for (int j = 0; j < 8; ++j) rv[j] = -1;
  root = root_arg(0, size_of(0) - 1);
  CHECK_MPI(MPI_Scatterv(sbig, counts, displs, MPI_INT, rv, lr + 1, MPI_INT, root, inter));
  if (color == 1) {
    for (int j = 0; j <= lr; ++j) CHECK(rv[j] == 1000 + 10 * lr + j, "scatterv [%d] = %d", j, rv[j]);
    CHECK(rv[lr + 1] == -1, "scatterv wrote past the block");
  }
  free(all);
}

static void all_to_all(void) {
  /* Allgather: {color, lr} from every remote process. */
  int mine[2] = {color, lr}, ag[16];
  CHECK_MPI(MPI_Allgather(mine, 2, MPI_INT, ag, 2, MPI_INT, inter));
  for (int r = 0; r < rn; ++r)
    CHECK(ag[2 * r] == 1 - color && ag[2 * r + 1] == r, "allgather block %d: %d %d", r, ag[2 * r], ag[2 * r + 1]);
  /* Allgatherv: r + 1 ints from remote rank r, with gaps. */
  int counts[8], displs[8], d = 0;
  for (int r = 0; r < 8; ++r) counts[r] = r + 1, displs[r] = d, d += r + 2;
  int sv[8], gv[64];
  for (int j = 0; j <= lr; ++j) sv[j] = 10000 * color + 100 * lr + j;
  for (int i = 0; i < 64; ++i) gv[i] = -1;
  CHECK_MPI(MPI_Allgatherv(sv, lr + 1, MPI_INT, gv, counts, displs, MPI_INT, inter));
  for (int r = 0; r < rn; ++r) {
    for (int j = 0; j <= r; ++j)
      CHECK(gv[displs[r] + j] == 10000 * (1 - color) + 100 * r + j, "allgatherv %d/%d: %d", r, j, gv[displs[r] + j]);
    CHECK(gv[displs[r] + r + 1] == -1, "allgatherv wrote a gap");
  }
  /* Alltoall: to remote r the value color, lr, r. */
  int a2s[8], a2r[8];
  for (int r = 0; r < rn; ++r) a2s[r] = 10000 * color + 100 * lr + r, a2r[r] = -1;
  CHECK_MPI(MPI_Alltoall(a2s, 1, MPI_INT, a2r, 1, MPI_INT, inter));
  for (int r = 0; r < rn; ++r)
    CHECK(a2r[r] == 10000 * (1 - color) + 100 * r + lr, "alltoall from %d: %d", r, a2r[r]);
  /* Alltoallv: (lr + r) % 3 + 1 ints between local lr and remote r, both ways. */
  int sc[8], sd[8], rc[8], rd[8], vs[64], vr[64], so = 0, ro = 0;
  for (int r = 0; r < rn; ++r) {
    sc[r] = rc[r] = (lr + r) % 3 + 1;
    sd[r] = so, rd[r] = ro;
    for (int j = 0; j < sc[r]; ++j) vs[so + j] = 10000 * color + 1000 * lr + 10 * r + j;
    so += sc[r], ro += rc[r] + 1;
  }
  for (int i = 0; i < 64; ++i) vr[i] = -1;
  CHECK_MPI(MPI_Alltoallv(vs, sc, sd, MPI_INT, vr, rc, rd, MPI_INT, inter));
  for (int r = 0; r < rn; ++r) {
    for (int j = 0; j < rc[r]; ++j)
      CHECK(vr[rd[r] + j] == 10000 * (1 - color) + 1000 * r + 10 * lr + j, "alltoallv from %d [%d] = %d", r, j,
            vr[rd[r] + j]);
    CHECK(vr[rd[r] + rc[r]] == -1, "alltoallv wrote a gap");
  }
  /* Alltoallw: a double to each remote process, byte displacements. */
  double ws[8], wr[8];
  int wc[8], wdisp[8];
  MPI_Datatype wt[8];
  for (int r = 0; r < rn; ++r) ws[r] = color + lr * 0.5 + r * 0.25, wr[r] = -1, wc[r] = 1, wdisp[r] = r * 8, wt[r] = MPI_DOUBLE;
  CHECK_MPI(MPI_Alltoallw(ws, wc, wdisp, wt, wr, wc, wdisp, wt, inter));
  for (int r = 0; r < rn; ++r) CHECK(wr[r] == (1 - color) + r * 0.5 + lr * 0.25, "alltoallw from %d: %g", r, wr[r]);
}

static void errors(void) {
  MPI_Comm_set_errhandler(inter, MPI_ERRORS_RETURN);
  int x = 1, y = 0;
  CHECK(cls(MPI_Scan(&x, &y, 1, MPI_INT, MPI_SUM, inter)) == MPI_ERR_COMM, "scan on an intercommunicator");
  CHECK(cls(MPI_Exscan(&x, &y, 1, MPI_INT, MPI_SUM, inter)) == MPI_ERR_COMM, "exscan on an intercommunicator");
  CHECK(cls(MPI_Bcast(&x, 1, MPI_INT, rn, inter)) == MPI_ERR_ROOT, "bcast root = remote size");
  CHECK(cls(MPI_Bcast(&x, 1, MPI_INT, -7, inter)) == MPI_ERR_ROOT, "bcast root -7");
  CHECK(cls(MPI_Allreduce(MPI_IN_PLACE, &y, 1, MPI_INT, MPI_SUM, inter)) == MPI_ERR_BUFFER, "allreduce in place");
  CHECK(cls(MPI_Allreduce(&x, &y, 1, MPI_INT, MPI_OP_NULL, inter)) == MPI_ERR_OP, "allreduce MPI_OP_NULL");
  MPI_Comm_set_errhandler(inter, MPI_ERRORS_ARE_FATAL);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  CHECK(size >= 2 && size <= 16, "needs 2-16 processes");
  color = rank % 2;
  MPI_Comm local;
  CHECK_MPI(MPI_Comm_split(MPI_COMM_WORLD, color, rank, &local));
  CHECK_MPI(MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, 1 - color, 77, &inter));
  MPI_Comm_rank(inter, &lr);
  MPI_Comm_size(inter, &ln);
  MPI_Comm_remote_size(inter, &rn);
  for (int round = 0; round < 3; ++round) {
    CHECK_MPI(MPI_Barrier(inter));
    bcasts();
    reductions();
    reduce_scatters();
    gathers_and_scatters();
    all_to_all();
  }
  errors();
  /* A duplicate runs its own collectives. */
  MPI_Comm dup;
  CHECK_MPI(MPI_Comm_dup(inter, &dup));
  long long one = 1, n = 0;
  CHECK_MPI(MPI_Allreduce(&one, &n, 1, MPI_LONG_LONG, MPI_SUM, dup));
  CHECK(n == rn, "allreduce on the duplicate: %lld", n);
  CHECK_MPI(MPI_Comm_free(&dup));
  CHECK_MPI(MPI_Comm_free(&inter));
  CHECK_MPI(MPI_Comm_free(&local));
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) printf("intercoll: ok\n");
  MPI_Finalize();
  return 0;
}
