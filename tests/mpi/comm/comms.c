/* Communicator management (MPI-1.2 §5.4) with values checked: compare, dup
 * (separate context), create (members, MPI_COMM_NULL elsewhere), split with
 * MPI_UNDEFINED and key ties, free with a receive still pending, error
 * handler inheritance, and the error classes of bad arguments. */
#include <string.h>

#include "comm_check.h"

static int wrank, wsize;
static int handler_calls;
static MPI_Comm handler_comm;
static int handler_code;

static void counting_handler(MPI_Comm* comm, int* code, ...) {
  ++handler_calls;
  handler_comm = *comm;
  handler_code = *code;
}

/* Passes world ranks around the ring of c and checks that rank r of c is
 * world rank expect[r]. */
static void check_ring(MPI_Comm c, const int* expect) {
  int r, n, left, got;
  CHECK_MPI(MPI_Comm_rank(c, &r));
  CHECK_MPI(MPI_Comm_size(c, &n));
  CHECK(expect[r] == wrank, "rank %d of the new communicator is world rank %d, expected %d", r, wrank, expect[r]);
  left = (r - 1 + n) % n;
  CHECK_MPI(MPI_Sendrecv(&wrank, 1, MPI_INT, (r + 1) % n, 9, &got, 1, MPI_INT, left, 9, c, MPI_STATUS_IGNORE));
  CHECK(got == expect[left], "left neighbour sent world rank %d, expected %d", got, expect[left]);
}

