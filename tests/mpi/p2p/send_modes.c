/* Send modes: buffered (attach / detach, exhaustion, detach waiting for the
 * messages), synchronous (completes only once matched), ready (with the
 * receive posted first) and standard, blocking and immediate, with zero
 * counts, MPI_PROC_NULL, self-messages and messages beyond the eager limit,
 * and small messages that arrive before their blocking receive.
 * Ranks work in pairs (0-1, 2-3, ...); an odd last rank does the self part
 * only. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"

#define BIG (300 * 1024) /* ints: 1.2 MB, above every eager limit */

static int rank, size;

static void fill(int* b, int n, int seed) {
  for (int i = 0; i < n; ++i) b[i] = seed * 1000003 + i;
}

static void expect(const int* b, int n, int seed, const char* what) {
  for (int i = 0; i < n; ++i) CHECK(b[i] == seed * 1000003 + i, "%s: word %d is %d", what, i, b[i]);
}

static void expect_status(MPI_Status* st, int src, int tag, int count, const char* what) {
  int n = -1;
  CHECK_MPI(MPI_Get_count(st, MPI_INT, &n));
  CHECK(st->MPI_SOURCE == src && st->MPI_TAG == tag && n == count, "%s: status source %d tag %d count %d", what,
        st->MPI_SOURCE, st->MPI_TAG, n);
}

