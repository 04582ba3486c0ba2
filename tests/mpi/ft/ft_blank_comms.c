/* Groups, communicators and topologies over an MPI_COMM_WORLD with blanks
 * (BLANK mode after a recovery; FT-MPI spec §4.1 "Group and Communicator
 * creation functions", spec/ft-semantics.md §4.3.1). The victims (argv[1],
 * e.g. "1,4"; default 1,4) SIGKILL themselves; the survivors recover with
 * MPI_Comm_dup(MPI_COMM_WORLD) (MANUAL), then check, with exact values:
 *   - Comm_split by parity (blanks act as MPI_UNDEFINED): sizes, ranks, key
 *     order, translate_ranks back to the world, p2p and Allreduce inside;
 *   - Comm_group of the world (blanks are members), Group_incl / excl /
 *     range_incl / range_excl naming blanks, union / intersection /
 *     difference, translate_ranks both ways, Group_rank, Group_compare;
 *   - Comm_create from a group with a blank (the blank is a rank of the new
 *     communicator: p2p with it acts as MPI_PROC_NULL, Bcast / Allreduce /
 *     Allgather skip it, a split of it drops it) and from the survivors;
 *   - Intercomm_create with a blank on one side (a blank leader is refused),
 *     p2p with the blank remote rank, Intercomm_merge keeping it;
 *   - Comm_dup of the world keeps the blanks; Comm_compare results;
 *   - Cart_create over the world: Cart_shift names blank neighbours, a
 *     Sendrecv with one acts as MPI_PROC_NULL; Cart_sub keeps blanks in the
 *     sub-grids; Graph_create / Graph_neighbors likewise. */
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"

#define MAXP 16
#define PATTERN (-77)

static int rank, size, blank[MAXP], nlive, live[MAXP], nblank, blanks[MAXP];
static MPI_Group wg; /* MPI_COMM_WORLD's group */

static int index_in(const int* list, int n, int v) {
  for (int i = 0; i < n; ++i)
    if (list[i] == v) return i;
  return -1;
}

static int sum_of(const int* list, int n) {
  int s = 0;
  for (int i = 0; i < n; ++i) s += blank[list[i]] ? 0 : list[i];
  return s;
}

/* `g` has exactly the world ranks want[0..n) in that order: its size, the
 * translation of each of its ranks to the world and back, and my rank. */
static void check_group(const char* what, MPI_Group g, int n, const int* want) {
  int sz = -1, r = -2, idx[MAXP], out[MAXP];
  CHECK_MPI(MPI_Group_size(g, &sz));
  CHECK(sz == n, "%s: size %d, expected %d", what, sz, n);
  for (int i = 0; i < n; ++i) idx[i] = i;
  CHECK_MPI(MPI_Group_translate_ranks(g, n, idx, wg, out));
  for (int i = 0; i < n; ++i) CHECK(out[i] == want[i], "%s: rank %d is world %d, expected %d", what, i, out[i], want[i]);
  for (int w = 0; w < size; ++w) idx[w] = w;
  CHECK_MPI(MPI_Group_translate_ranks(wg, size, idx, g, out));
  for (int w = 0; w < size; ++w) {
    const int e = index_in(want, n, w);
    CHECK(out[w] == (e < 0 ? MPI_UNDEFINED : e), "%s: world %d translates to %d, expected %d", what, w, out[w], e);
  }
  CHECK_MPI(MPI_Group_rank(g, &r));
  const int me = index_in(want, n, rank);
  CHECK(r == (me < 0 ? MPI_UNDEFINED : me), "%s: Group_rank %d, expected %d", what, r, me);
}

/* A communicator whose ranks are the world ranks want[0..n) (blanks
 * included): size, rank, group, a ring of Sendrecv (blank neighbours act as
 * MPI_PROC_NULL), Allreduce over the survivors, Allgather leaving blank
 * segments untouched, and p2p with every blank rank. */
