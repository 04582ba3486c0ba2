/* Process topologies (MPI-1.2 chapter 6) with values checked: Dims_create
 * factorisations, Cart_create / get / rank / coords, Cart_shift at the
 * borders with and without periods (and data moved along the shifts),
 * Cart_sub, Cart_map, Graph_create and its inquiries, Graph_map, Topo_test,
 * dup keeping the topology, and error classes. */
#include <string.h>

#include "comm_check.h"

static int wrank, wsize;

static void expect_dims(int nnodes, int ndims, const int* in, const int* want) {
  int d[8];
  memcpy(d, in, sizeof(int) * (size_t)ndims);
  CHECK_MPI(MPI_Dims_create(nnodes, ndims, d));
  for (int i = 0; i < ndims; ++i)
    CHECK(d[i] == want[i], "Dims_create(%d, %d): dims[%d] = %d, expected %d", nnodes, ndims, i, d[i], want[i]);
}

static void test_dims(void) {
  expect_dims(6, 2, (int[]){0, 0}, (int[]){3, 2});
  expect_dims(8, 3, (int[]){0, 0, 0}, (int[]){2, 2, 2});
  expect_dims(12, 3, (int[]){0, 0, 0}, (int[]){3, 2, 2});
  expect_dims(16, 2, (int[]){0, 0}, (int[]){4, 4});
  expect_dims(16, 3, (int[]){0, 0, 0}, (int[]){4, 2, 2});
  expect_dims(7, 2, (int[]){0, 0}, (int[]){7, 1});
  expect_dims(60, 3, (int[]){0, 0, 0}, (int[]){5, 4, 3});
  expect_dims(12, 3, (int[]){0, 3, 0}, (int[]){2, 3, 2});
  expect_dims(24, 2, (int[]){0, 8}, (int[]){3, 8});
  expect_dims(1, 2, (int[]){0, 0}, (int[]){1, 1});
  int d[2] = {0, 5};
  EXPECT_CLASS(MPI_Dims_create(12, 2, d), MPI_ERR_DIMS);
  int neg[2] = {-2, 0};
  EXPECT_CLASS(MPI_Dims_create(12, 2, neg), MPI_ERR_DIMS);
  EXPECT_CLASS(MPI_Dims_create(12, -1, d), MPI_ERR_DIMS);
}

