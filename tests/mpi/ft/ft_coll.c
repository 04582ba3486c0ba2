/* Fault-tolerant collectives (spec/ft-collectives.md): one collective with a
 * process killed at a chosen phase by FTMPI_INJECT_AGREE (set by the test),
 * in the collective mode and recovery mode the launcher gives.
 *
 *   ft_coll <collective> <count> <expect>
 *
 * collective: barrier bcast reduce allreduce scan gather scatter allgather
 * alltoall reduce_scatter gatherv alltoallv. Call 0 on MPI_COMM_WORLD is a barrier, call 1 the
 * collective under test (name call 1 in FTMPI_INJECT_AGREE). Receive
 * buffers are filled with a pattern first. Then the survivors recover
 * (MANUAL: MPI_Comm_dup(MPI_COMM_WORLD); IGNORE: nothing) and the lowest
 * survivor collects every survivor's return class and buffer state:
 * atomic mode: all classes equal; MPI_SUCCESS with correct values
 * everywhere, or MPI_ERR_OTHER with untouched buffers everywhere; <expect>
 * (commit, abort or any) names the outcome. Non-atomic mode: each class is
 * MPI_SUCCESS (then with correct values) or MPI_ERR_OTHER. */
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "coll_values.h"

static int rank, size, count;

/* Runs the collective; *state says what its receive buffer holds. */
static int run(const char* name, int* state) {
  const int root = 1, n = count;
  int* s = malloc(sizeof(int) * (size_t)n * size);
  int* r = malloc(sizeof(int) * (size_t)n * size);
  int* want = malloc(sizeof(int) * (size_t)n * size);
  int* counts = malloc(sizeof(int) * size);
  int* displs = malloc(sizeof(int) * size);
  for (int i = 0; i < n * size; ++i) r[i] = PATTERN;
  int rc = MPI_SUCCESS, nr = n; /* items to judge */
  *state = NA;
  if (!strcmp(name, "barrier")) {
    rc = MPI_Barrier(MPI_COMM_WORLD);
    nr = 0;
  } else if (!strcmp(name, "bcast")) {
    for (int i = 0; i < n; ++i) r[i] = rank == root ? f(root, i) : PATTERN, want[i] = f(root, i);
    rc = MPI_Bcast(r, n, MPI_INT, root, MPI_COMM_WORLD);
    if (rank == root) nr = 0, *state = NA;
  } else if (!strcmp(name, "reduce") || !strcmp(name, "allreduce") || !strcmp(name, "scan")) {
    const int upto = !strcmp(name, "scan") ? rank : size - 1;
    for (int i = 0; i < n; ++i) {
      s[i] = f(rank, i);
      want[i] = 0;
      for (int q = 0; q <= upto; ++q) want[i] += f(q, i);
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
      for (int i = 0; i < n; ++i) want[q * n + i] = f(q, i);
    for (int q = 0; q < size; ++q) counts[q] = n, displs[q] = q * n;
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
      for (int i = 0; i < n; ++i) s[q * n + i] = g(rank, q, i), want[q * n + i] = g(q, rank, i);
    for (int q = 0; q < size; ++q) counts[q] = n, displs[q] = q * n;
    nr = n * size;
    if (!strcmp(name, "alltoall")) rc = MPI_Alltoall(s, n, MPI_INT, r, n, MPI_INT, MPI_COMM_WORLD);
    else rc = MPI_Alltoallv(s, counts, displs, MPI_INT, r, counts, displs, MPI_INT, MPI_COMM_WORLD);
  } else if (!strcmp(name, "reduce_scatter")) {
    for (int q = 0; q < size; ++q) {
      counts[q] = n;
      for (int i = 0; i < n; ++i) s[q * n + i] = g(rank, q, i);
    }
    for (int i = 0; i < n; ++i) {
      want[i] = 0;
      for (int q = 0; q < size; ++q) want[i] += g(q, rank, i);
    }
    rc = MPI_Reduce_scatter(s, r, counts, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  } else {
    CHECK(0, "unknown collective %s", name);
  }
  if (nr > 0) *state = judge(r, want, nr);
  /* Beyond what the call may write, nothing changed. */
  for (int i = nr > 0 ? nr : 0; i < n * size; ++i)
    if (rank != root || strcmp(name, "bcast")) CHECK(r[i] == PATTERN, "%s wrote item %d beyond its buffer", name, i);
  free(s), free(r), free(want), free(counts), free(displs);
  return rc;
}

int main(int argc, char** argv) {
  CHECK_MPI(MPI_Init(&argc, &argv));
  CHECK(argc == 4, "usage: ft_coll <collective> <count> <commit|abort|any>");
  const char* name = argv[1];
  count = atoi(argv[2]);
  const char* expect = argv[3];
  CHECK_MPI(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
  CHECK_MPI(MPI_Comm_size(MPI_COMM_WORLD, &size));
  CHECK_MPI(MPI_Errhandler_set(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
  int *coll_mode = NULL, *rec_mode = NULL, flag = 0;
  CHECK_MPI(MPI_Attr_get(MPI_COMM_WORLD, FTMPI_COLL_MODE, &coll_mode, &flag));
  CHECK_MPI(MPI_Attr_get(MPI_COMM_WORLD, FTMPI_RECOVERY_MODE, &rec_mode, &flag));
  const int atomic = *coll_mode == FTMPI_COLL_MODE_ATOMIC, manual = *rec_mode == FTMPI_RECOVERY_MODE_MANUAL;

  /* Call 0. A victim dying early in call 1 may already be gone while a slow
   * survivor still finishes call 0 (messages of the dead are discarded, and
   * a coordinator's decision may die with it), so call 0 may fail too. */
  const int rc0 = cls(MPI_Barrier(MPI_COMM_WORLD));
  CHECK(rc0 == MPI_SUCCESS || rc0 == MPI_ERR_OTHER, "barrier returned class %d", rc0);
  int state;
  const int rc = cls(run(name, &state)); /* call 1 */
  int mine[3] = {rank, rc, state};

  int all[3 * 64], n = 0;
  if (manual) {
    /* Wait for the failure (a survivor of a committed call may not know yet), then recover. */
    while (MPI_Barrier(MPI_COMM_WORLD) == MPI_SUCCESS) {
    }
    MPI_Comm dummy;
    CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &dummy));
    CHECK_MPI(MPI_Comm_size(MPI_COMM_WORLD, &n));
    int me;
    CHECK_MPI(MPI_Comm_rank(MPI_COMM_WORLD, &me));
    CHECK_MPI(MPI_Gather(mine, 3, MPI_INT, all, 3, MPI_INT, 0, MPI_COMM_WORLD));
    if (me != 0) n = 0;
  } else {
    /* IGNORE: the survivors report to the lowest survivor by point-to-point. */
    int* alive = calloc((size_t)size, sizeof(int));
    const char* inj = getenv("FTMPI_INJECT_AGREE");
    for (int q = 0; q < size; ++q) alive[q] = 1;
    for (const char* p = inj; p && (p = strchr(p, ':')); ++p) alive[atoi(p + 1)] = 0, p = strchr(p + 1, ':');
    int low = 0;
    while (!alive[low]) ++low;
    if (rank == low) {
      memcpy(all, mine, sizeof mine);
      n = 1;
      for (int q = low + 1; q < size; ++q)
        if (alive[q]) CHECK_MPI(MPI_Recv(all + 3 * n++, 3, MPI_INT, q, 77, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    } else {
      CHECK_MPI(MPI_Send(mine, 3, MPI_INT, low, 77, MPI_COMM_WORLD));
    }
    free(alive);
  }
  if (n > 0) {
    int commits = 0;
    for (int k = 0; k < n; ++k) {
      const int who = all[3 * k], krc = all[3 * k + 1], kst = all[3 * k + 2];
      CHECK(krc == MPI_SUCCESS || krc == MPI_ERR_OTHER, "%s: rank %d returned class %d", name, who, krc);
      if (krc == MPI_SUCCESS) {
        commits++;
        CHECK(kst == CORRECT || kst == NA, "%s: rank %d succeeded with wrong values (state %d)", name, who, kst);
      } else if (atomic) {
        CHECK(kst == UNTOUCHED || kst == NA, "%s: rank %d aborted but its buffer changed (state %d)", name, who, kst);
      }
    }
    if (atomic) {
      CHECK(commits == 0 || commits == n, "%s: %d of %d survivors committed", name, commits, n);
      CHECK(strcmp(expect, "commit") || commits == n, "%s: expected commit", name);
      CHECK(strcmp(expect, "abort") || commits == 0, "%s: expected abort", name);
    }
    printf("ft_coll: ok %s %s, %d survivors, %d succeeded\n", name, atomic ? "atomic" : "nonatomic", n, commits);
  }
  CHECK_MPI(MPI_Finalize());
  return 0;
}