static void check_comm(const char* what, MPI_Comm c, int n, const int* want) {
  int sz = -1, r = -1;
  CHECK_MPI(MPI_Comm_size(c, &sz));
  CHECK_MPI(MPI_Comm_rank(c, &r));
  CHECK(sz == n && r == index_in(want, n, rank), "%s: size %d rank %d, expected %d %d", what, sz, r, n,
        index_in(want, n, rank));
  MPI_Group g;
  CHECK_MPI(MPI_Comm_group(c, &g));
  check_group(what, g, n, want);
  CHECK_MPI(MPI_Group_free(&g));
  /* ring: send my world rank right, receive from the left */
  const int right = (r + 1) % n, left = (r - 1 + n) % n;
  int got = PATTERN;
  MPI_Status st;
  CHECK_MPI(MPI_Sendrecv(&rank, 1, MPI_INT, right, 5, &got, 1, MPI_INT, left, 5, c, &st));
  if (blank[want[left]]) {
    int cnt = -1;
    MPI_Get_count(&st, MPI_INT, &cnt);
    CHECK(got == PATTERN && st.MPI_SOURCE == MPI_PROC_NULL && st.MPI_TAG == MPI_ANY_TAG && cnt == 0,
          "%s: receive from blank left neighbour %d: got %d source %d tag %d count %d", what, left, got, st.MPI_SOURCE,
          st.MPI_TAG, cnt);
  } else {
    CHECK(got == want[left] && st.MPI_SOURCE == left, "%s: ring got %d from %d, expected %d from %d", what, got,
          st.MPI_SOURCE, want[left], left);
  }
  /* p2p with every blank rank, blocking and non-blocking */
  for (int q = 0; q < n; ++q) {
    if (!blank[want[q]]) continue;
    int x = 1, y = PATTERN, flag = 0;
    CHECK_MPI(MPI_Send(&x, 1, MPI_INT, q, 9, c));
    CHECK_MPI(MPI_Recv(&y, 1, MPI_INT, q, 9, c, &st));
    CHECK(y == PATTERN && st.MPI_SOURCE == MPI_PROC_NULL, "%s: Recv from blank %d: %d source %d", what, q, y,
          st.MPI_SOURCE);
    MPI_Request rq[2];
    CHECK_MPI(MPI_Irecv(&y, 1, MPI_INT, q, 9, c, &rq[0]));
    CHECK_MPI(MPI_Isend(&x, 1, MPI_INT, q, 9, c, &rq[1]));
    MPI_Status sts[2];
    CHECK_MPI(MPI_Waitall(2, rq, sts));
    CHECK(y == PATTERN && sts[0].MPI_SOURCE == MPI_PROC_NULL, "%s: Irecv from blank %d", what, q);
    CHECK_MPI(MPI_Iprobe(q, MPI_ANY_TAG, c, &flag, &st));
    CHECK(flag && st.MPI_SOURCE == MPI_PROC_NULL, "%s: Iprobe of blank %d: flag %d source %d", what, q, flag,
          st.MPI_SOURCE);
  }
  /* collectives skip the blanks */
  int s = -1;
  CHECK_MPI(MPI_Allreduce(&rank, &s, 1, MPI_INT, MPI_SUM, c));
  CHECK(s == sum_of(want, n), "%s: Allreduce %d, expected %d", what, s, sum_of(want, n));
  int all[MAXP];
  for (int i = 0; i < n; ++i) all[i] = PATTERN;
  CHECK_MPI(MPI_Allgather(&rank, 1, MPI_INT, all, 1, MPI_INT, c));
  for (int i = 0; i < n; ++i)
    CHECK(all[i] == (blank[want[i]] ? PATTERN : want[i]), "%s: Allgather[%d] = %d", what, i, all[i]);
  for (int root = 0; root < n; ++root) {
    int v = r == root ? 1000 + root : PATTERN;
    CHECK_MPI(MPI_Bcast(&v, 1, MPI_INT, root, c));
    CHECK(v == (blank[want[root]] ? PATTERN : 1000 + root), "%s: Bcast from %d gave %d", what, root, v);
  }
  CHECK_MPI(MPI_Barrier(c));
}