/* Every mode to oneself, and to MPI_PROC_NULL. */
static void self_and_null(int* a, int* b) {
  MPI_Status st;
  MPI_Request rq, rr;
  int flag, bsize, lens[] = {0, 1, 1000, BIG};
  CHECK_MPI(MPI_Pack_size(BIG, MPI_INT, MPI_COMM_WORLD, &bsize));
  bsize += MPI_BSEND_OVERHEAD;
  char* bbuf = malloc((size_t)bsize);
  CHECK_MPI(MPI_Buffer_attach(bbuf, bsize));
  for (int k = 0; k < 4; ++k) {
    int n = lens[k];
    /* buffered: the copy waits in our own queue until we receive it */
    fill(a, n, k + 1);
    CHECK_MPI(MPI_Bsend(a, n, MPI_INT, rank, 1, MPI_COMM_WORLD));
    memset(a, 0, sizeof(int) * (size_t)n);  /* the copy is what travels */
    CHECK_MPI(MPI_Recv(b, n, MPI_INT, rank, 1, MPI_COMM_WORLD, &st));
    expect(b, n, k + 1, "self bsend");
    expect_status(&st, rank, 1, n, "self bsend");
    fill(a, n, k + 2);
    CHECK_MPI(MPI_Ibsend(a, n, MPI_INT, rank, 2, MPI_COMM_WORLD, &rq));
    CHECK_MPI(MPI_Wait(&rq, &st));
    CHECK(rq == MPI_REQUEST_NULL, "ibsend request not freed");
    CHECK_MPI(MPI_Recv(b, n, MPI_INT, rank, 2, MPI_COMM_WORLD, &st));
    expect(b, n, k + 2, "self ibsend");
    /* standard */
    fill(a, n, k + 3);
    CHECK_MPI(MPI_Isend(a, n, MPI_INT, rank, 3, MPI_COMM_WORLD, &rq));
    CHECK_MPI(MPI_Recv(b, n, MPI_INT, rank, 3, MPI_COMM_WORLD, &st));
    CHECK_MPI(MPI_Wait(&rq, &st));
    expect(b, n, k + 3, "self isend");
    /* synchronous: cannot complete before the receive matches it */
    fill(a, n, k + 4);
    CHECK_MPI(MPI_Issend(a, n, MPI_INT, rank, 4, MPI_COMM_WORLD, &rq));
    for (int i = 0; i < 50; ++i) {
      CHECK_MPI(MPI_Test(&rq, &flag, &st));
      CHECK(!flag, "self issend of %d ints completed before its receive", n);
    }
    CHECK_MPI(MPI_Recv(b, n, MPI_INT, rank, 4, MPI_COMM_WORLD, &st));
    CHECK_MPI(MPI_Wait(&rq, &st));
    expect(b, n, k + 4, "self issend");
    /* ready: the receive is posted first */
    fill(a, n, k + 5);
    CHECK_MPI(MPI_Irecv(b, n, MPI_INT, rank, 5, MPI_COMM_WORLD, &rr));
    CHECK_MPI(MPI_Rsend(a, n, MPI_INT, rank, 5, MPI_COMM_WORLD));
    CHECK_MPI(MPI_Wait(&rr, &st));
    expect(b, n, k + 5, "self rsend");
    expect_status(&st, rank, 5, n, "self rsend");
    CHECK_MPI(MPI_Irecv(b, n, MPI_INT, rank, 6, MPI_COMM_WORLD, &rr));
    CHECK_MPI(MPI_Irsend(a, n, MPI_INT, rank, 6, MPI_COMM_WORLD, &rq));
    CHECK_MPI(MPI_Wait(&rq, MPI_STATUS_IGNORE));
    CHECK_MPI(MPI_Wait(&rr, MPI_STATUS_IGNORE));
    expect(b, n, k + 5, "self irsend");
  }
  /* MPI_PROC_NULL: every mode succeeds at once; a receive leaves the buffer
   * alone and reports source MPI_PROC_NULL, tag MPI_ANY_TAG, count 0. */
  CHECK_MPI(MPI_Send(a, 10, MPI_INT, MPI_PROC_NULL, 1, MPI_COMM_WORLD));
  CHECK_MPI(MPI_Bsend(a, 10, MPI_INT, MPI_PROC_NULL, 1, MPI_COMM_WORLD));
  CHECK_MPI(MPI_Ssend(a, 10, MPI_INT, MPI_PROC_NULL, 1, MPI_COMM_WORLD));
  CHECK_MPI(MPI_Rsend(a, 10, MPI_INT, MPI_PROC_NULL, 1, MPI_COMM_WORLD));
  MPI_Request reqs[4];
  CHECK_MPI(MPI_Isend(a, 10, MPI_INT, MPI_PROC_NULL, 1, MPI_COMM_WORLD, &reqs[0]));
  CHECK_MPI(MPI_Ibsend(a, 10, MPI_INT, MPI_PROC_NULL, 1, MPI_COMM_WORLD, &reqs[1]));
  CHECK_MPI(MPI_Issend(a, 10, MPI_INT, MPI_PROC_NULL, 1, MPI_COMM_WORLD, &reqs[2]));
  CHECK_MPI(MPI_Irsend(a, 10, MPI_INT, MPI_PROC_NULL, 1, MPI_COMM_WORLD, &reqs[3]));
  CHECK_MPI(MPI_Waitall(4, reqs, MPI_STATUSES_IGNORE));
  for (int i = 0; i < 10; ++i) b[i] = -5;
  CHECK_MPI(MPI_Recv(b, 10, MPI_INT, MPI_PROC_NULL, 1, MPI_COMM_WORLD, &st));
  CHECK(st.MPI_SOURCE == MPI_PROC_NULL && st.MPI_TAG == MPI_ANY_TAG, "proc_null status %d %d", st.MPI_SOURCE,
        st.MPI_TAG);
  int n = -1;
  CHECK_MPI(MPI_Get_count(&st, MPI_INT, &n));
  CHECK(n == 0, "proc_null count %d", n);
  for (int i = 0; i < 10; ++i) CHECK(b[i] == -5, "proc_null receive wrote word %d", i);
  void* back;
  int back_size;
  CHECK_MPI(MPI_Buffer_detach(&back, &back_size));
  CHECK(back == bbuf && back_size == bsize, "detach gave %p/%d, attached %p/%d", back, back_size, (void*)bbuf, bsize);
  free(bbuf);
}

/* Buffered sends between a pair: several messages in the buffer at once,
 * exact fit, exhaustion, no buffer, and detach waiting for a large copy. */
