/* Requests on a process that died (spec/ft-semantics.md §4.4, "Requests and
 * dead processes"), in every communicator mode x message mode with MANUAL
 * recovery, np 4. Slot 1 dies; slot 0 holds the requests:
 *
 *   A  Irecv from 1 (dead peer)          B  Irecv from 2 (survivor)
 *   C  Recv_init from 1, started          D  Recv_init from 1, never started
 *   E  Send_init to 1, never started      F  Isend to 1, 1 MiB (rendezvous)
 *   G  Recv_init from 3, never started
 *
 * Before the recovery: Waitall(A, B) gives MPI_ERR_IN_STATUS with
 * MPI_ERR_PENDING for both (neither is freed); Wait(A), Test(F), Waitany and
 * Testany give MPI_ERR_OTHER and leave them; blocking Send/Recv with rank 1
 * give MPI_ERR_OTHER. After it: A, C, F end with MPI_ERR_REQUEST (A and F
 * freed, C inactive); MPI_Start of C, D and E works in REBUILD (the rank names
 * the replacement) and gives MPI_ERR_REQUEST in BLANK and SHRINK; B completes
 * in CONT (status: the sender's new rank) and ended with MPI_ERR_OTHER in
 * RESET; G works everywhere (SHRINK: re-targeted to slot 3's new rank); new
 * blocking calls with rank 1 reach the replacement (REBUILD), act as
 * MPI_PROC_NULL (BLANK) or reach slot 2, now rank 1 (SHRINK). */
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"

#define BIG (1 << 20)

static int comm_mode, msg_mode;

static void recover(void) {
  MPI_Comm unused;
  int rc;
  while ((rc = MPI_Comm_dup(MPI_COMM_WORLD, &unused)) != MPI_SUCCESS)
    CHECK(cls(rc) == MPI_ERR_OTHER, "recovery failed with class %d", cls(rc));
}

/* Slot s's rank after the recovery. */
static int rank_of_slot(int s) { return comm_mode == FTMPI_COMM_MODE_SHRINK && s > 1 ? s - 1 : s; }