static void test_cart(int periodic) {
  int dims[2] = {0, 0}, periods[2] = {periodic, periodic}, coords[2], r, n, status;
  MPI_Comm cart;
  CHECK_MPI(MPI_Dims_create(wsize, 2, dims));
  CHECK_MPI(MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 1, &cart));
  CHECK(cart != MPI_COMM_NULL, "every process fits in a %dx%d grid", dims[0], dims[1]);
  CHECK_MPI(MPI_Topo_test(cart, &status));
  CHECK(status == MPI_CART, "Topo_test = %d", status);
  CHECK_MPI(MPI_Cartdim_get(cart, &n));
  CHECK(n == 2, "Cartdim_get = %d", n);
  int gd[2], gp[2], gc[2];
  CHECK_MPI(MPI_Cart_get(cart, 2, gd, gp, gc));
  CHECK(gd[0] == dims[0] && gd[1] == dims[1] && gp[0] == periodic && gp[1] == periodic, "Cart_get dims/periods");
  CHECK_MPI(MPI_Comm_rank(cart, &r));
  CHECK(r == wrank, "identity mapping: cart rank %d", r);
  CHECK(gc[0] == r / dims[1] && gc[1] == r % dims[1], "row-major coords (%d,%d) of rank %d", gc[0], gc[1], r);
  for (int q = 0; q < wsize; ++q) {
    int back;
    CHECK_MPI(MPI_Cart_coords(cart, q, 2, coords));
    CHECK_MPI(MPI_Cart_rank(cart, coords, &back));
    CHECK(back == q, "Cart_rank(Cart_coords(%d)) = %d", q, back);
  }

  /* Shift along each dimension, then move data along it. */
  for (int dim = 0; dim < 2; ++dim) {
    int src, dst, expect_src, expect_dst, got = -1;
    CHECK_MPI(MPI_Cart_shift(cart, dim, 1, &src, &dst));
    int c[2] = {gc[0], gc[1]}, up = gc[dim] + 1, down = gc[dim] - 1;
    if (periodic) {
      c[dim] = up % dims[dim];
      CHECK_MPI(MPI_Cart_rank(cart, c, &expect_dst));
      c[dim] = (down + dims[dim]) % dims[dim];
      CHECK_MPI(MPI_Cart_rank(cart, c, &expect_src));
    } else {
      c[dim] = up;
      expect_dst = up < dims[dim] ? (c[0] * dims[1] + c[1]) : MPI_PROC_NULL;
      c[dim] = down;
      expect_src = down >= 0 ? (c[0] * dims[1] + c[1]) : MPI_PROC_NULL;
    }
    CHECK(src == expect_src && dst == expect_dst, "shift dim %d from (%d,%d): %d/%d, expected %d/%d", dim, gc[0],
          gc[1], src, dst, expect_src, expect_dst);
    MPI_Status st;
    CHECK_MPI(MPI_Sendrecv(&wrank, 1, MPI_INT, dst, dim, &got, 1, MPI_INT, src, dim, cart, &st));
    if (src == MPI_PROC_NULL) CHECK(got == -1 && st.MPI_SOURCE == MPI_PROC_NULL, "receive from MPI_PROC_NULL");
    else CHECK(got == src, "shifted value %d, expected %d", got, src);
    /* A displacement of a whole period comes back to me (periodic) or
     * leaves the grid (not periodic). */
    CHECK_MPI(MPI_Cart_shift(cart, dim, dims[dim], &src, &dst));
    if (periodic) CHECK(src == wrank && dst == wrank, "full-period shift gives %d/%d", src, dst);
    else CHECK(src == MPI_PROC_NULL && dst == MPI_PROC_NULL, "full-length shift gives %d/%d", src, dst);
  }

  /* Rows: keep dimension 1. */
  MPI_Comm row;
  int remain[2] = {0, 1};
  CHECK_MPI(MPI_Cart_sub(cart, remain, &row));
  CHECK_MPI(MPI_Comm_size(row, &n));
  CHECK(n == dims[1], "row size %d", n);
  CHECK_MPI(MPI_Comm_rank(row, &r));
  CHECK(r == gc[1], "rank in row %d, expected column %d", r, gc[1]);
  CHECK_MPI(MPI_Cartdim_get(row, &n));
  CHECK(n == 1, "row has %d dimensions", n);
  int rd, rp, rc;
  CHECK_MPI(MPI_Cart_get(row, 1, &rd, &rp, &rc));
  CHECK(rd == dims[1] && rp == periodic && rc == gc[1], "row Cart_get %d %d %d", rd, rp, rc);
  int sum = 0, left, right, v = wrank;
  CHECK_MPI(MPI_Cart_shift(row, 0, 1, &left, &right));
  /* Sum of world ranks along the row, by passing around. */
  for (int step = 0; step < dims[1]; ++step) {
    sum += v;
    int s = (r + 1) % dims[1], from = (r - 1 + dims[1]) % dims[1], in;
    CHECK_MPI(MPI_Sendrecv(&v, 1, MPI_INT, s, 0, &in, 1, MPI_INT, from, 0, row, MPI_STATUS_IGNORE));
    v = in;
  }
  int want = 0;
  for (int k = 0; k < dims[1]; ++k) want += gc[0] * dims[1] + k;
  CHECK(sum == want, "row sum %d, expected %d", sum, want);
  CHECK_MPI(MPI_Comm_free(&row));

  /* Keep nothing: everyone alone in a 0-dimensional grid. */
  int none[2] = {0, 0};
  MPI_Comm alone;
  CHECK_MPI(MPI_Cart_sub(cart, none, &alone));
  CHECK_MPI(MPI_Comm_size(alone, &n));
  CHECK(n == 1, "Cart_sub keeping nothing: size %d", n);
  CHECK_MPI(MPI_Cartdim_get(alone, &n));
  CHECK(n == 0, "0-dimensional: %d", n);
  CHECK_MPI(MPI_Comm_free(&alone));

  /* dup keeps the topology. */
  MPI_Comm d;
  CHECK_MPI(MPI_Comm_dup(cart, &d));
  CHECK_MPI(MPI_Topo_test(d, &status));
  CHECK(status == MPI_CART, "dup lost the topology (%d)", status);
  CHECK_MPI(MPI_Cart_get(d, 2, gd, gp, gc));
  CHECK(gd[0] == dims[0] && gd[1] == dims[1], "dup dims");
  CHECK_MPI(MPI_Comm_free(&d));

  /* Errors. */
  CHECK_MPI(MPI_Errhandler_set(cart, MPI_ERRORS_RETURN));
  int bad_coords[2] = {dims[0], 0};
  if (!periodic) EXPECT_CLASS(MPI_Cart_rank(cart, bad_coords, &r), MPI_ERR_ARG);
  EXPECT_CLASS(MPI_Cart_coords(cart, wsize, 2, coords), MPI_ERR_RANK);
  EXPECT_CLASS(MPI_Cart_shift(cart, 2, 1, &r, &n), MPI_ERR_DIMS);
  EXPECT_CLASS(MPI_Cart_get(cart, 1, gd, gp, gc), MPI_ERR_ARG);
  EXPECT_CLASS(MPI_Graphdims_get(cart, &r, &n), MPI_ERR_TOPOLOGY);
  CHECK_MPI(MPI_Comm_free(&cart));
}

