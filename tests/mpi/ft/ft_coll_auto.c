/* Atomic collectives in recovery mode AUTO (spec/ft-collectives.md §3.6):
 * a process is killed at a chosen phase of call 1 by FTMPI_INJECT_AGREE (set
 * by the test), the library recovers by itself inside the call that fails,
 * and the job goes on over the new MPI_COMM_WORLD.
 *
 *   ft_coll_auto <collective> <count> <expect> [lag]
 *
 * collective: as in ft_coll.c. Call 0 on MPI_COMM_WORLD is a barrier; calls
 * 1, 2, ... are the collective under test, repeated until one fails (MPI_ERR_OTHER
 * with the recovery done: MPI_COMM_WORLD's handler ran once, the size and
 * FTMPI_NUM_FAILED_PROCS are those of the communicator mode). A call that
 * commits before anybody knows of the death (the victim died after the
 * decision reached it) is followed by one that aborts: the victim never
 * votes in it. Then, on the new MPI_COMM_WORLD (REBUILD: with the respawned
 * process, BLANK: with a blank), the collective once more and a gather of
 * every process's record to the lowest live rank, which checks:
 *   - every survivor failed the same call, with the same class for every
 *     call before it (MPI_SUCCESS, correct values) and for it (MPI_ERR_OTHER,
 *     receive buffers untouched);
 *   - <expect>: abort = call 1 (or the barrier before it) failed; commit =
 *     call 1 succeeded everywhere, call 2 failed; any = either;
 *   - the call after the recovery succeeded with correct values everywhere.
 * The victims never die again: injections fire in epoch 0 only.
 *
 * Recovery mode MANUAL (--ft-recovery-mode=manual) runs the same checks; the
 * survivors recover with MPI_Comm_dup(MPI_COMM_WORLD) right after the call
 * that failed, so in 'lag' ranks 1 and 3 join the recovery round from there
 * while rank 0 still waits in the agreement of call 1.
 *
 * lag: before call 1, rank 3 receives a message that rank 1 sends only after
 * 300 ms, and the victims wait 100 ms; the root is rank 0, which finishes
 * its part of call 1 (a bcast) at once and waits in the agreement for the
 * votes of ranks 1 and 3. They never enter call 1: the failure stops their
 * point-to-point call, which recovers (call 1 counts as failed for them).
 * The agreement must let rank 0 go (it waits for processes that wait for
 * it in the recovery round). */
#include <unistd.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "coll_values.h"

#define MAXP 16
#define NCALLS 3 /* calls 0..2 before the recovery */
/* A process's record, gathered after the recovery. */
enum { R_SLOT, R_RESPAWNED, R_FAILED, R_RC, R_STATE = R_RC + NCALLS, R_POST_RC = R_STATE + NCALLS, R_POST_STATE,
       R_HANDLER, R_NUM_FAILED, R_SIZE, R_LEN };

static int rank, size, count, handler_calls, root = 1;
static int blank[MAXP]; /* BLANK mode after the recovery: blank[r] */

static void on_world_error(MPI_Comm* comm, int* code, ...) {
  (void)comm;
  if (cls(*code) == MPI_ERR_OTHER) handler_calls++;
}

/* Runs the collective on MPI_COMM_WORLD as it is now (blank ranks take no
 * part: their blocks stay untouched, sums leave them out); *state says what
 * the receive buffer holds. */