static void test_groups(void) {
  int all[MAXP], rev[MAXP];
  for (int i = 0; i < size; ++i) all[i] = i, rev[i] = size - 1 - i;
  check_group("world group", wg, size, all);
  /* incl / excl naming blanks */
  MPI_Group g, s, b, e, t;
  CHECK_MPI(MPI_Group_incl(wg, size, rev, &g));
  check_group("incl reversed", g, size, rev);
  int res = -1;
  CHECK_MPI(MPI_Group_compare(g, wg, &res));
  CHECK(res == MPI_SIMILAR, "reversed world vs world: %d", res);
  CHECK_MPI(MPI_Group_free(&g));
  CHECK_MPI(MPI_Group_excl(wg, nblank, blanks, &s));
  check_group("excl blanks", s, nlive, live);
  CHECK_MPI(MPI_Group_excl(wg, nlive, live, &b));
  check_group("excl survivors", b, nblank, blanks);
  CHECK_MPI(MPI_Group_incl(wg, nblank, blanks, &g));
  CHECK_MPI(MPI_Group_compare(g, b, &res));
  CHECK(res == MPI_IDENT, "incl blanks vs excl survivors: %d", res);
  CHECK_MPI(MPI_Group_free(&g));
  /* range variants: evens, by inclusion and by excluding the odds */
  int evens[MAXP], ne = 0;
  for (int i = 0; i < size; i += 2) evens[ne++] = i;
  int r_even[1][3] = {{0, size - 1, 2}}, r_odd[1][3] = {{1, size - 1, 2}};
  CHECK_MPI(MPI_Group_range_incl(wg, 1, r_even, &e));
  check_group("range_incl evens", e, ne, evens);
  CHECK_MPI(MPI_Group_range_excl(wg, 1, r_odd, &g));
  CHECK_MPI(MPI_Group_compare(g, e, &res));
  CHECK(res == MPI_IDENT, "range_excl odds vs range_incl evens: %d", res);
  CHECK_MPI(MPI_Group_free(&g));
  int down[MAXP], nd = 0;
  for (int i = size - 1; i >= 0; i -= 3) down[nd++] = i;
  int r_down[1][3] = {{size - 1, 0, -3}};
  CHECK_MPI(MPI_Group_range_incl(wg, 1, r_down, &g));
  check_group("range_incl downwards", g, nd, down);
  CHECK_MPI(MPI_Group_free(&g));
  /* set algebra keeps blanks as members */
  CHECK_MPI(MPI_Group_union(b, s, &g));
  int bs[MAXP];
  memcpy(bs, blanks, sizeof(int) * (size_t)nblank);
  memcpy(bs + nblank, live, sizeof(int) * (size_t)nlive);
  check_group("union blanks+survivors", g, size, bs);
  int in_order = 1;
  for (int i = 0; i < size; ++i) in_order &= bs[i] == i;
  CHECK_MPI(MPI_Group_compare(g, wg, &res));
  CHECK(res == (in_order ? MPI_IDENT : MPI_SIMILAR), "union vs world: %d", res);
  CHECK_MPI(MPI_Group_free(&g));
  CHECK_MPI(MPI_Group_union(s, b, &g));
  CHECK_MPI(MPI_Group_union(g, wg, &t));
  CHECK_MPI(MPI_Group_compare(t, g, &res));
  CHECK(res == MPI_IDENT, "union with the world adds nothing: %d", res);
  CHECK_MPI(MPI_Group_free(&t));
  CHECK_MPI(MPI_Group_free(&g));
  CHECK_MPI(MPI_Group_intersection(wg, b, &g));
  CHECK_MPI(MPI_Group_compare(g, b, &res));
  CHECK(res == MPI_IDENT, "world & blanks: %d", res);
  CHECK_MPI(MPI_Group_free(&g));
  CHECK_MPI(MPI_Group_intersection(s, b, &g));
  int n0 = -1;
  CHECK_MPI(MPI_Group_size(g, &n0));
  CHECK(n0 == 0 && g == MPI_GROUP_EMPTY, "survivors & blanks: size %d", n0);
  CHECK_MPI(MPI_Group_free(&g));
  CHECK_MPI(MPI_Group_difference(wg, s, &g));
  check_group("world - survivors", g, nblank, blanks);
  CHECK_MPI(MPI_Group_free(&g));
  CHECK_MPI(MPI_Group_difference(e, b, &g));
  int le[MAXP], nle = 0;
  for (int i = 0; i < ne; ++i)
    if (!blank[evens[i]]) le[nle++] = evens[i];
  check_group("evens - blanks", g, nle, le);
  CHECK_MPI(MPI_Group_free(&g));
  CHECK_MPI(MPI_Group_compare(s, wg, &res));
  CHECK(res == MPI_UNEQUAL, "survivors vs world: %d", res);
  /* our choice: blanks keep their identity (the rank they died with), so two
   * different blanks are different members */
  if (nblank >= 2) {
    MPI_Group b0, b1;
    CHECK_MPI(MPI_Group_incl(wg, 1, &blanks[0], &b0));
    CHECK_MPI(MPI_Group_incl(wg, 1, &blanks[1], &b1));
    CHECK_MPI(MPI_Group_compare(b0, b1, &res));
    CHECK(res == MPI_UNEQUAL, "two different blanks: %d", res);
    CHECK_MPI(MPI_Group_free(&b0));
    CHECK_MPI(MPI_Group_free(&b1));
  }
  /* MPI_PROC_NULL translates to itself */
  int pn = MPI_PROC_NULL, out = 0;
  CHECK_MPI(MPI_Group_translate_ranks(wg, 1, &pn, s, &out));
  CHECK(out == MPI_PROC_NULL, "translate PROC_NULL: %d", out);
  CHECK_MPI(MPI_Group_free(&e));
  CHECK_MPI(MPI_Group_free(&b));
  CHECK_MPI(MPI_Group_free(&s));
}

