/* The completion families: Waitany, Waitsome, Testany, Testall, Testsome
 * (and Waitall): MPI_UNDEFINED when nothing is active, null and inactive
 * requests, which request an "any" call picks (the lowest complete index),
 * index order in the "some" calls, and errors in statuses
 * (MPI_ERR_IN_STATUS with per-status MPI_ERROR). */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"

#define N 8

static int rank, size;

/* Nothing active: count 0, all null, null plus inactive persistent. */
static void nothing_active(void) {
  MPI_Request req[3] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL, MPI_REQUEST_NULL};
  MPI_Status st[3];
  int index = 5, flag = 0, outcount = 5, indices[3];
  for (int variant = 0; variant < 3; ++variant) {
    int count = variant == 0 ? 0 : 3;
    if (variant == 2) CHECK_MPI(MPI_Recv_init(&flag, 1, MPI_INT, rank, 1, MPI_COMM_WORLD, &req[1]));
    st[0].MPI_SOURCE = 77;
    CHECK_MPI(MPI_Waitany(count, req, &index, &st[0]));
    CHECK(index == MPI_UNDEFINED, "waitany index %d", index);
    CHECK(st[0].MPI_SOURCE == MPI_ANY_SOURCE && st[0].MPI_TAG == MPI_ANY_TAG, "waitany empty status");
    flag = 0;
    index = 5;
    CHECK_MPI(MPI_Testany(count, req, &index, &flag, &st[0]));
    CHECK(flag && index == MPI_UNDEFINED, "testany flag %d index %d", flag, index);
    CHECK_MPI(MPI_Waitsome(count, req, &outcount, indices, st));
    CHECK(outcount == MPI_UNDEFINED, "waitsome outcount %d", outcount);
    outcount = 5;
    CHECK_MPI(MPI_Testsome(count, req, &outcount, indices, st));
    CHECK(outcount == MPI_UNDEFINED, "testsome outcount %d", outcount);
    flag = 0;
    CHECK_MPI(MPI_Testall(count, req, &flag, st));
    CHECK(flag, "testall over nothing active");
    CHECK_MPI(MPI_Waitall(count, req, st));
    for (int i = 0; i < count; ++i)
      CHECK(st[i].MPI_SOURCE == MPI_ANY_SOURCE && st[i].MPI_TAG == MPI_ANY_TAG, "waitall empty status %d", i);
    if (variant == 2) {
      CHECK(req[1] != MPI_REQUEST_NULL, "inactive persistent request freed");
      CHECK_MPI(MPI_Request_free(&req[1]));
    }
  }
}

static void post(MPI_Request* req, int* buf) {
  for (int i = 0; i < N; ++i) {
    buf[i] = -1;
    CHECK_MPI(MPI_Irecv(&buf[i], 1, MPI_INT, rank, i, MPI_COMM_WORLD, &req[i]));
  }
}

static void send_self(int tag) {
  int v = 1000 + tag;
  CHECK_MPI(MPI_Send(&v, 1, MPI_INT, rank, tag, MPI_COMM_WORLD));
}