static void test_dup_and_compare(void) {
  MPI_Comm d;
  int res, r, n;
  CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &d));
  CHECK_MPI(MPI_Comm_rank(d, &r));
  CHECK_MPI(MPI_Comm_size(d, &n));
  CHECK(r == wrank && n == wsize, "dup rank %d size %d", r, n);
  CHECK_MPI(MPI_Comm_compare(MPI_COMM_WORLD, d, &res));
  CHECK(res == MPI_CONGRUENT, "compare(world, dup) = %d", res);
  CHECK_MPI(MPI_Comm_compare(d, d, &res));
  CHECK(res == MPI_IDENT, "compare(dup, dup) = %d", res);
  CHECK_MPI(MPI_Comm_compare(MPI_COMM_WORLD, MPI_COMM_SELF, &res));
  CHECK(res == (wsize == 1 ? MPI_CONGRUENT : MPI_UNEQUAL), "compare(world, self) = %d", res);
  /* Same tag, same peers, two contexts: a receive on world must not take
   * the message sent first on the dup. */
  if (wsize >= 2 && wrank < 2) {
    int one = 1, two = 2, v = 0;
    if (wrank == 0) {
      CHECK_MPI(MPI_Send(&one, 1, MPI_INT, 1, 5, d));
      CHECK_MPI(MPI_Send(&two, 1, MPI_INT, 1, 5, MPI_COMM_WORLD));
    } else {
      CHECK_MPI(MPI_Recv(&v, 1, MPI_INT, 0, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
      CHECK(v == 2, "world receive got %d (message of the dup?)", v);
      CHECK_MPI(MPI_Recv(&v, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, d, MPI_STATUS_IGNORE));
      CHECK(v == 1, "dup receive got %d", v);
    }
  }
  CHECK_MPI(MPI_Comm_free(&d));
  CHECK(d == MPI_COMM_NULL, "Comm_free sets MPI_COMM_NULL");
}

static void test_create(void) {
  MPI_Group world, g;
  MPI_Comm c;
  int res, expect[64], n = 0;
  CHECK_MPI(MPI_Comm_group(MPI_COMM_WORLD, &world));
  /* Everybody, reversed. */
  int rev[64];
  for (int i = 0; i < wsize; ++i) rev[i] = wsize - 1 - i;
  CHECK_MPI(MPI_Group_incl(world, wsize, rev, &g));
  CHECK_MPI(MPI_Comm_create(MPI_COMM_WORLD, g, &c));
  CHECK(c != MPI_COMM_NULL, "a member got MPI_COMM_NULL");
  CHECK_MPI(MPI_Comm_compare(MPI_COMM_WORLD, c, &res));
  CHECK(res == (wsize == 1 ? MPI_CONGRUENT : MPI_SIMILAR), "compare(world, reversed) = %d", res);
  check_ring(c, rev);
  CHECK_MPI(MPI_Comm_free(&c));
  CHECK_MPI(MPI_Group_free(&g));
  /* Odd world ranks only; the others get MPI_COMM_NULL. */
  int odds[1][3] = {{1, wsize - 1, 2}};
  if (wsize >= 2) {
    CHECK_MPI(MPI_Group_range_incl(world, 1, odds, &g));
    CHECK_MPI(MPI_Comm_create(MPI_COMM_WORLD, g, &c));
    if (wrank % 2 == 0) {
      CHECK(c == MPI_COMM_NULL, "non-member got a communicator");
    } else {
      for (int i = 1; i < wsize; i += 2) expect[n++] = i;
      check_ring(c, expect);
      CHECK_MPI(MPI_Comm_compare(MPI_COMM_WORLD, c, &res));
      CHECK(res == MPI_UNEQUAL, "compare(world, odds) = %d", res);
      /* A group that is not a subset of c's group. */
      MPI_Comm bad = MPI_COMM_NULL;
      CHECK_MPI(MPI_Errhandler_set(c, MPI_ERRORS_RETURN));
      EXPECT_CLASS(MPI_Comm_create(c, world, &bad), MPI_ERR_GROUP);
      CHECK_MPI(MPI_Comm_free(&c));
    }
    CHECK_MPI(MPI_Group_free(&g));
  }
  CHECK_MPI(MPI_Group_free(&world));
}

static void test_split(void) {
  MPI_Comm c;
  int expect[64], n;
  /* Three colors, keys reversing the order; the last rank opts out. */
  const int color = wrank == wsize - 1 && wsize > 1 ? MPI_UNDEFINED : wrank % 3;
  CHECK_MPI(MPI_Comm_split(MPI_COMM_WORLD, color, -wrank, &c));
  if (color == MPI_UNDEFINED) {
    CHECK(c == MPI_COMM_NULL, "MPI_UNDEFINED color got a communicator");
  } else {
    n = 0;
    for (int i = wsize - 1; i >= 0; --i)
      if (i % 3 == color && !(i == wsize - 1 && wsize > 1)) expect[n++] = i;
    int size;
    CHECK_MPI(MPI_Comm_size(c, &size));
    CHECK(size == n, "color %d: size %d, expected %d", color, size, n);
    check_ring(c, expect);
    CHECK_MPI(MPI_Comm_free(&c));
  }
  /* Key ties keep the parent's order: key = parity puts evens first. */
  CHECK_MPI(MPI_Comm_split(MPI_COMM_WORLD, 7, wrank % 2, &c));
  n = 0;
  for (int i = 0; i < wsize; i += 2) expect[n++] = i;
  for (int i = 1; i < wsize; i += 2) expect[n++] = i;
  check_ring(c, expect);
  /* Split of a split: all keys equal, order of the parent (not of world). */
  MPI_Comm cc;
  CHECK_MPI(MPI_Comm_split(c, 0, 0, &cc));
  check_ring(cc, expect);
  int res;
  CHECK_MPI(MPI_Comm_compare(c, cc, &res));
  CHECK(res == MPI_CONGRUENT, "compare(split, split of it) = %d", res);
  CHECK_MPI(MPI_Comm_free(&cc));
  CHECK_MPI(MPI_Comm_free(&c));
  /* Everybody MPI_UNDEFINED. */
  CHECK_MPI(MPI_Comm_split(MPI_COMM_WORLD, MPI_UNDEFINED, 0, &c));
  CHECK(c == MPI_COMM_NULL, "all-undefined split gave a communicator");
}

/* A communicator freed while a receive on it is pending stays usable by that
 * receive (MPI-1.2 §5.4.3: pending operations complete normally). */
static void test_free_with_pending_receive(void) {
  MPI_Comm d;
  CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &d));
  if (wsize >= 2 && wrank < 2) {
    int v = -1, payload = 77;
    if (wrank == 0) {
      MPI_Request req;
      MPI_Status st;
      CHECK_MPI(MPI_Irecv(&v, 1, MPI_INT, 1, 3, d, &req));
      CHECK_MPI(MPI_Comm_free(&d));
      CHECK_MPI(MPI_Send(&payload, 1, MPI_INT, 1, 4, MPI_COMM_WORLD)); /* now you may send */
      CHECK_MPI(MPI_Wait(&req, &st));
      CHECK(v == 77 && st.MPI_SOURCE == 1 && st.MPI_TAG == 3, "pending receive got %d from %d tag %d", v,
            st.MPI_SOURCE, st.MPI_TAG);
    } else {
      CHECK_MPI(MPI_Recv(&v, 1, MPI_INT, 0, 4, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
      CHECK_MPI(MPI_Send(&payload, 1, MPI_INT, 0, 3, d));
      CHECK_MPI(MPI_Comm_free(&d));
    }
  } else {
    CHECK_MPI(MPI_Comm_free(&d));
  }
}

static void test_errhandler_inheritance(void) {
  MPI_Errhandler eh, got;
  MPI_Comm d, s;
  int v = 0;
  CHECK_MPI(MPI_Errhandler_create(counting_handler, &eh));
  CHECK_MPI(MPI_Errhandler_set(MPI_COMM_WORLD, eh));
  CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &d));
  CHECK_MPI(MPI_Comm_split(d, 0, 0, &s));
  CHECK_MPI(MPI_Errhandler_get(d, &got));
  CHECK(got == eh, "dup did not inherit the error handler");
  CHECK_MPI(MPI_Errhandler_get(s, &got));
  CHECK(got == eh, "split did not inherit the error handler");
  /* Freed while attached: the communicators keep a working handler. */
  MPI_Errhandler tmp = eh;
  CHECK_MPI(MPI_Errhandler_free(&tmp));
  CHECK(tmp == MPI_ERRHANDLER_NULL, "Errhandler_free sets MPI_ERRHANDLER_NULL");
  handler_calls = 0;
  int rc = MPI_Send(&v, 1, MPI_INT, wsize + 3, 0, s);
  CHECK(handler_calls == 1, "handler called %d times", handler_calls);
  CHECK(handler_comm == s, "handler got communicator %#x, expected %#x", (unsigned)handler_comm, (unsigned)s);
  CHECK(error_class_of(handler_code) == MPI_ERR_RANK, "handler got code %d", handler_code);
  CHECK(rc == handler_code, "call returned %d, handler saw %d", rc, handler_code);
  CHECK_MPI(MPI_Errhandler_set(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
  CHECK_MPI(MPI_Comm_free(&s));
  CHECK_MPI(MPI_Comm_free(&d)); /* the last user of the freed handler */
}

static void test_errors(void) {
  MPI_Comm c = MPI_COMM_NULL, w = MPI_COMM_WORLD;
  int res;
  CHECK_MPI(MPI_Errhandler_set(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
  EXPECT_CLASS(MPI_Comm_split(MPI_COMM_WORLD, -5, 0, &c), MPI_ERR_ARG);
  EXPECT_CLASS(MPI_Comm_dup(MPI_COMM_NULL, &c), MPI_ERR_COMM);
  EXPECT_CLASS(MPI_Comm_dup(MPI_COMM_WORLD, NULL), MPI_ERR_ARG);
  EXPECT_CLASS(MPI_Comm_create(MPI_COMM_WORLD, MPI_GROUP_NULL, &c), MPI_ERR_GROUP);
  EXPECT_CLASS(MPI_Comm_compare(MPI_COMM_WORLD, MPI_COMM_NULL, &res), MPI_ERR_COMM);
  EXPECT_CLASS(MPI_Comm_free(&w), MPI_ERR_COMM);
  CHECK(w == MPI_COMM_WORLD, "failed free changed the handle");
  EXPECT_CLASS(MPI_Comm_free(&c), MPI_ERR_COMM);
  EXPECT_CLASS(MPI_Comm_size((MPI_Comm)0x04000fff, &res), MPI_ERR_COMM);
}

int main(int argc, char** argv) {
  CHECK_MPI(MPI_Init(&argc, &argv));
  CHECK_MPI(MPI_Comm_rank(MPI_COMM_WORLD, &wrank));
  CHECK_MPI(MPI_Comm_size(MPI_COMM_WORLD, &wsize));
  CHECK(wsize <= 64, "test written for at most 64 processes");
  test_dup_and_compare();
  test_create();
  test_split();
  test_free_with_pending_receive();
  test_errhandler_inheritance();
  test_errors();
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  if (wrank == 0) printf("comms: ok\n");
  CHECK_MPI(MPI_Finalize());
  return 0;
}
