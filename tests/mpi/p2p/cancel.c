/* MPI_Cancel and MPI_Test_cancelled: receives (unmatched: cancelled;
 * matched: completes normally), sends in standard, synchronous and buffered
 * mode, small and large, unmatched (cancelled, never delivered) and matched
 * (no effect), self-messages, persistent requests, and the error cases.
 * Ranks pair up (0-1, 2-3, ...); everybody also works with itself. */
#include <stdlib.h>
#include <string.h>

#include "check.h"

#define BIG (100 * 1024) /* ints: 400 KB, above every eager limit */

static int rank, size;

static int cancelled(MPI_Status* st) {
  int flag = -1;
  CHECK_MPI(MPI_Test_cancelled(st, &flag));
  return flag;
}

static void fill(int* b, int n, int seed) {
  for (int i = 0; i < n; ++i) b[i] = seed + i;
}

/* Starts a send of the given mode (0 standard, 1 synchronous, 2 buffered). */
static void start_send(int mode, int* buf, int n, int dest, int tag, MPI_Request* rq) {
  if (mode == 0) CHECK_MPI(MPI_Isend(buf, n, MPI_INT, dest, tag, MPI_COMM_WORLD, rq));
  else if (mode == 1) CHECK_MPI(MPI_Issend(buf, n, MPI_INT, dest, tag, MPI_COMM_WORLD, rq));
  else CHECK_MPI(MPI_Ibsend(buf, n, MPI_INT, dest, tag, MPI_COMM_WORLD, rq));
}

static void receives(int peer) {
  MPI_Request rq;
  MPI_Status st;
  int v = -1, src[] = {peer, MPI_ANY_SOURCE, rank};
  /* Nobody sends tag 100: the receive is cancelled. */
  for (int k = 0; k < 3; ++k) {
    CHECK_MPI(MPI_Irecv(&v, 1, MPI_INT, src[k], 100, MPI_COMM_WORLD, &rq));
    CHECK_MPI(MPI_Cancel(&rq));
    CHECK_MPI(MPI_Wait(&rq, &st));
    CHECK(cancelled(&st) && v == -1, "unmatched receive %d: cancelled %d, v %d", k, cancelled(&st), v);
  }
  /* Matched before the cancel: completes normally. */
  CHECK_MPI(MPI_Irecv(&v, 1, MPI_INT, rank, 101, MPI_COMM_WORLD, &rq));
  int seven = 7;
  CHECK_MPI(MPI_Send(&seven, 1, MPI_INT, rank, 101, MPI_COMM_WORLD));
  CHECK_MPI(MPI_Cancel(&rq));
  CHECK_MPI(MPI_Wait(&rq, &st));
  CHECK(!cancelled(&st) && v == 7 && st.MPI_TAG == 101, "matched receive: cancelled %d v %d", cancelled(&st), v);
}

/* The sender cancels a message the receiver has not asked for yet, then
 * sends a second one on the same tag; the receiver must get only the second. */
static void unmatched_sends(int peer, int sender, int* a, int* b) {
  int lens[] = {1, 1000, BIG}, token = 0;
  MPI_Status st;
  for (int mode = 0; mode < 3; ++mode) {
    for (int k = 0; k < 3; ++k) {
      int n = lens[k], tag = 110 + mode * 3 + k;
      if (sender) {
        MPI_Request rq;
        fill(a, n, 1000);
        start_send(mode, a, n, peer, tag, &rq);
        CHECK_MPI(MPI_Cancel(&rq));
        CHECK_MPI(MPI_Wait(&rq, &st));
        CHECK(cancelled(&st), "mode %d, %d ints: unmatched send not cancelled", mode, n);
        fill(a, n, 2000);
        CHECK_MPI(MPI_Isend(a, n, MPI_INT, peer, tag, MPI_COMM_WORLD, &rq));
        CHECK_MPI(MPI_Send(&token, 1, MPI_INT, peer, 199, MPI_COMM_WORLD));
        CHECK_MPI(MPI_Wait(&rq, &st));
      } else {
        CHECK_MPI(MPI_Recv(&token, 1, MPI_INT, peer, 199, MPI_COMM_WORLD, &st));
        CHECK_MPI(MPI_Recv(b, n, MPI_INT, peer, tag, MPI_COMM_WORLD, &st));
        CHECK(b[0] == 2000 && b[n - 1] == 2000 + n - 1, "mode %d, %d ints: received %d (the cancelled message?)", mode,
              n, b[0]);
        int flag = 1;
        CHECK_MPI(MPI_Iprobe(peer, tag, MPI_COMM_WORLD, &flag, &st));
        CHECK(!flag, "mode %d, %d ints: a cancelled message is still there", mode, n);
      }
    }
  }
}