static int run(const char* name, int* state) {
  const int n = count;
  int* s = calloc((size_t)n * size, sizeof(int));
  int* r = malloc(sizeof(int) * (size_t)n * size);
  int* want = malloc(sizeof(int) * (size_t)n * size);
  int* counts = malloc(sizeof(int) * size);
  int* displs = malloc(sizeof(int) * size);
  for (int i = 0; i < n * size; ++i) r[i] = PATTERN;
  int rc = MPI_SUCCESS, nr = n;
  *state = NA;
  for (int q = 0; q < size; ++q) counts[q] = n, displs[q] = q * n;
  if (!strcmp(name, "barrier")) {
    rc = MPI_Barrier(MPI_COMM_WORLD);
    nr = 0;
  } else if (!strcmp(name, "bcast")) {
    for (int i = 0; i < n; ++i) r[i] = rank == root ? f(root, i) : PATTERN, want[i] = f(root, i);
    rc = MPI_Bcast(r, n, MPI_INT, root, MPI_COMM_WORLD);
    if (rank == root) nr = 0;
  } else if (!strcmp(name, "reduce") || !strcmp(name, "allreduce") || !strcmp(name, "scan")) {
    const int upto = !strcmp(name, "scan") ? rank : size - 1;
    for (int i = 0; i < n; ++i) {
      s[i] = f(rank, i);
      want[i] = 0;
      for (int q = 0; q <= upto; ++q)
        if (!blank[q]) want[i] += f(q, i);
    }
    if (!strcmp(name, "reduce")) {
      rc = MPI_Reduce(s, r, n, MPI_INT, MPI_SUM, root, MPI_COMM_WORLD);
      if (rank != root) nr = 0;
    } else if (!strcmp(name, "allreduce")) {
      rc = MPI_Allreduce(s, r, n, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    } else {
      rc = MPI_Scan(s, r, n, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    }
  } else if (!strcmp(name, "gather") || !strcmp(name, "allgather") || !strcmp(name, "gatherv")) {
    for (int i = 0; i < n; ++i) s[i] = f(rank, i);
    for (int q = 0; q < size; ++q)
      for (int i = 0; i < n; ++i) want[q * n + i] = blank[q] ? PATTERN : f(q, i);
    nr = n * size;
    if (!strcmp(name, "gather")) rc = MPI_Gather(s, n, MPI_INT, r, n, MPI_INT, root, MPI_COMM_WORLD);
    else if (!strcmp(name, "gatherv")) rc = MPI_Gatherv(s, n, MPI_INT, r, counts, displs, MPI_INT, root, MPI_COMM_WORLD);
    else rc = MPI_Allgather(s, n, MPI_INT, r, n, MPI_INT, MPI_COMM_WORLD);
    if (strcmp(name, "allgather") && rank != root) nr = 0;
  } else if (!strcmp(name, "scatter")) {
    for (int q = 0; q < size; ++q)
      for (int i = 0; i < n; ++i) s[q * n + i] = f(q, i);
    for (int i = 0; i < n; ++i) want[i] = f(rank, i);
    rc = MPI_Scatter(s, n, MPI_INT, r, n, MPI_INT, root, MPI_COMM_WORLD);
  } else if (!strcmp(name, "alltoall") || !strcmp(name, "alltoallv")) {
    for (int q = 0; q < size; ++q)
      for (int i = 0; i < n; ++i) s[q * n + i] = g(rank, q, i), want[q * n + i] = blank[q] ? PATTERN : g(q, rank, i);
    nr = n * size;
    if (!strcmp(name, "alltoall")) rc = MPI_Alltoall(s, n, MPI_INT, r, n, MPI_INT, MPI_COMM_WORLD);
    else rc = MPI_Alltoallv(s, counts, displs, MPI_INT, r, counts, displs, MPI_INT, MPI_COMM_WORLD);
  } else if (!strcmp(name, "reduce_scatter")) {
    for (int q = 0; q < size; ++q)
      for (int i = 0; i < n; ++i) s[q * n + i] = g(rank, q, i);
    for (int i = 0; i < n; ++i) {
      want[i] = 0;
      for (int q = 0; q < size; ++q)
        if (!blank[q]) want[i] += g(q, rank, i);
    }
    rc = MPI_Reduce_scatter(s, r, counts, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  } else {
    CHECK(0, "unknown collective %s", name);
  }
  if (nr > 0) *state = judge(r, want, nr);
  for (int i = nr > 0 ? nr : 0; i < n * size; ++i)
    if (rank != root || strcmp(name, "bcast")) CHECK(r[i] == PATTERN, "%s wrote item %d beyond its buffer", name, i);
  free(s), free(r), free(want), free(counts), free(displs);
  return rc;
}

int main(int argc, char** argv) {
  const int irc = MPI_Init(&argc, &argv);
  const int respawned = irc == MPI_INIT_RESTARTED_NODE;
  CHECK(irc == MPI_SUCCESS || respawned, "MPI_Init returned %d", irc);
  CHECK(argc == 4 || (argc == 5 && !strcmp(argv[4], "lag")), "usage: ft_coll_auto <collective> <count> <commit|abort|any> [lag]");
  const int lag = argc == 5;
  if (lag) root = 0;
  const char* name = argv[1];
  count = atoi(argv[2]);
  const char* expect = argv[3];
  CHECK(attr_int(FTMPI_COLL_MODE) == FTMPI_COLL_MODE_ATOMIC, "needs --ft-coll-mode=atomic");
  const int rmode = attr_int(FTMPI_RECOVERY_MODE);
  CHECK(rmode == FTMPI_RECOVERY_MODE_AUTO || rmode == FTMPI_RECOVERY_MODE_MANUAL,
        "needs --ft-recovery-mode=auto or manual");
  const int cmode = attr_int(FTMPI_COMM_MODE);
  int slot, size0;
  CHECK_MPI(MPI_Comm_rank(MPI_COMM_WORLD, &slot));
  CHECK_MPI(MPI_Comm_size(MPI_COMM_WORLD, &size0));
  CHECK(size0 <= MAXP, "at most %d processes", MAXP);
  MPI_Errhandler eh;
  CHECK_MPI(MPI_Errhandler_create(on_world_error, &eh));
  CHECK_MPI(MPI_Errhandler_set(MPI_COMM_WORLD, eh));

  /* The victims, from FTMPI_INJECT_AGREE (phase:rank:call[:epoch],...). */
  int victim[MAXP] = {0}, nvictims = 0;
  for (const char* p = getenv("FTMPI_INJECT_AGREE"); p && *p; p = strchr(p, ',') ? strchr(p, ',') + 1 : "") {
    const char* colon = strchr(p, ':');
    CHECK(colon, "FTMPI_INJECT_AGREE: no rank in '%s'", p);
    const int v = atoi(colon + 1);
    CHECK(v >= 0 && v < size0 && v != root && !(lag && (v == 1 || v == 3)), "victim %d: not a rank, or the root", v);
    nvictims += !victim[v];
    victim[v] = 1;
  }
  CHECK(!respawned || (cmode == FTMPI_COMM_MODE_REBUILD && victim[slot]), "respawned, but not a REBUILD victim");

  int rec[R_LEN];
  for (int i = 0; i < R_LEN; ++i) rec[i] = -1;
  rec[R_SLOT] = slot;
  rec[R_RESPAWNED] = respawned;
  rank = slot, size = size0;
  if (!respawned) {
    /* Until a call fails: it recovered before returning. */
    int k = 0;
    for (;; ++k) {
      CHECK(k < NCALLS, "no call failed");
      int state = NA, rc = MPI_SUCCESS, x = 0;
      if (lag && k == 1) {
        if (victim[slot]) usleep(100000);
        if (slot == 1) usleep(300000), rc = cls(MPI_Send(&x, 1, MPI_INT, 3, 5, MPI_COMM_WORLD));
        if (slot == 3) rc = cls(MPI_Recv(&x, 1, MPI_INT, 1, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
      }
      if (rc == MPI_SUCCESS) rc = cls(k == 0 ? MPI_Barrier(MPI_COMM_WORLD) : run(name, &state));
      rec[R_RC + k] = rc, rec[R_STATE + k] = state;
      if (rc != MPI_SUCCESS) break;
      CHECK(handler_calls == 0, "call %d succeeded after the handler ran", k);
    }
    rec[R_FAILED] = k;
    if (rmode == FTMPI_RECOVERY_MODE_MANUAL) {
      /* The recovery AUTO ran inside the failed call; here it is ours. */
      MPI_Comm unused;
      CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &unused));
    }
    rec[R_NUM_FAILED] = attr_int(FTMPI_NUM_FAILED_PROCS);
  }
  rec[R_HANDLER] = handler_calls;

  /* The new MPI_COMM_WORLD. */
  CHECK_MPI(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
  CHECK_MPI(MPI_Comm_size(MPI_COMM_WORLD, &size));
  rec[R_SIZE] = size;
  if (cmode == FTMPI_COMM_MODE_BLANK)
    for (int q = 0; q < size; ++q) blank[q] = victim[q];
  int low = 0;
  while (blank[low]) ++low;
  int state = NA;
  rec[R_POST_RC] = cls(run(name, &state));
  rec[R_POST_STATE] = state;
  int all[R_LEN * MAXP];
  for (int i = 0; i < R_LEN * MAXP; ++i) all[i] = -1;
  CHECK_MPI(MPI_Gather(rec, R_LEN, MPI_INT, all, R_LEN, MPI_INT, low, MPI_COMM_WORLD));

  if (rank == low) {
    const int want_size = cmode == FTMPI_COMM_MODE_SHRINK ? size0 - nvictims : size0;
    const int want_live = cmode == FTMPI_COMM_MODE_REBUILD ? size0 : size0 - nvictims;
    int failed = -1, nlive = 0, nsurv = 0, ref = -1;
    for (int q = 0; q < size; ++q) {
      const int* e = all + R_LEN * q;
      if (e[R_SLOT] < 0) {
        CHECK(blank[q], "no record from rank %d", q);
        continue;
      }
      nlive++;
      const int who = e[R_SLOT];
      CHECK(e[R_SIZE] == want_size, "slot %d: size %d after the recovery, expected %d", who, e[R_SIZE], want_size);
      CHECK(e[R_POST_RC] == MPI_SUCCESS, "slot %d: the call after the recovery returned class %d", who, e[R_POST_RC]);
      CHECK(e[R_POST_STATE] == CORRECT || e[R_POST_STATE] == NA, "slot %d: wrong values after the recovery (state %d)",
            who, e[R_POST_STATE]);
      if (e[R_RESPAWNED]) {
        CHECK(victim[who], "slot %d respawned", who);
        continue;
      }
      nsurv++;
      CHECK(!victim[who], "victim slot %d survived", who);
      const int k = e[R_FAILED];
      CHECK(e[R_HANDLER] == 1, "slot %d: MPI_COMM_WORLD's handler ran %d times", who, e[R_HANDLER]);
      CHECK(e[R_NUM_FAILED] == nvictims, "slot %d: FTMPI_NUM_FAILED_PROCS %d", who, e[R_NUM_FAILED]);
      if (failed < 0) failed = k, ref = q;
      CHECK(k == failed, "slot %d failed call %d, slot %d call %d", who, k, all[R_LEN * ref + R_SLOT], failed);
      for (int c = 0; c <= k; ++c) {
        const int rc = e[R_RC + c], st = e[R_STATE + c];
        if (c < k) {
          CHECK(rc == MPI_SUCCESS && (st == CORRECT || st == NA), "slot %d call %d: class %d state %d", who, c, rc, st);
        } else {
          CHECK(rc == MPI_ERR_OTHER, "slot %d: call %d returned class %d", who, c, rc);
          CHECK(st == UNTOUCHED || st == NA, "slot %d: call %d aborted but its buffer changed (state %d)", who, c, st);
        }
      }
    }
    CHECK(nlive == want_live, "%d live processes after the recovery, expected %d", nlive, want_live);
    CHECK(strcmp(expect, "abort") || failed <= 1, "%s: expected call 1 to abort, call %d failed", name, failed);
    CHECK(strcmp(expect, "commit") || failed == 2, "%s: expected call 1 to commit, call %d failed", name, failed);
    printf("ft_coll_auto: ok %s, %d survivors failed call %d, %d processes after the recovery\n", name, nsurv, failed,
           nlive);
  }
  CHECK_MPI(MPI_Finalize());
  return 0;
}
