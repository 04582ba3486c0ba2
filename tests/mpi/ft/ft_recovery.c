/* The FT-MPI core semantics, checked end to end (spec/ft-semantics.md).
 *
 *   ft_recovery <victims> [twice | cascade=<rank>]
 *
 * victims: comma-separated world ranks that SIGKILL themselves at iteration
 * KILL_AT (rank 0 never dies). "twice" (REBUILD): the respawned victims die
 * once more at KILL_AGAIN_AT. "cascade=r": rank r dies as soon as it sees the
 * failure, while the others are already in the recovery round (a failure
 * during recovery: the round restarts with the larger set). The modes come from the launcher and are read
 * back through the FTMPI_* attributes.
 *
 * Every iteration, every live rank exchanges a value with every other rank
 * (blocking Sendrecv, so a failure interrupts it). After a failure the
 * survivors recover (MANUAL: MPI_Comm_dup(MPI_COMM_WORLD); AUTO: the library
 * did, and MPI_COMM_WORLD's error handler says so), then check:
 *   - size and ranks per communicator mode (SHRINK keeps survivor order),
 *   - FTMPI_NUM_FAILED_PROCS / FTMPI_ERROR_FAILURE,
 *   - MPI_COMM_WORLD's delete callbacks ran in the order the attributes were
 *     set, and the attributes are gone; other communicators are invalid,
 *   - message mode: a message sent before the failure and received after it
 *     (RESET: never delivered; CONT: delivered), a receive posted before the
 *     failure from a survivor (RESET: ended; CONT: completes, status with the
 *     sender's new rank) and one from a victim (CONT: MPI_ERR_REQUEST),
 *   - respawned processes (REBUILD) get MPI_INIT_RESTARTED_NODE and their rank.
 * then resynchronise the iteration and go on to the end. */
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"

#define ITERS 6
#define KILL_AT 2
#define KILL_AGAIN_AT 4
#define TAG_OLD 77
#define TAG_LATE 78
#define TAG_DEAD 79
#define MAXP 64

static int comm_mode, msg_mode, rec_mode;
static int world_rank0;           /* my MPI_COMM_WORLD rank at start (slot) */
static int nprocs0;               /* MPI_COMM_WORLD size at start */
static int victim[MAXP];          /* victim[slot]: dies */
static int cascade = -1;          /* dies when it sees the others' failure */
static int dead[MAXP];            /* dead[slot]: failed and not replaced */
static int order[8], norder;      /* delete callbacks, in call order */
static int handler_calls;         /* AUTO mode: MPI_COMM_WORLD's handler */

static int delete_fn(MPI_Comm comm, int key, void* val, void* extra) {
  (void)comm;
  (void)key;
  (void)extra;
  if (norder < 8) order[norder++] = *(int*)val;
  return MPI_SUCCESS;
}

/* AUTO mode: called after each recovery with MPI_ERR_OTHER; other errors
 * (the deliberate ones below) just return their code. */
static void on_world_error(MPI_Comm* comm, int* code, ...) {
  (void)comm;
  if (cls(*code) == MPI_ERR_OTHER) handler_calls++;
}

/* World rank of a slot now (SHRINK renumbers), or -1 if it is gone. */
static int rank_of_slot(int slot) {
  if (comm_mode != FTMPI_COMM_MODE_SHRINK) return slot;
  if (dead[slot]) return -1;
  int r = 0;
  for (int s = 0; s < slot; ++s) r += !dead[s];
  return r;
}

static int value(int iter, int from, int to) { return iter * 10000 + from * 100 + to; }

/* One round of all-pairs exchange over slots; blank peers (BLANK mode) act as
 * MPI_PROC_NULL. Returns the first error. */
static int exchange(int iter) {
  for (int step = 1; step < nprocs0; ++step) {
    int to_slot = (world_rank0 + step) % nprocs0, from_slot = (world_rank0 - step + nprocs0) % nprocs0;
    int to = rank_of_slot(to_slot), from = rank_of_slot(from_slot);
    if (to < 0 && from < 0) continue; /* both gone (SHRINK) */
    if (to < 0) to = MPI_PROC_NULL;
    if (from < 0) from = MPI_PROC_NULL;
    int out = value(iter, world_rank0, to_slot), in = -7;
    MPI_Status st;
    /* Tag by iteration: in CONT mode a message of an interrupted attempt is
     * still delivered, and must not be taken for the next iteration's. */
    int rc = MPI_Sendrecv(&out, 1, MPI_INT, to, 100 + iter, &in, 1, MPI_INT, from, 100 + iter, MPI_COMM_WORLD, &st);
    if (rc != MPI_SUCCESS) return rc;
    if (from == MPI_PROC_NULL || dead[from_slot]) {
      /* BLANK: a null status and an untouched buffer */
      CHECK(in == -7 && st.MPI_SOURCE == MPI_PROC_NULL, "iter %d: from blank slot %d got %d src %d", iter, from_slot,
            in, st.MPI_SOURCE);
    } else {
      CHECK(in == value(iter, from_slot, world_rank0) && st.MPI_SOURCE == from, "iter %d: from slot %d got %d (src %d)",
            iter, from_slot, in, st.MPI_SOURCE);
    }
  }
  return MPI_SUCCESS;
}