static void test_grid_smaller_than_world(void) {
  int dims[1] = {wsize - 1}, periods[1] = {0}, r;
  MPI_Comm c;
  if (wsize < 2) return;
  CHECK_MPI(MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 0, &c));
  if (wrank == wsize - 1) {
    CHECK(c == MPI_COMM_NULL, "process outside the grid got a communicator");
  } else {
    CHECK_MPI(MPI_Comm_rank(c, &r));
    CHECK(r == wrank, "rank %d in the smaller grid", r);
    CHECK_MPI(MPI_Comm_free(&c));
  }
  CHECK_MPI(MPI_Cart_map(MPI_COMM_WORLD, 1, dims, periods, &r));
  CHECK(r == (wrank < wsize - 1 ? wrank : MPI_UNDEFINED), "Cart_map gave %d", r);
}

/* A ring with one chord 0-(n/2) as a graph. */
static void test_graph(void) {
  int index[64], edges[256], ne = 0, n, m, status;
  MPI_Comm g;
  if (wsize < 3) return;
  for (int i = 0; i < wsize; ++i) {
    edges[ne++] = (i + 1) % wsize;
    edges[ne++] = (i - 1 + wsize) % wsize;
    if (i == 0) edges[ne++] = wsize / 2;
    if (i == wsize / 2) edges[ne++] = 0;
    index[i] = ne;
  }
  CHECK_MPI(MPI_Graph_create(MPI_COMM_WORLD, wsize, index, edges, 1, &g));
  CHECK_MPI(MPI_Topo_test(g, &status));
  CHECK(status == MPI_GRAPH, "Topo_test = %d", status);
  CHECK_MPI(MPI_Graphdims_get(g, &n, &m));
  CHECK(n == wsize && m == ne, "Graphdims_get %d %d", n, m);
  int gi[64], ge[256];
  CHECK_MPI(MPI_Graph_get(g, wsize, ne, gi, ge));
  CHECK(memcmp(gi, index, sizeof(int) * (size_t)wsize) == 0 && memcmp(ge, edges, sizeof(int) * (size_t)ne) == 0,
        "Graph_get returned other arrays");
  int count, nb[8];
  CHECK_MPI(MPI_Graph_neighbors_count(g, wrank, &count));
  CHECK(count == (wrank == 0 || wrank == wsize / 2 ? 3 : 2), "degree %d", count);
  CHECK_MPI(MPI_Graph_neighbors(g, wrank, 8, nb));
  CHECK(nb[0] == (wrank + 1) % wsize && nb[1] == (wrank - 1 + wsize) % wsize, "neighbours %d %d", nb[0], nb[1]);
  /* Exchange with every neighbour. */
  MPI_Request reqs[16];
  int got[8];
  for (int k = 0; k < count; ++k) {
    CHECK_MPI(MPI_Irecv(&got[k], 1, MPI_INT, nb[k], 0, g, &reqs[2 * k]));
    CHECK_MPI(MPI_Isend(&wrank, 1, MPI_INT, nb[k], 0, g, &reqs[2 * k + 1]));
  }
  CHECK_MPI(MPI_Waitall(2 * count, reqs, MPI_STATUSES_IGNORE));
  for (int k = 0; k < count; ++k) CHECK(got[k] == nb[k], "neighbour %d sent %d", nb[k], got[k]);
  int r;
  /* A ring over all but the last process. */
  int ring_index[64], ring_edges[64];
  for (int i = 0; i < wsize - 1; ++i) {
    ring_index[i] = i + 1;
    ring_edges[i] = (i + 1) % (wsize - 1);
  }
  CHECK_MPI(MPI_Graph_map(MPI_COMM_WORLD, wsize - 1, ring_index, ring_edges, &r));
  CHECK(r == (wrank < wsize - 1 ? wrank : MPI_UNDEFINED), "Graph_map gave %d", r);
  CHECK_MPI(MPI_Errhandler_set(g, MPI_ERRORS_RETURN));
  EXPECT_CLASS(MPI_Graph_neighbors_count(g, wsize, &count), MPI_ERR_RANK);
  EXPECT_CLASS(MPI_Cartdim_get(g, &count), MPI_ERR_TOPOLOGY);
  int bad_edges[2] = {1, wsize};
  int bad_index[2] = {1, 2};
  EXPECT_CLASS(MPI_Graph_create(g, 2, bad_index, bad_edges, 0, &g), MPI_ERR_ARG);
  CHECK_MPI(MPI_Comm_free(&g));
}