static void test_split(void) {
  for (int k = 0; k < 2; ++k) { /* k = 0: key -rank (reversed); 1: key 0 (world order) */
    MPI_Comm c;
    CHECK_MPI(MPI_Comm_split(MPI_COMM_WORLD, rank % 2, k ? 0 : -rank, &c));
    CHECK(c != MPI_COMM_NULL, "split %d gave MPI_COMM_NULL", k);
    int want[MAXP], n = 0;
    for (int i = 0; i < nlive; ++i)
      if (live[i] % 2 == rank % 2) want[n++] = live[i];
    if (!k)
      for (int i = 0; i < n / 2; ++i) {
        int x = want[i];
        want[i] = want[n - 1 - i];
        want[n - 1 - i] = x;
      }
    check_comm(k ? "split parity" : "split parity reversed", c, n, want);
    CHECK_MPI(MPI_Comm_free(&c));
  }
  /* one color for all: the blanks are left out, the survivors keep their order;
   * the first survivor opts out with MPI_UNDEFINED */
  MPI_Comm c;
  CHECK_MPI(MPI_Comm_split(MPI_COMM_WORLD, rank == live[0] ? MPI_UNDEFINED : 3, 0, &c));
  if (rank == live[0]) {
    CHECK(c == MPI_COMM_NULL, "MPI_UNDEFINED got a communicator");
  } else {
    check_comm("split one color", c, nlive - 1, live + 1);
    CHECK_MPI(MPI_Comm_free(&c));
  }
}