static void buffered_pair(int peer, int sender, int* a, int* b) {
  MPI_Status st;
  int one, big;
  CHECK_MPI(MPI_Pack_size(1, MPI_INT, MPI_COMM_WORLD, &one));
  CHECK_MPI(MPI_Pack_size(BIG, MPI_INT, MPI_COMM_WORLD, &big));
  if (sender) {
    /* No buffer attached. */
    CHECK(cls(MPI_Bsend(a, 1, MPI_INT, peer, 9, MPI_COMM_WORLD)) == MPI_ERR_BUFFER, "bsend without buffer");
    /* Exactly one large message fits; while the receiver has not taken it
     * (it waits for our go), nothing else fits. */
    int bsize = big + MPI_BSEND_OVERHEAD;
    char* bbuf = malloc((size_t)bsize);
    CHECK_MPI(MPI_Buffer_attach(bbuf, bsize));
    CHECK(cls(MPI_Buffer_attach(bbuf, bsize)) == MPI_ERR_BUFFER, "second attach accepted");
    fill(a, BIG, 11);
    CHECK_MPI(MPI_Bsend(a, BIG, MPI_INT, peer, 10, MPI_COMM_WORLD));
    fill(a, BIG, 99);  /* the buffered copy must not change */
    CHECK(cls(MPI_Bsend(a, 1, MPI_INT, peer, 9, MPI_COMM_WORLD)) == MPI_ERR_BUFFER, "bsend beyond the buffer");
    MPI_Request rq = MPI_REQUEST_NULL;
    CHECK(cls(MPI_Ibsend(a, 1, MPI_INT, peer, 9, MPI_COMM_WORLD, &rq)) == MPI_ERR_BUFFER, "ibsend beyond");
    CHECK_MPI(MPI_Send(&one, 1, MPI_INT, peer, 12, MPI_COMM_WORLD)); /* go */
    /* Detach blocks until the large copy has been transmitted: the buffer
     * is ours again, and scribbling on it must not reach the receiver, which
     * takes the message 0.3 s after our go. (How long detach waited is not
     * MPI's to promise: a transparent-mode replay finds the copy taken by its
     * dead incarnation long ago and does not wait.) */
    void* back;
    int back_size;
    CHECK_MPI(MPI_Buffer_detach(&back, &back_size));
    CHECK(back == bbuf && back_size == bsize, "detach gave %p/%d", back, back_size);
    memset(bbuf, 0x5a, (size_t)bsize);
    /* Several small messages at once, with room for exactly three. */
    bsize = 3 * (one + MPI_BSEND_OVERHEAD);
    CHECK_MPI(MPI_Buffer_attach(bbuf, bsize));
    for (int i = 0; i < 3; ++i) CHECK_MPI(MPI_Bsend(&i, 1, MPI_INT, peer, 13, MPI_COMM_WORLD));
    CHECK_MPI(MPI_Buffer_detach(&back, &back_size));
    CHECK(back == bbuf && back_size == bsize, "second detach gave %p/%d", back, back_size);
    free(bbuf);
  } else {
    int go;
    CHECK_MPI(MPI_Recv(&go, 1, MPI_INT, peer, 12, MPI_COMM_WORLD, &st));
    usleep(300000);  /* the sender's detach must still be waiting */
    CHECK_MPI(MPI_Recv(b, BIG, MPI_INT, peer, 10, MPI_COMM_WORLD, &st));
    expect(b, BIG, 11, "bsend big");
    expect_status(&st, peer, 10, BIG, "bsend big");
    for (int i = 0; i < 3; ++i) {
      CHECK_MPI(MPI_Recv(&go, 1, MPI_INT, peer, 13, MPI_COMM_WORLD, &st));
      CHECK(go == i, "small bsend %d carried %d", i, go);
    }
  }
}

/* Synchronous sends complete only after the receiver matched them; ready
 * sends find their receive posted. */
static void sync_and_ready(int peer, int sender, int* a, int* b) {
  MPI_Status st;
  MPI_Request rq;
  int lens[] = {0, 1, 1000, BIG}, flag, go = 1;
  for (int k = 0; k < 4; ++k) {
    int n = lens[k];
    if (sender) {
      fill(a, n, 20 + k);
      CHECK_MPI(MPI_Issend(a, n, MPI_INT, peer, 20, MPI_COMM_WORLD, &rq));
      double t0 = MPI_Wtime();
      while (MPI_Wtime() - t0 < 0.05) {
        CHECK_MPI(MPI_Test(&rq, &flag, &st));
        CHECK(!flag, "issend of %d ints completed before the receiver posted its receive", n);
      }
      CHECK_MPI(MPI_Send(&go, 1, MPI_INT, peer, 21, MPI_COMM_WORLD));
      CHECK_MPI(MPI_Wait(&rq, &st));
      /* blocking Ssend, received later */
      CHECK_MPI(MPI_Ssend(a, n, MPI_INT, peer, 22, MPI_COMM_WORLD));
      /* ready mode: wait until the receiver says its receive is posted */
      CHECK_MPI(MPI_Recv(&go, 1, MPI_INT, peer, 23, MPI_COMM_WORLD, &st));
      CHECK_MPI(MPI_Rsend(a, n, MPI_INT, peer, 24, MPI_COMM_WORLD));
      CHECK_MPI(MPI_Recv(&go, 1, MPI_INT, peer, 23, MPI_COMM_WORLD, &st));
      CHECK_MPI(MPI_Irsend(a, n, MPI_INT, peer, 25, MPI_COMM_WORLD, &rq));
      CHECK_MPI(MPI_Wait(&rq, &st));
    } else {
      CHECK_MPI(MPI_Recv(&go, 1, MPI_INT, peer, 21, MPI_COMM_WORLD, &st));
      CHECK_MPI(MPI_Recv(b, n, MPI_INT, peer, 20, MPI_COMM_WORLD, &st));
      expect(b, n, 20 + k, "issend");
      expect_status(&st, peer, 20, n, "issend");
      CHECK_MPI(MPI_Recv(b, n, MPI_INT, peer, 22, MPI_COMM_WORLD, &st));
      expect(b, n, 20 + k, "ssend");
      CHECK_MPI(MPI_Irecv(b, n, MPI_INT, peer, 24, MPI_COMM_WORLD, &rq));
      CHECK_MPI(MPI_Send(&go, 1, MPI_INT, peer, 23, MPI_COMM_WORLD));
      CHECK_MPI(MPI_Wait(&rq, &st));
      expect(b, n, 20 + k, "rsend");
      expect_status(&st, peer, 24, n, "rsend");
      CHECK_MPI(MPI_Irecv(b, n, MPI_INT, peer, 25, MPI_COMM_WORLD, &rq));
      CHECK_MPI(MPI_Send(&go, 1, MPI_INT, peer, 23, MPI_COMM_WORLD));
      CHECK_MPI(MPI_Wait(&rq, &st));
      expect(b, n, 20 + k, "irsend");
    }
  }
}