int main(int argc, char** argv) {
  int status;
  CHECK_MPI(MPI_Init(&argc, &argv));
  CHECK_MPI(MPI_Comm_rank(MPI_COMM_WORLD, &wrank));
  CHECK_MPI(MPI_Comm_size(MPI_COMM_WORLD, &wsize));
  CHECK(wsize <= 64, "at most 64 processes");
  CHECK_MPI(MPI_Errhandler_set(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
  test_dims();
  CHECK_MPI(MPI_Topo_test(MPI_COMM_WORLD, &status));
  CHECK(status == MPI_UNDEFINED, "world has a topology? %d", status);
  test_cart(0);
  test_cart(1);
  test_grid_smaller_than_world();
  test_graph();
  int dims[2] = {wsize, 2}, periods[2] = {0, 0};
  MPI_Comm c;
  EXPECT_CLASS(MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &c), MPI_ERR_DIMS);
  EXPECT_CLASS(MPI_Cart_create(MPI_COMM_WORLD, -1, dims, periods, 0, &c), MPI_ERR_DIMS);
  EXPECT_CLASS(MPI_Cart_shift(MPI_COMM_WORLD, 0, 1, &status, &status), MPI_ERR_TOPOLOGY);
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  if (wrank == 0) printf("topo: ok\n");
  CHECK_MPI(MPI_Finalize());
  return 0;
}