static void test_create(void) {
  /* a group with a blank in the middle and out of world order */
  int incl[4] = {live[1], blanks[0], live[0], live[nlive - 1]};
  MPI_Group g, s;
  CHECK_MPI(MPI_Group_incl(wg, 4, incl, &g));
  MPI_Comm c, d, sc;
  CHECK_MPI(MPI_Comm_create(MPI_COMM_WORLD, g, &c));
  if (index_in(incl, 4, rank) < 0) {
    CHECK(c == MPI_COMM_NULL, "not in the group but got a communicator");
  } else {
    check_comm("create with a blank", c, 4, incl);
    MPI_Group cg;
    int res = -1;
    CHECK_MPI(MPI_Comm_group(c, &cg));
    CHECK_MPI(MPI_Group_compare(cg, g, &res));
    CHECK(res == MPI_IDENT, "create: its group vs the group: %d", res);
    CHECK_MPI(MPI_Group_free(&cg));
    CHECK_MPI(MPI_Comm_compare(c, MPI_COMM_WORLD, &res));
    CHECK(res == (size == 4 ? MPI_SIMILAR : MPI_UNEQUAL), "create vs world: %d", res);
    CHECK_MPI(MPI_Comm_dup(c, &d));
    CHECK_MPI(MPI_Comm_compare(c, d, &res));
    CHECK(res == MPI_CONGRUENT, "dup of create: %d", res);
    check_comm("dup of create", d, 4, incl);
    CHECK_MPI(MPI_Comm_free(&d));
    /* splitting a created communicator drops its blank */
    CHECK_MPI(MPI_Comm_split(c, 0, 0, &d));
    int nb[3] = {incl[0], incl[2], incl[3]};
    check_comm("split of create", d, 3, nb);
    CHECK_MPI(MPI_Comm_free(&d));
    CHECK_MPI(MPI_Comm_free(&c));
  }
  CHECK_MPI(MPI_Group_free(&g));
  /* from the survivors only: no blank left */
  CHECK_MPI(MPI_Group_excl(wg, nblank, blanks, &s));
  CHECK_MPI(MPI_Comm_create(MPI_COMM_WORLD, s, &sc));
  check_comm("create of survivors", sc, nlive, live);
  int res = -1;
  CHECK_MPI(MPI_Comm_compare(sc, MPI_COMM_WORLD, &res));
  CHECK(res == MPI_UNEQUAL, "survivors vs world: %d", res);
  CHECK_MPI(MPI_Comm_free(&sc));
  CHECK_MPI(MPI_Group_free(&s));
  /* from the world's own group: all the blanks */
  int all[MAXP];
  for (int i = 0; i < size; ++i) all[i] = i;
  CHECK_MPI(MPI_Comm_create(MPI_COMM_WORLD, wg, &c));
  check_comm("create of world group", c, size, all);
  CHECK_MPI(MPI_Comm_compare(c, MPI_COMM_WORLD, &res));
  CHECK(res == MPI_CONGRUENT, "create of world group vs world: %d", res);
  CHECK_MPI(MPI_Comm_free(&c));
}

/* Intercommunicators over sides with a blank: A = {blank, live0, live1}
 * (rank 0 is the blank), B = the other survivors. A blank cannot lead; the
 * blank is a remote rank for B (p2p acts as MPI_PROC_NULL); a merge keeps it. */