/* Receives from oneself, completed in a chosen order. */
static void ordering(void) {
  MPI_Request req[N];
  MPI_Status st[N];
  int buf[N], indices[N], outcount, index, flag;
  post(req, buf);
  send_self(5);
  send_self(2);
  send_self(7);
  CHECK_MPI(MPI_Testsome(N, req, &outcount, indices, st));
  CHECK(outcount == 3 && indices[0] == 2 && indices[1] == 5 && indices[2] == 7,
        "testsome gave %d: %d %d %d", outcount, indices[0], indices[1], indices[2]);
  for (int k = 0; k < 3; ++k) {
    CHECK(st[k].MPI_TAG == indices[k] && st[k].MPI_SOURCE == rank, "testsome status %d tag %d", k, st[k].MPI_TAG);
    CHECK(req[indices[k]] == MPI_REQUEST_NULL, "completed request %d not freed", indices[k]);
    CHECK(buf[indices[k]] == 1000 + indices[k], "buffer %d", indices[k]);
  }
  CHECK_MPI(MPI_Testsome(N, req, &outcount, indices, st));
  CHECK(outcount == 0, "testsome with nothing complete gave %d", outcount);
  CHECK_MPI(MPI_Testany(N, req, &index, &flag, &st[0]));
  CHECK(!flag && index == MPI_UNDEFINED, "testany with nothing complete: flag %d index %d", flag, index);
  CHECK_MPI(MPI_Testall(N, req, &flag, st));
  CHECK(!flag, "testall with pending requests");
  for (int i = 0; i < N; ++i)
    CHECK((req[i] == MPI_REQUEST_NULL) == (i == 2 || i == 5 || i == 7), "testall (false) changed request %d", i);
  /* Two complete: Waitany takes the lower index, then the other. */
  send_self(3);
  send_self(0);
  CHECK_MPI(MPI_Waitany(N, req, &index, &st[0]));
  CHECK(index == 0 && st[0].MPI_TAG == 0 && buf[0] == 1000, "waitany gave %d (tag %d)", index, st[0].MPI_TAG);
  CHECK_MPI(MPI_Testany(N, req, &index, &flag, &st[0]));
  CHECK(flag && index == 3 && st[0].MPI_TAG == 3, "testany gave flag %d index %d", flag, index);
  send_self(6);
  CHECK_MPI(MPI_Waitsome(N, req, &outcount, indices, MPI_STATUSES_IGNORE));
  CHECK(outcount == 1 && indices[0] == 6, "waitsome gave %d: %d", outcount, indices[0]);
  send_self(1);
  send_self(4);
  CHECK_MPI(MPI_Testall(N, req, &flag, st));
  CHECK(flag, "testall with everything complete");
  CHECK(st[1].MPI_TAG == 1 && st[4].MPI_TAG == 4, "testall statuses %d %d", st[1].MPI_TAG, st[4].MPI_TAG);
  CHECK(st[0].MPI_TAG == MPI_ANY_TAG, "testall status of a null request");
  for (int i = 0; i < N; ++i) CHECK(req[i] == MPI_REQUEST_NULL && buf[i] == 1000 + i, "request %d at the end", i);
}

/* Blocking calls wait for a peer that sends late. */
static void blocking_with_peer(int peer, int sender) {
  MPI_Request req[N];
  int buf[N], index, outcount, indices[N];
  MPI_Status st;
  if (sender) {
    /* Synchronous sends: nothing else is sent before the receiver matched
     * them (MPI makes no promise of progress while we sleep). */
    usleep(100000);
    int v = 42;
    CHECK_MPI(MPI_Ssend(&v, 1, MPI_INT, peer, 6, MPI_COMM_WORLD));
    usleep(50000);
    CHECK_MPI(MPI_Ssend(&v, 1, MPI_INT, peer, 3, MPI_COMM_WORLD));
    for (int t = 0; t < N; ++t)
      if (t != 6 && t != 3) CHECK_MPI(MPI_Send(&t, 1, MPI_INT, peer, t, MPI_COMM_WORLD));
    return;
  }
  for (int i = 0; i < N; ++i) CHECK_MPI(MPI_Irecv(&buf[i], 1, MPI_INT, peer, i, MPI_COMM_WORLD, &req[i]));
  CHECK_MPI(MPI_Waitany(N, req, &index, &st));
  CHECK(index == 6 && buf[6] == 42 && st.MPI_SOURCE == peer, "waitany on a late sender gave %d", index);
  CHECK_MPI(MPI_Waitsome(N, req, &outcount, indices, MPI_STATUSES_IGNORE));
  int found = 0;
  for (int k = 0; k < outcount; ++k) {
    found |= indices[k] == 3;
    CHECK(k == 0 || indices[k] > indices[k - 1], "waitsome indices out of order");
  }
  CHECK(outcount >= 1 && found, "waitsome gave %d requests without the one sent (tag 3)", outcount);
  CHECK_MPI(MPI_Waitall(N, req, MPI_STATUSES_IGNORE));
  for (int i = 0; i < N; ++i) CHECK(buf[i] == (i == 6 || i == 3 ? 42 : i), "buffer %d is %d", i, buf[i]);
}

/* Truncation errors: MPI_ERR_IN_STATUS from the multiple-completion calls,
 * the error class itself from Waitany; nothing written past the buffers. */
