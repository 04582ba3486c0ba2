/* Matching semantics: MPI_ANY_SOURCE / MPI_ANY_TAG, the non-overtaking rule
 * between one pair (with messages on both sides of the eager limit), tag
 * selection out of arrival order, probes, and MPI_Get_count. */
#include <stdlib.h>
#include <string.h>

#include "check.h"

#define PER_SENDER 200
#define BIG 70000 /* ints: above every eager limit */

static int msg_len(int seq) { return seq % 17 == 0 ? BIG : 1 + seq % 5; }

int main(int argc, char** argv) {
  int rank, size;
  CHECK_MPI(MPI_Init(&argc, &argv));
  CHECK_MPI(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
  CHECK_MPI(MPI_Comm_size(MPI_COMM_WORLD, &size));
  CHECK(size >= 2, "needs at least 2 ranks");
  int* buf = malloc(sizeof(int) * (BIG + 2));
  MPI_Status st;

  /* 1. Every sender streams PER_SENDER messages to rank 0, which takes them
   * with both wildcards; per sender the sequence numbers must arrive in order. */
  if (rank == 0) {
    int* next = calloc((size_t)size, sizeof(int));
    for (int k = 0; k < (size - 1) * PER_SENDER; ++k) {
      CHECK_MPI(MPI_Recv(buf, BIG + 2, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st));
      int src = st.MPI_SOURCE, count;
      CHECK(src > 0 && src < size, "bad source %d", src);
      CHECK(buf[0] == src, "payload names sender %d, status says %d", buf[0], src);
      CHECK(buf[1] == next[src], "from %d: got seq %d, expected %d (overtaking)", src, buf[1], next[src]);
      CHECK(st.MPI_TAG == buf[1] % 7, "tag %d for seq %d", st.MPI_TAG, buf[1]);
      CHECK_MPI(MPI_Get_count(&st, MPI_INT, &count));
      CHECK(count == msg_len(buf[1]) + 1, "count %d for seq %d", count, buf[1]);
      for (int i = 2; i <= count - 1; ++i) CHECK(buf[i] == buf[1] * 3 + i, "payload word %d", i);
      next[src]++;
    }
    free(next);
  } else {
    for (int seq = 0; seq < PER_SENDER; ++seq) {
      int n = msg_len(seq) + 1;
      buf[0] = rank;
      buf[1] = seq;
      for (int i = 2; i < n; ++i) buf[i] = seq * 3 + i;
      CHECK_MPI(MPI_Send(buf, n, MPI_INT, 0, seq % 7, MPI_COMM_WORLD));
    }
  }
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));

  /* 2. Tag selection: rank 1 sends tags 1, 2, 3; rank 0 takes 3, then 1, then 2. */
  if (rank == 1) {
    for (int t = 1; t <= 3; ++t) CHECK_MPI(MPI_Send(&t, 1, MPI_INT, 0, t, MPI_COMM_WORLD));
  } else if (rank == 0) {
    int order[3] = {3, 1, 2}, v;
    for (int i = 0; i < 3; ++i) {
      CHECK_MPI(MPI_Recv(&v, 1, MPI_INT, MPI_ANY_SOURCE, order[i], MPI_COMM_WORLD, &st));
      CHECK(v == order[i] && st.MPI_TAG == order[i] && st.MPI_SOURCE == 1, "got %d tag %d", v, st.MPI_TAG);
    }
  }

  /* 3. Probe, then receive exactly what the probe announced. */
  if (rank == 1) {
    for (int i = 0; i < 50; ++i) buf[i] = 1000 + i;
    CHECK_MPI(MPI_Send(buf, 50, MPI_INT, 0, 42, MPI_COMM_WORLD));
  } else if (rank == 0) {
    int count, flag = 0;
    CHECK_MPI(MPI_Probe(MPI_ANY_SOURCE, 42, MPI_COMM_WORLD, &st));
    CHECK(st.MPI_SOURCE == 1 && st.MPI_TAG == 42, "probe status %d/%d", st.MPI_SOURCE, st.MPI_TAG);
    CHECK_MPI(MPI_Get_count(&st, MPI_INT, &count));
    CHECK(count == 50, "probe count %d", count);
    CHECK_MPI(MPI_Iprobe(1, 42, MPI_COMM_WORLD, &flag, &st));
    CHECK(flag, "iprobe after probe found nothing");
    CHECK_MPI(MPI_Get_count(&st, MPI_BYTE, &count));
    CHECK(count == 200, "byte count %d", count);
    CHECK_MPI(MPI_Get_count(&st, MPI_DOUBLE, &count));
    CHECK(count == MPI_UNDEFINED || count == 25, "double count %d", count);
    CHECK_MPI(MPI_Recv(buf, 50, MPI_INT, st.MPI_SOURCE, st.MPI_TAG, MPI_COMM_WORLD, &st));
    for (int i = 0; i < 50; ++i) CHECK(buf[i] == 1000 + i, "word %d", i);
    /* Only tag 42 is known to be quiet: other ranks may already be sending section 4. */
    CHECK_MPI(MPI_Iprobe(MPI_ANY_SOURCE, 42, MPI_COMM_WORLD, &flag, &st));
    CHECK(!flag, "iprobe found a message that was already received");
  }

  /* 4. Non-blocking exchange with everybody at once, Waitall and Test. */
  {
    int* out = malloc(sizeof(int) * (size_t)size);
    int* in = malloc(sizeof(int) * (size_t)size);
    MPI_Request* reqs = malloc(sizeof(MPI_Request) * 2 * (size_t)size);
    MPI_Status* sts = malloc(sizeof(MPI_Status) * 2 * (size_t)size);
    for (int p = 0; p < size; ++p) {
      out[p] = rank * 1000 + p;
      in[p] = -1;
      CHECK_MPI(MPI_Irecv(&in[p], 1, MPI_INT, p, 7, MPI_COMM_WORLD, &reqs[p]));
    }
    for (int p = 0; p < size; ++p) CHECK_MPI(MPI_Isend(&out[p], 1, MPI_INT, p, 7, MPI_COMM_WORLD, &reqs[size + p]));
    CHECK_MPI(MPI_Waitall(2 * size, reqs, sts));
    for (int p = 0; p < size; ++p) {
      CHECK(in[p] == p * 1000 + rank, "from %d got %d", p, in[p]);
      CHECK(sts[p].MPI_SOURCE == p && sts[p].MPI_TAG == 7, "status of %d", p);
      CHECK(reqs[p] == MPI_REQUEST_NULL, "request not freed");
    }
    MPI_Request r;
    int v = -1, flag = 0, peer = (rank + 1) % size, from = (rank + size - 1) % size;
    CHECK_MPI(MPI_Irecv(&v, 1, MPI_INT, from, 8, MPI_COMM_WORLD, &r));
    CHECK_MPI(MPI_Send(&rank, 1, MPI_INT, peer, 8, MPI_COMM_WORLD));
    while (!flag) CHECK_MPI(MPI_Test(&r, &flag, &st));
    CHECK(v == from && r == MPI_REQUEST_NULL, "test got %d", v);
    CHECK_MPI(MPI_Test(&r, &flag, &st)); /* on MPI_REQUEST_NULL: flag true, empty status */
    CHECK(flag && st.MPI_SOURCE == MPI_ANY_SOURCE && st.MPI_TAG == MPI_ANY_TAG, "empty status");
    free(out);
    free(in);
    free(reqs);
    free(sts);
  }

  /* 5. Sendrecv shifts, MPI_PROC_NULL and messages to oneself (small and large). */
  {
    int right = (rank + 1) % size, left = (rank + size - 1) % size, got = -1, count = -1;
    CHECK_MPI(MPI_Sendrecv(&rank, 1, MPI_INT, right, 9, &got, 1, MPI_INT, left, 9, MPI_COMM_WORLD, &st));
    CHECK(got == left && st.MPI_SOURCE == left, "sendrecv got %d", got);
    CHECK_MPI(MPI_Send(buf, 10, MPI_INT, MPI_PROC_NULL, 1, MPI_COMM_WORLD));
    got = 77;
    CHECK_MPI(MPI_Recv(&got, 1, MPI_INT, MPI_PROC_NULL, 1, MPI_COMM_WORLD, &st));
    CHECK_MPI(MPI_Get_count(&st, MPI_INT, &count));
    CHECK(got == 77 && st.MPI_SOURCE == MPI_PROC_NULL && st.MPI_TAG == MPI_ANY_TAG && count == 0, "proc_null");
    int v = rank + 5;
    CHECK_MPI(MPI_Send(&v, 1, MPI_INT, rank, 10, MPI_COMM_WORLD)); /* small: buffered */
    CHECK_MPI(MPI_Recv(&got, 1, MPI_INT, rank, 10, MPI_COMM_WORLD, &st));
    CHECK(got == rank + 5 && st.MPI_SOURCE == rank, "self message");
    int* big = malloc(sizeof(int) * BIG);
    for (int i = 0; i < BIG; ++i) buf[i] = i ^ rank;
    MPI_Request rr[2];
    CHECK_MPI(MPI_Isend(buf, BIG, MPI_INT, rank, 11, MPI_COMM_WORLD, &rr[0]));
    CHECK_MPI(MPI_Irecv(big, BIG, MPI_INT, rank, 11, MPI_COMM_WORLD, &rr[1]));
    CHECK_MPI(MPI_Waitall(2, rr, MPI_STATUSES_IGNORE));
    for (int i = 0; i < BIG; ++i) CHECK(big[i] == (i ^ rank), "large self message word %d", i);
    free(big);
  }

  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  if (rank == 0) printf("order_wildcards: ok on %d ranks\n", size);
  free(buf);
  CHECK_MPI(MPI_Finalize());
  return 0;
}