static void test_intercomm(void) {
  int ga[3] = {blanks[0], live[0], live[1]}, gb[MAXP], nb = 0;
  for (int i = 2; i < nlive; ++i) gb[nb++] = live[i];
  MPI_Group a, b;
  MPI_Comm ca, cb, local, inter, merged;
  CHECK_MPI(MPI_Group_incl(wg, 3, ga, &a));
  CHECK_MPI(MPI_Group_incl(wg, nb, gb, &b));
  CHECK_MPI(MPI_Comm_create(MPI_COMM_WORLD, a, &ca));
  CHECK_MPI(MPI_Comm_create(MPI_COMM_WORLD, b, &cb));
  const int in_a = ca != MPI_COMM_NULL;
  local = in_a ? ca : cb;
  CHECK(local != MPI_COMM_NULL, "in neither side");
  if (in_a) { /* a blank leader is refused at once, by every member */
    const int rc = MPI_Intercomm_create(ca, 0, MPI_COMM_WORLD, live[2], 21, &inter);
    CHECK(cls(rc) == MPI_ERR_RANK, "blank local leader: class %d", cls(rc));
  }
  CHECK_MPI(MPI_Intercomm_create(local, in_a ? 1 : 0, MPI_COMM_WORLD, in_a ? live[2] : live[0], 22, &inter));
  int rs = -1, flag = 0;
  CHECK_MPI(MPI_Comm_test_inter(inter, &flag));
  CHECK_MPI(MPI_Comm_remote_size(inter, &rs));
  CHECK(flag && rs == (in_a ? nb : 3), "intercomm: inter %d remote size %d", flag, rs);
  if (!in_a) { /* remote rank 0 is the blank */
    int x = 1, y = PATTERN;
    MPI_Status st;
    CHECK_MPI(MPI_Sendrecv(&x, 1, MPI_INT, 0, 23, &y, 1, MPI_INT, 0, 23, inter, &st));
    CHECK(y == PATTERN && st.MPI_SOURCE == MPI_PROC_NULL, "intercomm: blank remote: %d source %d", y, st.MPI_SOURCE);
  }
  CHECK_MPI(MPI_Intercomm_merge(inter, !in_a, &merged));
  int all[MAXP];
  memcpy(all, ga, sizeof ga);
  memcpy(all + 3, gb, sizeof(int) * (size_t)nb);
  check_comm("merge", merged, 3 + nb, all);
  CHECK_MPI(MPI_Comm_free(&merged));
  CHECK_MPI(MPI_Comm_free(&inter));
  CHECK_MPI(MPI_Comm_free(&local));
  CHECK_MPI(MPI_Group_free(&a));
  CHECK_MPI(MPI_Group_free(&b));
}

static void test_dup(void) {
  int all[MAXP], res = -1;
  for (int i = 0; i < size; ++i) all[i] = i;
  check_comm("world", MPI_COMM_WORLD, size, all);
  MPI_Comm d;
  CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &d));
  CHECK(d != MPI_COMM_NULL, "dup of the recovered world gave MPI_COMM_NULL");
  CHECK_MPI(MPI_Comm_compare(d, MPI_COMM_WORLD, &res));
  CHECK(res == MPI_CONGRUENT, "dup vs world: %d", res);
  check_comm("dup of world", d, size, all);
  CHECK_MPI(MPI_Comm_free(&d));
}

/* My neighbour at displacement `disp` along a dimension of length `len`
 * where I am at `coord` (MPI_PROC_NULL off a non-periodic border). */
static int shifted(int base, int coord, int len, int stride, int disp, int periodic) {
  int c = coord + disp;
  if (c < 0 || c >= len) {
    if (!periodic) return MPI_PROC_NULL;
    c = ((c % len) + len) % len;
  }
  return base + (c - coord) * stride;
}

/* Sendrecv along a shift: from a blank or MPI_PROC_NULL source nothing arrives. */
static void shift_exchange(const char* what, MPI_Comm c, int src, int dst, int src_world) {
  int got = PATTERN;
  MPI_Status st;
  CHECK_MPI(MPI_Sendrecv(&rank, 1, MPI_INT, dst, 11, &got, 1, MPI_INT, src, 11, c, &st));
  if (src == MPI_PROC_NULL || blank[src_world])
    CHECK(got == PATTERN && st.MPI_SOURCE == MPI_PROC_NULL, "%s: from %s %d got %d source %d", what,
          src == MPI_PROC_NULL ? "PROC_NULL" : "blank", src, got, st.MPI_SOURCE);
  else
    CHECK(got == src_world && st.MPI_SOURCE == src, "%s: got %d from %d, expected %d", what, got, st.MPI_SOURCE,
          src_world);
}