static void slot0(void) {
  int a = -1, b = -1, c = -1, d = -1, e = 55, g = -1, go = 1, v = -1;
  char* big = calloc(BIG, 1);
  MPI_Request A, B, C, D, E, F, G, two[2];
  MPI_Status st[2], s;
  CHECK_MPI(MPI_Irecv(&a, 1, MPI_INT, 1, 1, MPI_COMM_WORLD, &A));
  CHECK_MPI(MPI_Irecv(&b, 1, MPI_INT, 2, 2, MPI_COMM_WORLD, &B));
  CHECK_MPI(MPI_Recv_init(&c, 1, MPI_INT, 1, 3, MPI_COMM_WORLD, &C));
  CHECK_MPI(MPI_Start(&C));
  CHECK_MPI(MPI_Recv_init(&d, 1, MPI_INT, 1, 4, MPI_COMM_WORLD, &D));
  CHECK_MPI(MPI_Send_init(&e, 1, MPI_INT, 1, 5, MPI_COMM_WORLD, &E));
  CHECK_MPI(MPI_Isend(big, BIG, MPI_CHAR, 1, 8, MPI_COMM_WORLD, &F));
  CHECK_MPI(MPI_Recv_init(&g, 1, MPI_INT, 3, 6, MPI_COMM_WORLD, &G));
  CHECK_MPI(MPI_Send(&go, 1, MPI_INT, 1, 99, MPI_COMM_WORLD)); /* "posted": slot 1 dies now */

  /* ---- before the recovery ---- */
  two[0] = A, two[1] = B;
  int rc = MPI_Waitall(2, two, st);
  CHECK(cls(rc) == MPI_ERR_IN_STATUS, "Waitall before the recovery: class %d", cls(rc));
  CHECK(st[0].MPI_ERROR == MPI_ERR_PENDING && two[0] == A, "request to the dead: status %d, %s", st[0].MPI_ERROR,
        two[0] == MPI_REQUEST_NULL ? "freed" : "kept");
  CHECK(st[1].MPI_ERROR == MPI_ERR_PENDING && two[1] == B, "request to a survivor: status %d", st[1].MPI_ERROR);
  CHECK(cls(MPI_Wait(&A, &s)) == MPI_ERR_OTHER && A != MPI_REQUEST_NULL, "Wait on the dead request before recovery");
  int flag = 1, index = 0;
  CHECK(cls(MPI_Test(&F, &flag, &s)) == MPI_ERR_OTHER && !flag && F != MPI_REQUEST_NULL, "Test of the dead send");
  two[0] = A, two[1] = F;
  CHECK(cls(MPI_Waitany(2, two, &index, &s)) == MPI_ERR_OTHER && index == MPI_UNDEFINED && two[0] == A &&
            two[1] == F,
        "Waitany before recovery: index %d", index);
  CHECK(cls(MPI_Testany(2, two, &index, &flag, &s)) == MPI_ERR_OTHER && !flag && two[0] == A && two[1] == F,
        "Testany before recovery");
  CHECK(cls(MPI_Recv(&v, 1, MPI_INT, 1, 10, MPI_COMM_WORLD, &s)) == MPI_ERR_OTHER, "blocking Recv from the dead");
  CHECK(cls(MPI_Send(&go, 1, MPI_INT, 1, 11, MPI_COMM_WORLD)) == MPI_ERR_OTHER, "blocking Send to the dead");

  recover();

  /* ---- after the recovery ---- */
  CHECK(cls(MPI_Wait(&A, &s)) == MPI_ERR_REQUEST && A == MPI_REQUEST_NULL, "Irecv from the dead after recovery");
  int idx[2];
  two[0] = F, two[1] = C;
  int out = -1;
  rc = MPI_Waitsome(2, two, &out, idx, st);
  CHECK(cls(rc) == MPI_ERR_IN_STATUS && out == 2, "Waitsome of F, C: class %d, %d done", cls(rc), out);
  CHECK(st[0].MPI_ERROR == MPI_ERR_REQUEST && st[1].MPI_ERROR == MPI_ERR_REQUEST, "F, C: %d %d", st[0].MPI_ERROR,
        st[1].MPI_ERROR);
  CHECK(two[0] == MPI_REQUEST_NULL && two[1] == C, "F freed, persistent C kept");
  const int respawned = comm_mode == FTMPI_COMM_MODE_REBUILD;
  int rc_c = MPI_Start(&C), rc_d = MPI_Start(&D), rc_e = MPI_Start(&E);
  if (respawned) {
    CHECK(rc_c == MPI_SUCCESS && rc_d == MPI_SUCCESS && rc_e == MPI_SUCCESS, "REBUILD: Start %d %d %d", rc_c, rc_d,
          rc_e);
  } else {
    CHECK(cls(rc_c) == MPI_ERR_REQUEST && cls(rc_d) == MPI_ERR_REQUEST && cls(rc_e) == MPI_ERR_REQUEST,
          "persistent requests whose peer died: Start classes %d %d %d", cls(rc_c), cls(rc_d), cls(rc_e));
  }
  /* New blocking calls with rank 1. */
  CHECK_MPI(MPI_Recv(&v, 1, MPI_INT, 1, 10, MPI_COMM_WORLD, &s));
  if (comm_mode == FTMPI_COMM_MODE_BLANK)
    CHECK(s.MPI_SOURCE == MPI_PROC_NULL && v == -1, "BLANK: Recv from a blank: source %d, value %d", s.MPI_SOURCE, v);
  else
    CHECK(v == (respawned ? 1001 : 1002) && s.MPI_SOURCE == 1, "Recv from rank 1: %d from %d", v, s.MPI_SOURCE);
  CHECK_MPI(MPI_Send(&go, 1, MPI_INT, 1, 11, MPI_COMM_WORLD));
  if (respawned) {
    CHECK_MPI(MPI_Wait(&C, &s));
    CHECK(c == 1003, "C after restart: %d", c);
    CHECK_MPI(MPI_Wait(&D, &s));
    CHECK(d == 1004, "D: %d", d);
    CHECK_MPI(MPI_Wait(&E, &s));
  }
  /* B: between survivors. */
  if (msg_mode == FTMPI_MSG_MODE_CONT) {
    CHECK_MPI(MPI_Wait(&B, &s));
    CHECK(b == 2002 && s.MPI_SOURCE == rank_of_slot(2), "CONT: B got %d from %d", b, s.MPI_SOURCE);
  } else {
    CHECK(cls(MPI_Wait(&B, &s)) == MPI_ERR_OTHER && B == MPI_REQUEST_NULL, "RESET: B not ended by the recovery");
    CHECK_MPI(MPI_Recv(&b, 1, MPI_INT, rank_of_slot(2), 2, MPI_COMM_WORLD, &s));
    CHECK(b == 2002, "RESET: the new receive got %d", b);
  }
  /* G: a persistent request to a survivor, never started before. */
  CHECK_MPI(MPI_Start(&G));
  CHECK_MPI(MPI_Wait(&G, &s));
  CHECK(g == 3006 && s.MPI_SOURCE == rank_of_slot(3), "G got %d from %d", g, s.MPI_SOURCE);
  MPI_Request* left[] = {&C, &D, &E, &G};
  for (int i = 0; i < 4; ++i) CHECK_MPI(MPI_Request_free(left[i]));
  free(big);
}

