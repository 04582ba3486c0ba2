/* Persistent requests: every init call, MPI_Start / MPI_Startall reused many
 * times with new buffer contents, inactive requests in Wait / Test / Waitall
 * (immediate, empty status), MPI_Request_free on inactive and on active
 * requests, errors for starting an active or non-persistent request, and a
 * datatype freed while its persistent request lives on. Ranks pair up
 * (0-1, 2-3, ...); everybody also works with itself. */
#include <stdlib.h>
#include <string.h>

#include "check.h"

#define ROUNDS 500
#define BIG (40 * 1024) /* ints: 160 KB, above every eager limit */

static int rank, size;

static void expect_empty(MPI_Status* st, const char* what) {
  int n = -1;
  CHECK_MPI(MPI_Get_count(st, MPI_INT, &n));
  CHECK(st->MPI_SOURCE == MPI_ANY_SOURCE && st->MPI_TAG == MPI_ANY_TAG && n == 0,
        "%s: status of an inactive request: source %d tag %d count %d", what, st->MPI_SOURCE, st->MPI_TAG, n);
}

/* Rounds of send/recv with every persistent send mode towards `peer`. */
static void rounds(int peer, int* sbuf, int* rbuf, int n) {
  MPI_Request req[5];
  MPI_Status st[5];
  int bsize;
  CHECK_MPI(MPI_Pack_size(n, MPI_INT, MPI_COMM_WORLD, &bsize));
  bsize = 2 * (bsize + MPI_BSEND_OVERHEAD);
  char* bbuf = malloc((size_t)bsize);
  CHECK_MPI(MPI_Buffer_attach(bbuf, bsize));
  /* Receives first in each round, so the ready send always finds its match:
   * every round ends with a barrier-like exchange through Waitall. */
  CHECK_MPI(MPI_Recv_init(rbuf, n, MPI_INT, peer, 7, MPI_COMM_WORLD, &req[0]));
  CHECK_MPI(MPI_Send_init(sbuf, n, MPI_INT, peer, 7, MPI_COMM_WORLD, &req[1]));
  CHECK_MPI(MPI_Ssend_init(sbuf, n, MPI_INT, peer, 7, MPI_COMM_WORLD, &req[2]));
  CHECK_MPI(MPI_Bsend_init(sbuf, n, MPI_INT, peer, 7, MPI_COMM_WORLD, &req[3]));
  CHECK_MPI(MPI_Rsend_init(sbuf, n, MPI_INT, peer, 7, MPI_COMM_WORLD, &req[4]));
  for (int r = 0; r < ROUNDS; ++r) {
    int mode = 1 + r % 4;  /* which send this round */
    for (int i = 0; i < n; ++i) sbuf[i] = r * 31 + i + rank;
    CHECK_MPI(MPI_Start(&req[0]));
    /* the receive is posted on both sides before any ready send goes out */
    if (mode == 4) CHECK_MPI(MPI_Sendrecv(NULL, 0, MPI_INT, peer, 8, NULL, 0, MPI_INT, peer, 8, MPI_COMM_WORLD,
                                          MPI_STATUS_IGNORE));
    CHECK_MPI(MPI_Start(&req[mode]));
    CHECK(cls(MPI_Start(&req[mode])) == MPI_ERR_REQUEST, "restarting an active request accepted");
    CHECK_MPI(MPI_Waitall(5, req, st));
    for (int i = 0; i < 5; ++i) CHECK(req[i] != MPI_REQUEST_NULL, "persistent request %d freed by Waitall", i);
    int count = -1;
    CHECK_MPI(MPI_Get_count(&st[0], MPI_INT, &count));
    CHECK(count == n && st[0].MPI_SOURCE == peer && st[0].MPI_TAG == 7, "round %d: count %d source %d", r, count,
          st[0].MPI_SOURCE);
    for (int i = 0; i < n; ++i)
      CHECK(rbuf[i] == r * 31 + i + peer, "round %d mode %d word %d: %d", r, mode, i, rbuf[i]);
    for (int i = 1; i < 5; ++i)
      if (i != mode) expect_empty(&st[i], "waitall on inactive");
  }
  /* Inactive requests complete at once in Wait and Test. */
  MPI_Status s;
  int flag = 0;
  CHECK_MPI(MPI_Wait(&req[1], &s));
  expect_empty(&s, "wait on inactive");
  CHECK_MPI(MPI_Test(&req[0], &flag, &s));
  CHECK(flag, "test on an inactive request");
  expect_empty(&s, "test on inactive");
  for (int i = 0; i < 5; ++i) {
    CHECK_MPI(MPI_Request_free(&req[i]));
    CHECK(req[i] == MPI_REQUEST_NULL, "request_free left the handle");
  }
  void* back;
  CHECK_MPI(MPI_Buffer_detach(&back, &bsize));
  free(bbuf);
}

/* Startall over a mixed set, and MPI_Request_free on active requests: the
 * operations still complete (the receiver sees the data). */