/* The receiver matched the message before the cancel: no effect. */
static void matched_sends(int peer, int sender, int* a, int* b) {
  int lens[] = {1, 1000, BIG}, token = 0;
  MPI_Status st;
  for (int mode = 0; mode < 3; ++mode) {
    for (int k = 0; k < 3; ++k) {
      int n = lens[k], tag = 140 + mode * 3 + k;
      if (sender) {
        MPI_Request rq;
        fill(a, n, 3000);
        start_send(mode, a, n, peer, tag, &rq);
        CHECK_MPI(MPI_Recv(&token, 1, MPI_INT, peer, 198, MPI_COMM_WORLD, &st));
        CHECK_MPI(MPI_Cancel(&rq));
        CHECK_MPI(MPI_Wait(&rq, &st));
        CHECK(!cancelled(&st), "mode %d, %d ints: matched send reported cancelled", mode, n);
      } else {
        CHECK_MPI(MPI_Recv(b, n, MPI_INT, peer, tag, MPI_COMM_WORLD, &st));
        CHECK(!cancelled(&st) && b[0] == 3000 && b[n - 1] == 3000 + n - 1, "matched mode %d, %d ints", mode, n);
        CHECK_MPI(MPI_Send(&token, 1, MPI_INT, peer, 198, MPI_COMM_WORLD));
      }
    }
  }
}

static void self_sends(int* a, int* b) {
  int lens[] = {1, 1000, BIG};
  MPI_Status st;
  for (int mode = 0; mode < 3; ++mode) {
    for (int k = 0; k < 3; ++k) {
      MPI_Request rq;
      int n = lens[k], flag = 1;
      start_send(mode, a, n, rank, 170, &rq);
      CHECK_MPI(MPI_Cancel(&rq));
      CHECK_MPI(MPI_Wait(&rq, &st));
      CHECK(cancelled(&st), "self mode %d, %d ints: not cancelled", mode, n);
      CHECK_MPI(MPI_Iprobe(rank, 170, MPI_COMM_WORLD, &flag, &st));
      CHECK(!flag, "self mode %d, %d ints: cancelled message still there", mode, n);
      /* matched first: no effect */
      fill(a, n, 4000 + k);
      start_send(mode, a, n, rank, 171, &rq);
      CHECK_MPI(MPI_Recv(b, n, MPI_INT, rank, 171, MPI_COMM_WORLD, &st));
      CHECK_MPI(MPI_Cancel(&rq));
      CHECK_MPI(MPI_Wait(&rq, &st));
      CHECK(!cancelled(&st) && b[n - 1] == 4000 + k + n - 1, "self matched mode %d, %d ints", mode, n);
    }
  }
}

/* A persistent send cancelled in one activation works in the next. */
static void persistent(int peer, int sender) {
  int v = 0, token = 0;
  MPI_Request rq;
  MPI_Status st;
  if (sender) {
    CHECK_MPI(MPI_Send_init(&v, 1, MPI_INT, peer, 180, MPI_COMM_WORLD, &rq));
    v = 1;
    CHECK_MPI(MPI_Start(&rq));
    CHECK_MPI(MPI_Cancel(&rq));
    CHECK_MPI(MPI_Wait(&rq, &st));
    CHECK(cancelled(&st), "persistent send not cancelled");
    CHECK(cls(MPI_Cancel(&rq)) == MPI_ERR_REQUEST, "cancel of an inactive persistent request");
    v = 2;
    CHECK_MPI(MPI_Start(&rq));
    CHECK_MPI(MPI_Wait(&rq, &st));
    CHECK(!cancelled(&st), "second activation reported cancelled");
    CHECK_MPI(MPI_Request_free(&rq));
    CHECK_MPI(MPI_Send(&token, 1, MPI_INT, peer, 197, MPI_COMM_WORLD));
  } else {
    CHECK_MPI(MPI_Recv(&token, 1, MPI_INT, peer, 197, MPI_COMM_WORLD, &st));
    CHECK_MPI(MPI_Recv(&v, 1, MPI_INT, peer, 180, MPI_COMM_WORLD, &st));
    CHECK(v == 2, "persistent: received %d", v);
  }
}

int main(int argc, char** argv) {
  CHECK_MPI(MPI_Init(&argc, &argv));
  CHECK_MPI(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
  CHECK_MPI(MPI_Comm_size(MPI_COMM_WORLD, &size));
  CHECK_MPI(MPI_Errhandler_set(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
  int* a = malloc(sizeof(int) * BIG);
  int* b = malloc(sizeof(int) * BIG);
  int bsize;
  CHECK_MPI(MPI_Pack_size(BIG, MPI_INT, MPI_COMM_WORLD, &bsize));
  bsize = 4 * (bsize + MPI_BSEND_OVERHEAD);
  char* bbuf = malloc((size_t)bsize);
  CHECK_MPI(MPI_Buffer_attach(bbuf, bsize));

  MPI_Request none = MPI_REQUEST_NULL;
  CHECK(cls(MPI_Cancel(&none)) == MPI_ERR_REQUEST, "cancel of MPI_REQUEST_NULL");
  int peer = (rank ^ 1) < size ? rank ^ 1 : rank;
  receives(peer);
  self_sends(a, b);
  if (peer != rank) {
    for (int turn = 0; turn < 2; ++turn) {
      int sender = rank % 2 == turn;
      unmatched_sends(peer, sender, a, b);
      matched_sends(peer, sender, a, b);
      persistent(peer, sender);
    }
  }
  /* Cancelled buffered copies gave their space back: detach returns. */
  void* back;
  CHECK_MPI(MPI_Buffer_detach(&back, &bsize));
  CHECK(back == bbuf, "detach address");
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  if (rank == 0) printf("cancel: ok\n");
  free(a);
  free(b);
  free(bbuf);
  CHECK_MPI(MPI_Finalize());
  return 0;
}