/* Blocking receives of small messages that arrived before them (they wait
 * in the unexpected queue, taken without a request): truncation, wildcards,
 * and a synchronous send acknowledged by such a receive. */
static void arrived_first(int peer, int sender, int* a, int* b) {
  MPI_Status st;
  MPI_Request rq;
  int go = 1;
  if (sender) {
    fill(a, 4, 30);
    CHECK_MPI(MPI_Send(a, 4, MPI_INT, peer, 30, MPI_COMM_WORLD));
    CHECK_MPI(MPI_Send(a, 3, MPI_INT, peer, 31, MPI_COMM_WORLD));
    CHECK_MPI(MPI_Issend(a, 2, MPI_INT, peer, 33, MPI_COMM_WORLD, &rq));
    CHECK_MPI(MPI_Send(&go, 1, MPI_INT, peer, 32, MPI_COMM_WORLD));
    CHECK_MPI(MPI_Wait(&rq, &st));
  } else {
    /* Frames of one sender arrive in order: 30, 31 and 33 are here now. */
    CHECK_MPI(MPI_Recv(&go, 1, MPI_INT, peer, 32, MPI_COMM_WORLD, &st));
    b[2] = -7;
    int rc = MPI_Recv(b, 2, MPI_INT, peer, 30, MPI_COMM_WORLD, &st);
    int c = -1;
    MPI_Error_class(rc, &c);
    CHECK(c == MPI_ERR_TRUNCATE, "4 ints into 2 returned class %d", c);
    expect(b, 2, 30, "truncated");
    CHECK(b[2] == -7, "a truncated receive wrote past its buffer");
    expect_status(&st, peer, 30, 2, "truncated");
    CHECK_MPI(MPI_Recv(b, 3, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st));
    expect(b, 3, 30, "wildcard");
    expect_status(&st, peer, 31, 3, "wildcard");
    CHECK_MPI(MPI_Recv(b, 2, MPI_INT, peer, 33, MPI_COMM_WORLD, &st));
    expect(b, 2, 30, "issend arrived first");
    expect_status(&st, peer, 33, 2, "issend arrived first");
  }
}

int main(int argc, char** argv) {
  CHECK_MPI(MPI_Init(&argc, &argv));
  CHECK_MPI(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
  CHECK_MPI(MPI_Comm_size(MPI_COMM_WORLD, &size));
  CHECK_MPI(MPI_Errhandler_set(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
  int* a = malloc(sizeof(int) * BIG);
  int* b = malloc(sizeof(int) * BIG);
  self_and_null(a, b);
  int peer = rank ^ 1;
  if (peer < size) {
    buffered_pair(peer, rank % 2 == 0, a, b);
    buffered_pair(peer, rank % 2 == 1, a, b);
    sync_and_ready(peer, rank % 2 == 0, a, b);
    arrived_first(peer, rank % 2 == 0, a, b);
  }
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  if (rank == 0) printf("send_modes: ok\n");
  free(a);
  free(b);
  CHECK_MPI(MPI_Finalize());
  return 0;
}