static void startall_and_free(int peer) {
  int s[4], r[4] = {0, 0, 0, 0};
  MPI_Request req[4];
  for (int i = 0; i < 4; ++i) s[i] = 100 * rank + i;
  for (int i = 0; i < 2; ++i) {
    CHECK_MPI(MPI_Recv_init(&r[i], 1, MPI_INT, peer, 30 + i, MPI_COMM_WORLD, &req[i]));
    CHECK_MPI(MPI_Send_init(&s[i], 1, MPI_INT, peer, 30 + i, MPI_COMM_WORLD, &req[2 + i]));
  }
  for (int round = 0; round < 50; ++round) {
    r[0] = r[1] = -1;
    CHECK_MPI(MPI_Startall(4, req));
    CHECK_MPI(MPI_Waitall(4, req, MPI_STATUSES_IGNORE));
    CHECK(r[0] == 100 * peer && r[1] == 100 * peer + 1, "startall round %d got %d %d", round, r[0], r[1]);
  }
  /* Free while active: start both directions, free the send, wait the receive. */
  CHECK_MPI(MPI_Start(&req[0]));
  CHECK_MPI(MPI_Start(&req[2]));
  CHECK_MPI(MPI_Request_free(&req[2]));
  CHECK_MPI(MPI_Wait(&req[0], MPI_STATUS_IGNORE));
  CHECK(r[0] == 100 * peer, "after free-while-active got %d", r[0]);
  /* A large non-persistent send freed while active still arrives. */
  int* big = malloc(sizeof(int) * BIG);
  for (int i = 0; i < BIG; ++i) big[i] = i ^ rank;
  MPI_Request one;
  CHECK_MPI(MPI_Isend(big, BIG, MPI_INT, peer, 40, MPI_COMM_WORLD, &one));
  CHECK_MPI(MPI_Request_free(&one));
  int* in = malloc(sizeof(int) * BIG);
  CHECK_MPI(MPI_Recv(in, BIG, MPI_INT, peer, 40, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
  for (int i = 0; i < BIG; ++i) CHECK(in[i] == (i ^ peer), "freed isend word %d", i);
  /* Our big buffer may be read by the peer until it has its data. */
  CHECK_MPI(MPI_Sendrecv(NULL, 0, MPI_INT, peer, 41, NULL, 0, MPI_INT, peer, 41, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
  free(big);
  free(in);
  CHECK_MPI(MPI_Request_free(&req[0]));
  CHECK_MPI(MPI_Request_free(&req[1]));
  CHECK_MPI(MPI_Request_free(&req[3]));
}

/* A persistent request keeps its datatype alive after MPI_Type_free. */
static void freed_type(int peer) {
  MPI_Datatype vec;
  double s[20], r[20];
  MPI_Request req[2];
  CHECK_MPI(MPI_Type_vector(5, 1, 2, MPI_DOUBLE, &vec));
  CHECK_MPI(MPI_Type_commit(&vec));
  CHECK_MPI(MPI_Send_init(s, 2, vec, peer, 50, MPI_COMM_WORLD, &req[0]));
  CHECK_MPI(MPI_Recv_init(r, 2, vec, peer, 50, MPI_COMM_WORLD, &req[1]));
  CHECK_MPI(MPI_Type_free(&vec));
  CHECK(vec == MPI_DATATYPE_NULL, "type_free left the handle");
  for (int round = 0; round < 20; ++round) {
    for (int i = 0; i < 20; ++i) {
      s[i] = round * 100 + i + 0.5 * rank;
      r[i] = -1;
    }
    CHECK_MPI(MPI_Startall(2, req));
    CHECK_MPI(MPI_Waitall(2, req, MPI_STATUSES_IGNORE));
    /* two vectors of 5 every other double; extent 9 doubles, so the second
     * item starts at index 9 */
    for (int i = 0; i < 20; ++i) {
      int used = (i < 9 && i % 2 == 0) || (i >= 9 && i < 18 && (i - 9) % 2 == 0);
      double want = used ? round * 100 + i + 0.5 * peer : -1;
      CHECK(r[i] == want, "round %d: element %d is %g, expected %g", round, i, r[i], want);
    }
  }
  CHECK_MPI(MPI_Request_free(&req[0]));
  CHECK_MPI(MPI_Request_free(&req[1]));
}

int main(int argc, char** argv) {
  CHECK_MPI(MPI_Init(&argc, &argv));
  CHECK_MPI(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
  CHECK_MPI(MPI_Comm_size(MPI_COMM_WORLD, &size));
  CHECK_MPI(MPI_Errhandler_set(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
  int* sbuf = malloc(sizeof(int) * BIG);
  int* rbuf = malloc(sizeof(int) * BIG);
  /* A non-persistent request cannot be started. */
  MPI_Request plain;
  int v = 1;
  CHECK_MPI(MPI_Irecv(&v, 1, MPI_INT, rank, 99, MPI_COMM_WORLD, &plain));
  CHECK(cls(MPI_Start(&plain)) == MPI_ERR_REQUEST, "start of a non-persistent request");
  CHECK_MPI(MPI_Send(&v, 1, MPI_INT, rank, 99, MPI_COMM_WORLD));
  CHECK_MPI(MPI_Wait(&plain, MPI_STATUS_IGNORE));
  MPI_Request none = MPI_REQUEST_NULL;
  CHECK(cls(MPI_Start(&none)) == MPI_ERR_REQUEST, "start of MPI_REQUEST_NULL");
  CHECK(cls(MPI_Request_free(&none)) == MPI_ERR_REQUEST, "free of MPI_REQUEST_NULL");

  int peer = (rank ^ 1) < size ? rank ^ 1 : rank;
  int lens[] = {0, 1, 1000, BIG};
  for (int k = 0; k < 4; ++k) {
    rounds(rank, sbuf, rbuf, lens[k]); /* with oneself */
    if (peer != rank) rounds(peer, sbuf, rbuf, lens[k]);
  }
  startall_and_free(peer);
  freed_type(peer);
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  if (rank == 0) printf("persistent: ok\n");
  free(sbuf);
  free(rbuf);
  CHECK_MPI(MPI_Finalize());
  return 0;
}