static void test_topologies(void) {
  CHECK(size % 2 == 0, "the Cartesian test needs an even size");
  const int rows = 2, cols = size / 2;
  int dims[2] = {rows, cols}, periods[2] = {1, 0}, coords[2], res = -1;
  MPI_Comm cart;
  CHECK_MPI(MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &cart));
  CHECK_MPI(MPI_Comm_compare(cart, MPI_COMM_WORLD, &res));
  CHECK(res == MPI_CONGRUENT, "cart vs world: %d", res);
  for (int i = 0; i < nblank; ++i) { /* coordinates of blank ranks */
    int back = -1;
    CHECK_MPI(MPI_Cart_coords(cart, blanks[i], 2, coords));
    CHECK(coords[0] == blanks[i] / cols && coords[1] == blanks[i] % cols, "coords of blank %d", blanks[i]);
    CHECK_MPI(MPI_Cart_rank(cart, coords, &back));
    CHECK(back == blanks[i], "Cart_rank of blank %d's coords: %d", blanks[i], back);
  }
  const int row = rank / cols, col = rank % cols;
  int src, dst;
  int blank_neighbours = 0;
  /* dimension 1 (columns, not periodic) */
  CHECK_MPI(MPI_Cart_shift(cart, 1, 1, &src, &dst));
  int esrc = shifted(rank, col, cols, 1, -1, 0), edst = shifted(rank, col, cols, 1, 1, 0);
  CHECK(src == esrc && dst == edst, "Cart_shift dim 1: %d %d, expected %d %d", src, dst, esrc, edst);
  blank_neighbours += (src != MPI_PROC_NULL && blank[src]) + (dst != MPI_PROC_NULL && blank[dst]);
  shift_exchange("cart dim 1", cart, src, dst, src);
  /* dimension 0 (rows, periodic), displacement 1 and -1 */
  for (int disp = -1; disp <= 1; disp += 2) {
    CHECK_MPI(MPI_Cart_shift(cart, 0, disp, &src, &dst));
    esrc = shifted(rank, row, rows, cols, -disp, 1);
    edst = shifted(rank, row, rows, cols, disp, 1);
    CHECK(src == esrc && dst == edst, "Cart_shift dim 0 disp %d: %d %d, expected %d %d", disp, src, dst, esrc, edst);
    blank_neighbours += blank[src] + blank[dst];
    shift_exchange("cart dim 0", cart, src, dst, src);
  }
  /* Cart_sub keeps blanks in the sub-grids: rows of `cols` ranks */
  int remain[2] = {0, 1};
  MPI_Comm sub;
  CHECK_MPI(MPI_Cart_sub(cart, remain, &sub));
  int rowranks[MAXP];
  for (int i = 0; i < cols; ++i) rowranks[i] = row * cols + i;
  check_comm("cart_sub row", sub, cols, rowranks);
  int sdims[1], speriods[1], scoords[1];
  CHECK_MPI(MPI_Cart_get(sub, 1, sdims, speriods, scoords));
  CHECK(sdims[0] == cols && speriods[0] == 0 && scoords[0] == col, "cart_sub row: dims %d coords %d", sdims[0],
        scoords[0]);
  CHECK_MPI(MPI_Cart_shift(sub, 0, 1, &src, &dst));
  CHECK(src == (col > 0 ? col - 1 : MPI_PROC_NULL) && dst == (col < cols - 1 ? col + 1 : MPI_PROC_NULL),
        "cart_sub shift: %d %d", src, dst);
  shift_exchange("cart_sub shift", sub, src, dst, src == MPI_PROC_NULL ? 0 : row * cols + src);
  CHECK_MPI(MPI_Comm_free(&sub));
  CHECK_MPI(MPI_Comm_free(&cart));

  /* a ring graph over the world: neighbours may be blanks */
  int index[MAXP], edges[2 * MAXP];
  for (int i = 0; i < size; ++i) {
    index[i] = 2 * (i + 1);
    edges[2 * i] = (i - 1 + size) % size;
    edges[2 * i + 1] = (i + 1) % size;
  }
  MPI_Comm graph;
  CHECK_MPI(MPI_Graph_create(MPI_COMM_WORLD, size, index, edges, 0, &graph));
  int nn = -1, nb[2];
  CHECK_MPI(MPI_Graph_neighbors_count(graph, rank, &nn));
  CHECK(nn == 2, "graph: %d neighbours", nn);
  CHECK_MPI(MPI_Graph_neighbors(graph, rank, 2, nb));
  CHECK(nb[0] == (rank - 1 + size) % size && nb[1] == (rank + 1) % size, "graph neighbours %d %d", nb[0], nb[1]);
  for (int i = 0; i < nblank; ++i) { /* a blank's neighbours, asked of the topology */
    CHECK_MPI(MPI_Graph_neighbors(graph, blanks[i], 2, nb));
    CHECK(nb[0] == (blanks[i] - 1 + size) % size, "blank %d's left neighbour %d", blanks[i], nb[0]);
  }
  CHECK_MPI(MPI_Graph_neighbors(graph, rank, 2, nb));
  blank_neighbours += blank[nb[0]] + blank[nb[1]];
  shift_exchange("graph right", graph, nb[0], nb[1], nb[0]);
  shift_exchange("graph left", graph, nb[1], nb[0], nb[1]);
  CHECK_MPI(MPI_Comm_free(&graph));
  /* somebody must have had a blank neighbour, or the test proved little */
  int total = 0;
  CHECK_MPI(MPI_Allreduce(&blank_neighbours, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
  CHECK(total > 0, "no survivor had a blank neighbour");
}

int main(int argc, char** argv) {
  CHECK_MPI(MPI_Init(&argc, &argv));
  CHECK_MPI(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
  CHECK_MPI(MPI_Comm_size(MPI_COMM_WORLD, &size));
  CHECK(size <= MAXP, "at most %d processes", MAXP);
  CHECK_MPI(MPI_Errhandler_set(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
  CHECK(attr_int(FTMPI_COMM_MODE) == FTMPI_COMM_MODE_BLANK, "run with --ft-comm-mode=blank");
  const char* victims = argc > 1 ? argv[1] : "1,4";
  for (const char* p = victims; *p;) {
    const int v = atoi(p);
    CHECK(v >= 0 && v < size, "victim %d out of range", v);
    blank[v] = 1;
    p += strcspn(p, ",");
    if (*p) ++p;
  }
  for (int q = 0; q < size; ++q) {
    if (blank[q]) blanks[nblank++] = q;
    else live[nlive++] = q;
  }
  CHECK(nblank >= 1 && nlive >= 3, "needs at least one victim and three survivors");
  /* A victim may die while a slow survivor is still in this barrier. */
  const int rc0 = MPI_Barrier(MPI_COMM_WORLD);
  CHECK(cls(rc0) == MPI_SUCCESS || cls(rc0) == MPI_ERR_OTHER, "first barrier: class %d", cls(rc0));
  if (blank[rank]) raise(SIGKILL);
  while (MPI_Barrier(MPI_COMM_WORLD) == MPI_SUCCESS) {
  }
  MPI_Comm dummy;
  CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &dummy));
  CHECK(attr_int(FTMPI_NUM_FAILED_PROCS) == nblank, "%d failed, expected %d", attr_int(FTMPI_NUM_FAILED_PROCS),
        nblank);
  int n = -1;
  CHECK_MPI(MPI_Comm_size(MPI_COMM_WORLD, &n));
  CHECK(n == size, "BLANK keeps the size: %d", n);
  CHECK_MPI(MPI_Comm_group(MPI_COMM_WORLD, &wg));

  test_groups();
  test_split();
  test_create();
  test_intercomm();
  test_dup();
  test_topologies();

  CHECK_MPI(MPI_Group_free(&wg));
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  if (rank == live[0]) printf("ft_blank_comms: ok (%d blanks of %d)\n", nblank, size);
  CHECK_MPI(MPI_Finalize());
  return 0;
}