static void errors_in_statuses(void) {
  MPI_Request req[3];
  MPI_Status st[3];
  int small[2], fine[4], three[3] = {7, 8, 9}, indices[3], outcount, index, flag;
  for (int call = 0; call < 5; ++call) {
    small[0] = small[1] = -1;
    CHECK_MPI(MPI_Irecv(small, 1, MPI_INT, rank, 1, MPI_COMM_WORLD, &req[0]));
    CHECK_MPI(MPI_Irecv(fine, 4, MPI_INT, rank, 2, MPI_COMM_WORLD, &req[1]));
    req[2] = MPI_REQUEST_NULL;
    CHECK_MPI(MPI_Send(three, 3, MPI_INT, rank, 1, MPI_COMM_WORLD));
    CHECK_MPI(MPI_Send(three, 3, MPI_INT, rank, 2, MPI_COMM_WORLD));
    for (int i = 0; i < 3; ++i) st[i].MPI_ERROR = -7;
    int rc;
    switch (call) {
      case 0:
        rc = MPI_Waitall(3, req, st);
        break;
      case 1:
        rc = MPI_Testall(3, req, &flag, st);
        CHECK(flag, "testall flag with everything complete");
        break;
      case 2:
        rc = MPI_Waitsome(3, req, &outcount, indices, st);
        CHECK(outcount == 2 && indices[0] == 0 && indices[1] == 1, "waitsome outcount %d", outcount);
        break;
      case 3:
        rc = MPI_Testsome(3, req, &outcount, indices, st);
        CHECK(outcount == 2 && indices[0] == 0 && indices[1] == 1, "testsome outcount %d", outcount);
        break;
      default:
        rc = MPI_Waitany(3, req, &index, &st[0]);
        CHECK(index == 0, "waitany index %d", index);
        CHECK(cls(rc) == MPI_ERR_TRUNCATE, "waitany on a truncated receive returned class %d", cls(rc));
        CHECK_MPI(MPI_Waitany(3, req, &index, &st[1]));
        CHECK(index == 1, "second waitany index %d", index);
        rc = MPI_ERR_IN_STATUS;
        st[0].MPI_ERROR = MPI_ERR_TRUNCATE; /* single completion leaves MPI_ERROR to us */
        st[1].MPI_ERROR = MPI_SUCCESS;
        break;
    }
    CHECK(cls(rc) == MPI_ERR_IN_STATUS, "call %d returned class %d", call, cls(rc));
    CHECK(cls(st[0].MPI_ERROR) == MPI_ERR_TRUNCATE, "call %d: status 0 error %d", call, st[0].MPI_ERROR);
    CHECK(st[1].MPI_ERROR == MPI_SUCCESS, "call %d: status 1 error %d", call, st[1].MPI_ERROR);
    CHECK(req[0] == MPI_REQUEST_NULL && req[1] == MPI_REQUEST_NULL, "call %d left requests", call);
    CHECK(small[0] == 7 && small[1] == -1, "call %d: truncated receive wrote %d %d", call, small[0], small[1]);
    CHECK(fine[0] == 7 && fine[2] == 9, "call %d: second receive", call);
  }
}

int main(int argc, char** argv) {
  CHECK_MPI(MPI_Init(&argc, &argv));
  CHECK_MPI(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
  CHECK_MPI(MPI_Comm_size(MPI_COMM_WORLD, &size));
  CHECK_MPI(MPI_Errhandler_set(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
  nothing_active();
  for (int i = 0; i < 20; ++i) ordering();
  int peer = rank ^ 1;
  if (peer < size) {
    blocking_with_peer(peer, rank % 2);
    blocking_with_peer(peer, rank % 2 == 0);
  }
  errors_in_statuses();
  /* Argument errors. */
  MPI_Request r = MPI_REQUEST_NULL;
  int index, flag, outcount;
  CHECK(cls(MPI_Waitany(-1, &r, &index, MPI_STATUS_IGNORE)) == MPI_ERR_COUNT, "waitany count -1");
  CHECK(cls(MPI_Waitall(2, NULL, MPI_STATUSES_IGNORE)) == MPI_ERR_ARG, "waitall null array");
  MPI_Request bogus[2] = {MPI_REQUEST_NULL, (MPI_Request)0x18000555};
  CHECK(cls(MPI_Testall(2, bogus, &flag, MPI_STATUSES_IGNORE)) == MPI_ERR_REQUEST, "testall bogus request");
  CHECK(cls(MPI_Testsome(2, bogus, &outcount, &index, MPI_STATUSES_IGNORE)) == MPI_ERR_REQUEST, "testsome bogus");
  CHECK(cls(MPI_Testany(2, bogus, &index, &flag, MPI_STATUS_IGNORE)) == MPI_ERR_REQUEST, "testany bogus");
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  if (rank == 0) printf("completion: ok\n");
  CHECK_MPI(MPI_Finalize());
  return 0;
}