/* The victims die together: each reports it is done with the previous
 * iteration, waits for rank 0's go with MPI_Test (which a failure notice does
 * not interrupt), then SIGKILLs itself. Rank 0 sends the go messages only
 * when every victim is ready, so no victim can be caught in a blocking call
 * by another's death and survive into a separate episode. */
static void kill_phase(int me_dies) {
  if (world_rank0 == 0) {
    MPI_Request go[MAXP];
    int ngo = 0, one = 1, x;
    for (int s = 1; s < nprocs0; ++s) {
      if (!victim[s] || s == cascade) continue;
      CHECK_MPI(MPI_Recv(&x, 1, MPI_INT, rank_of_slot(s), 90, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    }
    for (int s = 1; s < nprocs0; ++s)
      if (victim[s] && s != cascade) CHECK_MPI(MPI_Isend(&one, 1, MPI_INT, rank_of_slot(s), 91, MPI_COMM_WORLD, &go[ngo++]));
    MPI_Waitall(ngo, go, MPI_STATUSES_IGNORE); /* eager: already complete */
  } else if (me_dies) {
    int x = 1, flag = 0;
    MPI_Request r;
    CHECK_MPI(MPI_Send(&x, 1, MPI_INT, 0, 90, MPI_COMM_WORLD));
    CHECK_MPI(MPI_Irecv(&x, 1, MPI_INT, 0, 91, MPI_COMM_WORLD, &r));
    while (!flag) MPI_Test(&r, &flag, MPI_STATUS_IGNORE);
    raise(SIGKILL);
  }
}

/* Lowest live slot gathers everyone's iteration and returns the minimum. */
static int resync(int iter) {
  int n;
  MPI_Comm_size(MPI_COMM_WORLD, &n);
  int me = rank_of_slot(world_rank0), resume = iter;
  if (me == 0) {
    for (int s = 1; s < nprocs0; ++s) {
      int r = rank_of_slot(s), v;
      if (r < 0 || dead[s]) continue;
      CHECK_MPI(MPI_Recv(&v, 1, MPI_INT, r, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
      if (v < resume) resume = v;
    }
    for (int s = 1; s < nprocs0; ++s) {
      int r = rank_of_slot(s);
      if (r < 0 || dead[s]) continue;
      CHECK_MPI(MPI_Send(&resume, 1, MPI_INT, r, 3, MPI_COMM_WORLD));
    }
  } else {
    CHECK_MPI(MPI_Send(&iter, 1, MPI_INT, 0, 2, MPI_COMM_WORLD));
    CHECK_MPI(MPI_Recv(&resume, 1, MPI_INT, 0, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
  }
  return resume;
}

int main(int argc, char** argv) {
  int rc = MPI_Init(&argc, &argv);
  const int restarted = rc == MPI_INIT_RESTARTED_NODE;
  CHECK(rc == MPI_SUCCESS || restarted, "MPI_Init returned %d", rc);
  const int twice = argc > 2 && !strcmp(argv[2], "twice");
  if (argc > 2 && !strncmp(argv[2], "cascade=", 8)) cascade = atoi(argv[2] + 8);
  comm_mode = attr_int(FTMPI_COMM_MODE);
  msg_mode = attr_int(FTMPI_MSG_MODE);
  rec_mode = attr_int(FTMPI_RECOVERY_MODE);
  CHECK_MPI(MPI_Comm_rank(MPI_COMM_WORLD, &world_rank0));
  CHECK_MPI(MPI_Comm_size(MPI_COMM_WORLD, &nprocs0));
  CHECK(nprocs0 <= MAXP, "too many ranks");
  int nvictims = 0;
  for (char* p = argc > 1 ? argv[1] : ""; *p;) {
    int v = (int)strtol(p, &p, 10);
    CHECK(v > 0 && v < nprocs0, "bad victim %d", v);
    victim[v] = 1;
    nvictims++;
    if (*p == ',') p++;
  }
  if (cascade > 0) {
    CHECK(cascade < nprocs0 && !victim[cascade], "bad cascade rank %d", cascade);
    victim[cascade] = 1;
    nvictims++;
  }
  CHECK(!restarted || (comm_mode == FTMPI_COMM_MODE_REBUILD && victim[world_rank0]),
        "restarted node is not a REBUILD victim");
  if (rec_mode == FTMPI_RECOVERY_MODE_AUTO) {
    MPI_Errhandler eh;
    CHECK_MPI(MPI_Errhandler_create(on_world_error, &eh));
    CHECK_MPI(MPI_Errhandler_set(MPI_COMM_WORLD, eh));
  } else {
    CHECK_MPI(MPI_Errhandler_set(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
  }
  /* Attributes set in the order B then A: callbacks must run B, A. */
  static int val_a = 1, val_b = 2;
  int key_a, key_b;
  CHECK_MPI(MPI_Keyval_create(MPI_NULL_COPY_FN, delete_fn, &key_a, NULL));
  CHECK_MPI(MPI_Keyval_create(MPI_NULL_COPY_FN, delete_fn, &key_b, NULL));
  CHECK_MPI(MPI_Attr_put(MPI_COMM_WORLD, key_b, &val_b));
  CHECK_MPI(MPI_Attr_put(MPI_COMM_WORLD, key_a, &val_a));
  MPI_Comm derived;
  CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &derived));
  CHECK(attr_int(FTMPI_NUM_FAILED_PROCS) == 0 || restarted, "failures before any failure");

  /* The message-mode probes: A = slot 0 sends, B = the highest non-victim slot receives. */
  int B = nprocs0 - 1;
  while (victim[B]) B--;
  int first_victim = -1;
  for (int s = 1; s < nprocs0 && first_victim < 0; ++s)
    if (victim[s]) first_victim = s;
  MPI_Request late_req = MPI_REQUEST_NULL, dead_req = MPI_REQUEST_NULL;
  int late_val = -1, dead_val = -1, episodes = 0;
  int iter = 0, resumed_at = 0;

  if (restarted) {
    iter = resumed_at = resync(INT_MAX); /* learn where the others are */
    episodes = 1;
  }
  while (iter < ITERS) {
    const int first_kill = iter == KILL_AT && episodes == 0;
    const int second_kill = twice && iter == KILL_AGAIN_AT && episodes == 1;
    /* The message-mode probes go out one iteration before the kill: a
     * survivor may still be in that iteration's exchange when the victims
     * die, but never before it. */
    const int probes = iter == KILL_AT - 1 && episodes == 0 && !restarted;
    if (probes && world_rank0 == 0 && B != 0) {
      int old = 1111;
      CHECK_MPI(MPI_Send(&old, 1, MPI_INT, B, TAG_OLD, MPI_COMM_WORLD)); /* eager: completes at once */
    }
    if (probes && world_rank0 == B && B != 0) {
      CHECK_MPI(MPI_Irecv(&late_val, 1, MPI_INT, 0, TAG_LATE, MPI_COMM_WORLD, &late_req));
      CHECK_MPI(MPI_Irecv(&dead_val, 1, MPI_INT, first_victim, TAG_DEAD, MPI_COMM_WORLD, &dead_req));
    }
    if (first_kill || second_kill) {
      const int me_dies = victim[world_rank0] && world_rank0 != cascade && (first_kill ? !restarted : restarted && resumed_at < KILL_AGAIN_AT);
      kill_phase(me_dies);
    }
    rc = exchange(iter);
    if (rc == MPI_SUCCESS) {
      iter++;
      continue;
    }
    /* A failure: every blocking call returns MPI_ERR_OTHER. */
    CHECK(cls(rc) == MPI_ERR_OTHER, "iter %d: exchange returned class %d", iter, cls(rc));
    if (world_rank0 == cascade && !restarted) raise(SIGKILL);
    if (rec_mode == FTMPI_RECOVERY_MODE_MANUAL) {
      /* Until recovery, communication keeps failing. */
      int x = 0;
      CHECK(cls(MPI_Send(&x, 1, MPI_INT, 0, 5, MPI_COMM_WORLD)) == MPI_ERR_OTHER, "send before recovery");
      MPI_Comm dummy = MPI_COMM_WORLD;
      CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &dummy));
      CHECK(dummy == MPI_COMM_NULL, "recovery's dup returned a communicator");
    } else {
      CHECK(handler_calls > 0, "AUTO: MPI_COMM_WORLD's handler was not called");
    }
    episodes++;
    int episode_failures = 0;
    for (int s = 0; s < nprocs0; ++s)
      if (victim[s]) {
        if (comm_mode != FTMPI_COMM_MODE_REBUILD) dead[s] = 1;
        episode_failures++;
      }
    int n, r;
    CHECK_MPI(MPI_Comm_size(MPI_COMM_WORLD, &n));
    CHECK_MPI(MPI_Comm_rank(MPI_COMM_WORLD, &r));
    int expect_n = comm_mode == FTMPI_COMM_MODE_SHRINK ? nprocs0 - nvictims : nprocs0;
    CHECK(n == expect_n, "size after recovery %d, expected %d", n, expect_n);
    CHECK(r == rank_of_slot(world_rank0), "rank after recovery %d, expected %d", r, rank_of_slot(world_rank0));
    CHECK(attr_int(FTMPI_NUM_FAILED_PROCS) == episode_failures, "FTMPI_NUM_FAILED_PROCS %d, expected %d",
          attr_int(FTMPI_NUM_FAILED_PROCS), episode_failures);
    char text[MPI_MAX_ERROR_STRING];
    int len;
    int code = attr_int(FTMPI_ERROR_FAILURE);
    CHECK(cls(code) == MPI_ERR_OTHER, "FTMPI_ERROR_FAILURE class %d", cls(code));
    CHECK_MPI(MPI_Error_string(code, text, &len));
    for (int s = 0; s < nprocs0; ++s) {
      if (!victim[s]) continue;
      char num[16];
      snprintf(num, sizeof num, " %d", s);
      CHECK(strstr(text, num) != NULL, "'%s' does not name rank %d", text, s);
    }
    if (episodes == 1) {
      CHECK(norder == 2 && order[0] == 2 && order[1] == 1, "delete callbacks ran %d times (first %d)", norder,
            norder ? order[0] : -1);
      int* got = NULL;
      int flag = 1;
      CHECK_MPI(MPI_Attr_get(MPI_COMM_WORLD, key_a, &got, &flag));
      CHECK(!flag, "attribute survived the recovery");
      CHECK(cls(MPI_Comm_size(derived, &n)) == MPI_ERR_COMM, "derived communicator still valid");
      /* Message mode. */
      if (world_rank0 == 0 && B != 0) {
        int fresh = 3333, late = 2222;
        if (msg_mode == FTMPI_MSG_MODE_RESET) CHECK_MPI(MPI_Send(&fresh, 1, MPI_INT, rank_of_slot(B), TAG_OLD, MPI_COMM_WORLD));
        CHECK_MPI(MPI_Send(&late, 1, MPI_INT, rank_of_slot(B), TAG_LATE, MPI_COMM_WORLD));
      }
      if (world_rank0 == B && B != 0) {
        int got_old = -1;
        MPI_Status st;
        CHECK_MPI(MPI_Recv(&got_old, 1, MPI_INT, 0, TAG_OLD, MPI_COMM_WORLD, &st));
        if (msg_mode == FTMPI_MSG_MODE_RESET) {
          CHECK(got_old == 3333, "RESET delivered an old message (%d)", got_old);
          CHECK(cls(MPI_Wait(&late_req, &st)) == MPI_ERR_OTHER, "RESET: pending receive not ended");
          CHECK(cls(MPI_Wait(&dead_req, &st)) == MPI_ERR_REQUEST, "RESET: pending receive from victim");
          CHECK_MPI(MPI_Recv(&late_val, 1, MPI_INT, 0, TAG_LATE, MPI_COMM_WORLD, &st));
        } else {
          CHECK(got_old == 1111, "CONT lost the message in flight (got %d)", got_old);
          CHECK_MPI(MPI_Wait(&late_req, &st));
          CHECK(st.MPI_SOURCE == 0 && st.MPI_TAG == TAG_LATE, "CONT status %d/%d", st.MPI_SOURCE, st.MPI_TAG);
          CHECK(cls(MPI_Wait(&dead_req, &st)) == MPI_ERR_REQUEST, "CONT: receive from a victim");
        }
        CHECK(late_val == 2222, "late message %d", late_val);
      }
    }
    iter = resync(iter);
  }
  int n;
  CHECK_MPI(MPI_Comm_size(MPI_COMM_WORLD, &n));
  if (rank_of_slot(world_rank0) == 0)
    printf("ft_recovery: ok (%d iterations, %d recoveries, final size %d%s)\n", ITERS, episodes, n,
           restarted ? ", restarted" : "");
  CHECK_MPI(MPI_Finalize());
  return 0;
}