int main(int argc, char** argv) {
  int rc = MPI_Init(&argc, &argv), rank, go, v;
  const int restarted = rc == MPI_INIT_RESTARTED_NODE;
  CHECK(rc == MPI_SUCCESS || restarted, "MPI_Init returned %d", rc);
  CHECK_MPI(MPI_Errhandler_set(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
  CHECK_MPI(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
  comm_mode = attr_int(FTMPI_COMM_MODE);
  msg_mode = attr_int(FTMPI_MSG_MODE);
  MPI_Status s;
  if (restarted) { /* REBUILD: the replacement of slot 1 */
    CHECK(rank == 1, "restarted as rank %d", rank);
    int x = 1003, y = 1004, z = 1001;
    CHECK_MPI(MPI_Send(&z, 1, MPI_INT, 0, 10, MPI_COMM_WORLD));
    CHECK_MPI(MPI_Recv(&go, 1, MPI_INT, 0, 11, MPI_COMM_WORLD, &s));
    CHECK_MPI(MPI_Send(&x, 1, MPI_INT, 0, 3, MPI_COMM_WORLD));
    CHECK_MPI(MPI_Send(&y, 1, MPI_INT, 0, 4, MPI_COMM_WORLD));
    CHECK_MPI(MPI_Recv(&v, 1, MPI_INT, 0, 5, MPI_COMM_WORLD, &s));
    CHECK(v == 55, "E delivered %d", v);
  } else if (rank == 0) {
    slot0();
  } else if (rank == 1) {
    CHECK_MPI(MPI_Recv(&go, 1, MPI_INT, 0, 99, MPI_COMM_WORLD, &s));
    /* Synchronous: slots 2 and 3 have it before this process dies. */
    CHECK_MPI(MPI_Ssend(&go, 1, MPI_INT, 2, 9, MPI_COMM_WORLD));
    CHECK_MPI(MPI_Ssend(&go, 1, MPI_INT, 3, 9, MPI_COMM_WORLD));
    raise(SIGKILL);
  } else {
    const int slot = rank;
    CHECK_MPI(MPI_Recv(&go, 1, MPI_INT, 1, 9, MPI_COMM_WORLD, &s));
    rc = MPI_Recv(&v, 1, MPI_INT, 1, 77, MPI_COMM_WORLD, &s);
    CHECK(cls(rc) == MPI_ERR_OTHER, "blocking Recv from the dying rank: class %d", cls(rc));
    recover();
    if (slot == 2) {
      int x = 2002, y = 1002;
      CHECK_MPI(MPI_Send(&x, 1, MPI_INT, 0, 2, MPI_COMM_WORLD));
      if (comm_mode == FTMPI_COMM_MODE_SHRINK) {
        CHECK_MPI(MPI_Send(&y, 1, MPI_INT, 0, 10, MPI_COMM_WORLD));
        CHECK_MPI(MPI_Recv(&go, 1, MPI_INT, 0, 11, MPI_COMM_WORLD, &s));
      }
    } else {
      int x = 3006;
      CHECK_MPI(MPI_Send(&x, 1, MPI_INT, 0, 6, MPI_COMM_WORLD));
    }
  }
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  if (rank == 0) printf("ft_requests: ok\n");
  MPI_Finalize();
  return 0;
}
