/* MPI-2 datatype calls in a real job: the create_ constructors, resized,
 * indexed_block, subarray, Type_dup, extents (with MPI_Count forms),
 * envelopes and contents, datatype attributes. Each derived type is also
 * sent between ranks and the received values are checked. */
#include <string.h>

#include "check.h"

struct item {
  int i;
  double d;
  char c;
};

static int g_type_copies = 0, g_type_deletes = 0;

static int tcopy(MPI_Datatype t, int k, void* extra, void* in, void* out, int* flag) {
  (void)t;
  (void)k;
  (void)extra;
  ++g_type_copies;
  *(void**)out = in;
  *flag = 1;
  return MPI_SUCCESS;
}

static int tdelete(MPI_Datatype t, int k, void* v, void* extra) {
  (void)t;
  (void)k;
  (void)v;
  (void)extra;
  ++g_type_deletes;
  return MPI_SUCCESS;
}

/* Rank 0 sends `count` items of t from sbuf; every other rank receives
 * into rbuf (prefilled with -1 ints) and compares with `expect` ints. */
static void xfer_ints(MPI_Datatype t, int count, int* sbuf, int* rbuf, int n, const int* expect, int rank,
                      int size) {
  if (rank == 0) {
    for (int r = 1; r < size; ++r) CHECK_MPI(MPI_Send(sbuf, count, t, r, 5, MPI_COMM_WORLD));
    return;
  }
  for (int i = 0; i < n; ++i) rbuf[i] = -1;
  CHECK_MPI(MPI_Recv(rbuf, count, t, 0, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
  for (int i = 0; i < n; ++i) CHECK(rbuf[i] == expect[i], "element %d: %d, expected %d", i, rbuf[i], expect[i]);
}

static void structs(int rank, int size) {
  struct item items[3];
  memset(items, 0, sizeof items);
  MPI_Aint base, a_i, a_d, a_c;
  CHECK_MPI(MPI_Get_address(&items[0], &base));
  CHECK_MPI(MPI_Get_address(&items[0].i, &a_i));
  CHECK_MPI(MPI_Get_address(&items[0].d, &a_d));
  CHECK_MPI(MPI_Get_address(&items[0].c, &a_c));
  int lens[3] = {1, 1, 1};
  MPI_Aint disp[3] = {a_i - base, a_d - base, a_c - base};
  MPI_Datatype types[3] = {MPI_INT, MPI_DOUBLE, MPI_CHAR};
  MPI_Datatype st, item_t;
  CHECK_MPI(MPI_Type_create_struct(3, lens, disp, types, &st));
  MPI_Aint lb, ext;
  CHECK_MPI(MPI_Type_get_extent(st, &lb, &ext));
  CHECK(lb == 0 && ext == (MPI_Aint)sizeof(struct item), "struct lb %ld extent %ld", (long)lb, (long)ext);
  CHECK_MPI(MPI_Type_create_resized(st, 0, sizeof(struct item), &item_t));
  CHECK_MPI(MPI_Type_commit(&item_t));
  MPI_Count size_x = 0, lb_x = -1, ext_x = 0;
  CHECK_MPI(MPI_Type_size_x(item_t, &size_x));
  CHECK(size_x == (MPI_Count)(sizeof(int) + sizeof(double) + 1), "size_x %lld", size_x);
  CHECK_MPI(MPI_Type_get_extent_x(item_t, &lb_x, &ext_x));
  CHECK(lb_x == 0 && ext_x == (MPI_Count)sizeof(struct item), "extent_x");
  MPI_Aint tlb, text;
  CHECK_MPI(MPI_Type_get_true_extent(item_t, &tlb, &text));
  CHECK(tlb == 0 && text == a_c - base + 1, "true extent %ld", (long)text);
  if (rank == 0) {
    for (int k = 0; k < 3; ++k) {
      items[k].i = 10 + k;
      items[k].d = 0.5 * k;
      items[k].c = (char)('a' + k);
    }
    for (int r = 1; r < size; ++r) CHECK_MPI(MPI_Send(items, 3, item_t, r, 1, MPI_COMM_WORLD));
  } else {
    memset(items, 0, sizeof items);
    MPI_Status st_;
    CHECK_MPI(MPI_Recv(items, 3, item_t, 0, 1, MPI_COMM_WORLD, &st_));
    for (int k = 0; k < 3; ++k)
      CHECK(items[k].i == 10 + k && items[k].d == 0.5 * k && items[k].c == 'a' + k, "item %d", k);
    MPI_Count elems = 0;
    CHECK_MPI(MPI_Get_elements_x(&st_, item_t, &elems));
    CHECK(elems == 9, "Get_elements_x %lld", elems);
  }
  /* Envelope and contents of the struct. */
  int ni, na, nd, comb;
  CHECK_MPI(MPI_Type_get_envelope(st, &ni, &na, &nd, &comb));
  CHECK(comb == MPI_COMBINER_STRUCT && ni == 4 && na == 3 && nd == 3, "struct envelope %d %d %d %d", ni, na, nd, comb);
  int ints[4];
  MPI_Aint aints[3];
  MPI_Datatype dts[3];
  CHECK_MPI(MPI_Type_get_contents(st, 4, 3, 3, ints, aints, dts));
  CHECK(ints[0] == 3 && ints[1] == 1 && aints[1] == disp[1] && dts[1] == MPI_DOUBLE, "struct contents");
  CHECK_MPI(MPI_Type_get_envelope(item_t, &ni, &na, &nd, &comb));
  CHECK(comb == MPI_COMBINER_RESIZED && ni == 0 && na == 2 && nd == 1, "resized envelope");
  CHECK_MPI(MPI_Type_get_contents(item_t, 0, 2, 1, ints, aints, dts));
  CHECK(aints[0] == 0 && aints[1] == (MPI_Aint)sizeof(struct item), "resized contents");
  /* The contents' derived type is a new handle of the same type. */
  CHECK(dts[0] != st, "get_contents must return a new handle for a derived type");
  CHECK_MPI(MPI_Type_get_envelope(dts[0], &ni, &na, &nd, &comb));
  CHECK(comb == MPI_COMBINER_STRUCT, "the returned type's envelope");
  CHECK_MPI(MPI_Type_free(&dts[0]));
  CHECK_MPI(MPI_Type_get_envelope(MPI_INT, &ni, &na, &nd, &comb));
  CHECK(comb == MPI_COMBINER_NAMED && ni == 0 && na == 0 && nd == 0, "named envelope");
  CHECK(cls(MPI_Type_get_contents(MPI_INT, 0, 0, 0, ints, aints, dts)) == MPI_ERR_TYPE, "contents of MPI_INT");
  CHECK_MPI(MPI_Type_free(&st));
  CHECK_MPI(MPI_Type_free(&item_t));
}

static void vectors(int rank, int size) {
  int src[24], dst[24], expect[24];
  for (int i = 0; i < 24; ++i) src[i] = i;
  /* hvector: 3 blocks of 2 ints, 5 ints apart. */
  MPI_Datatype hv;
  CHECK_MPI(MPI_Type_create_hvector(3, 2, 5 * sizeof(int), MPI_INT, &hv));
  CHECK_MPI(MPI_Type_commit(&hv));
  for (int i = 0; i < 24; ++i) expect[i] = -1;
  for (int b = 0; b < 3; ++b)
    for (int k = 0; k < 2; ++k) expect[5 * b + k] = 5 * b + k;
  xfer_ints(hv, 1, src, dst, 24, expect, rank, size);
  /* hindexed and indexed_block. */
  int lens[2] = {3, 1};
  MPI_Aint hdisp[2] = {4 * sizeof(int), 20 * sizeof(int)};
  MPI_Datatype hi, ib;
  CHECK_MPI(MPI_Type_create_hindexed(2, lens, hdisp, MPI_INT, &hi));
  CHECK_MPI(MPI_Type_commit(&hi));
  for (int i = 0; i < 24; ++i) expect[i] = -1;
  expect[4] = 4, expect[5] = 5, expect[6] = 6, expect[20] = 20;
  xfer_ints(hi, 1, src, dst, 24, expect, rank, size);
  int idisp[3] = {7, 1, 15};
  CHECK_MPI(MPI_Type_create_indexed_block(3, 2, idisp, MPI_INT, &ib));
  CHECK_MPI(MPI_Type_commit(&ib));
  for (int i = 0; i < 24; ++i) expect[i] = -1;
  for (int b = 0; b < 3; ++b) expect[idisp[b]] = idisp[b], expect[idisp[b] + 1] = idisp[b] + 1;
  xfer_ints(ib, 1, src, dst, 24, expect, rank, size);
  int ni, na, nd, comb;
  CHECK_MPI(MPI_Type_get_envelope(ib, &ni, &na, &nd, &comb));
  CHECK(comb == MPI_COMBINER_INDEXED_BLOCK && ni == 5 && na == 0 && nd == 1, "indexed_block envelope");
  int ints[5];
  MPI_Datatype old;
  CHECK_MPI(MPI_Type_get_contents(ib, 5, 0, 1, ints, NULL, &old));
  CHECK(ints[0] == 3 && ints[1] == 2 && ints[2] == 7 && ints[4] == 15 && old == MPI_INT, "indexed_block contents");
  /* A resized int with extent 3 ints: count 4 picks every third. */
  MPI_Datatype every3;
  CHECK_MPI(MPI_Type_create_resized(MPI_INT, 0, 3 * sizeof(int), &every3));
  CHECK_MPI(MPI_Type_commit(&every3));
  for (int i = 0; i < 24; ++i) expect[i] = i % 3 == 0 && i < 12 ? i : -1;
  xfer_ints(every3, 4, src, dst, 24, expect, rank, size);
  /* Its extent sticks in a contiguous type built on it. */
  MPI_Datatype c2;
  MPI_Aint lb, ext;
  CHECK_MPI(MPI_Type_contiguous(2, every3, &c2));
  CHECK_MPI(MPI_Type_get_extent(c2, &lb, &ext));
  CHECK(lb == 0 && ext == (MPI_Aint)(6 * sizeof(int)), "contiguous of resized: extent %ld", (long)ext);
  MPI_Type_free(&c2);
  MPI_Type_free(&every3);
  MPI_Type_free(&hv);
  MPI_Type_free(&hi);
  MPI_Type_free(&ib);
}

static void subarrays(int rank, int size) {
  /* A 2x3 block at (1, 2) of a 4x6 C array of ints. */
  int sizes[2] = {4, 6}, subs[2] = {2, 3}, starts[2] = {1, 2};
  MPI_Datatype sub;
  CHECK_MPI(MPI_Type_create_subarray(2, sizes, subs, starts, MPI_ORDER_C, MPI_INT, &sub));
  CHECK_MPI(MPI_Type_commit(&sub));
  MPI_Aint lb, ext;
  CHECK_MPI(MPI_Type_get_extent(sub, &lb, &ext));
  CHECK(lb == 0 && ext == (MPI_Aint)(24 * sizeof(int)), "subarray lb %ld extent %ld", (long)lb, (long)ext);
  int src[24], dst[24], expect[24];
  for (int i = 0; i < 24; ++i) src[i] = i, expect[i] = -1;
  for (int r = 1; r < 3; ++r)
    for (int c = 2; c < 5; ++c) expect[r * 6 + c] = r * 6 + c;
  xfer_ints(sub, 1, src, dst, 24, expect, rank, size);
  MPI_Type_free(&sub);
  /* The same block in Fortran order: dimension 0 varies fastest. */
  int fsizes[2] = {6, 4}, fsubs[2] = {3, 2}, fstarts[2] = {2, 1};
  CHECK_MPI(MPI_Type_create_subarray(2, fsizes, fsubs, fstarts, MPI_ORDER_FORTRAN, MPI_INT, &sub));
  CHECK_MPI(MPI_Type_commit(&sub));
  xfer_ints(sub, 1, src, dst, 24, expect, rank, size);
  MPI_Type_free(&sub);
  int bad_starts[2] = {3, 0};
  CHECK(cls(MPI_Type_create_subarray(2, sizes, subs, bad_starts, MPI_ORDER_C, MPI_INT, &sub)) == MPI_ERR_ARG,
        "a block outside the array");
  CHECK(cls(MPI_Type_create_subarray(2, sizes, subs, starts, 7, MPI_INT, &sub)) == MPI_ERR_ARG, "a bad order");
}

static void dups_and_attrs(void) {
  int key;
  CHECK_MPI(MPI_Type_create_keyval(tcopy, tdelete, &key, NULL));
  MPI_Datatype v, d;
  CHECK_MPI(MPI_Type_vector(2, 1, 3, MPI_DOUBLE, &v));
  CHECK_MPI(MPI_Type_commit(&v));
  static int value = 42;
  CHECK_MPI(MPI_Type_set_attr(v, key, &value));
  CHECK_MPI(MPI_Type_dup(v, &d));
  CHECK(g_type_copies == 1, "copy callback ran %d times", g_type_copies);
  int* got = NULL;
  int flag = 0;
  CHECK_MPI(MPI_Type_get_attr(d, key, &got, &flag));
  CHECK(flag && got == &value, "dup's attribute");
  MPI_Aint lb1, e1, lb2, e2;
  MPI_Type_get_extent(v, &lb1, &e1);
  MPI_Type_get_extent(d, &lb2, &e2);
  CHECK(lb1 == lb2 && e1 == e2, "dup has other bounds");
  int ni, na, nd, comb;
  CHECK_MPI(MPI_Type_get_envelope(d, &ni, &na, &nd, &comb));
  CHECK(comb == MPI_COMBINER_DUP && nd == 1, "dup envelope");
  /* The dup of a committed type is committed: usable at once. */
  double buf[4] = {1, 2, 3, 4}, out[4] = {0, 0, 0, 0};
  MPI_Sendrecv(buf, 1, d, 0, 3, out, 1, d, 0, 3, MPI_COMM_SELF, MPI_STATUS_IGNORE);
  CHECK(out[0] == 1 && out[3] == 4 && out[1] == 0, "sendrecv with the dup");
  CHECK_MPI(MPI_Type_delete_attr(d, key));
  CHECK(g_type_deletes == 1, "delete_attr ran %d deletes", g_type_deletes);
  CHECK_MPI(MPI_Type_free(&v));
  CHECK(g_type_deletes == 2, "Type_free did not delete the attribute");
  CHECK(cls(MPI_Type_set_attr(d, 12345, &value)) == MPI_ERR_KEYVAL, "bad type keyval");
  int comm_key;
  CHECK_MPI(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN, &comm_key, NULL));
  CHECK(cls(MPI_Type_set_attr(d, comm_key, &value)) == MPI_ERR_KEYVAL, "a communicator keyval on a type");
  CHECK_MPI(MPI_Type_free_keyval(&key));
  CHECK_MPI(MPI_Comm_free_keyval(&comm_key));
  CHECK_MPI(MPI_Type_free(&d));
  CHECK(cls(MPI_Type_dup(MPI_DATATYPE_NULL, &d)) == MPI_ERR_TYPE, "dup of MPI_DATATYPE_NULL");
  CHECK(cls(MPI_Type_create_hvector(-1, 1, 8, MPI_INT, &d)) == MPI_ERR_COUNT, "negative count");
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  structs(rank, size);
  vectors(rank, size);
  subarrays(rank, size);
  dups_and_attrs();
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) printf("types: ok\n");
  MPI_Finalize();
  return 0;
}
