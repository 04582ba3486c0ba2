/* A failure while communicators are being created (spec/ft-semantics.md
 * §4.1): every survivor's MPI_Comm_split returns MPI_ERR_OTHER, none hangs,
 * even those that were waiting on a live peer which had already given up.
 *
 * Every rank splits MPI_COMM_WORLD ITERS times (colour by parity, keys
 * reversed) and checks the result. Rank VICTIM SIGKILLs itself instead of
 * entering split number KILL_AT, so no survivor can complete that split: each
 * must see exactly one failure, there (or in the split before, which the
 * victim had done its part of). Then, by recovery mode:
 *   MANUAL: recover with MPI_Comm_dup(MPI_COMM_WORLD) and redo the split over
 *           the new world (REBUILD: the respawned victim starts at KILL_AT);
 *   IGNORE: splits of MPI_COMM_WORLD keep failing; one of MPI_COMM_SELF works. */
#include <signal.h>

#include "check.h"

#define ITERS 120
#define KILL_AT 40
#define VICTIM 3

/* The split's members are the live, non-blank ranks of my parity, highest
 * world rank first (key = -rank). */
static void check_split(MPI_Comm c, int it) {
  int wsize, wrank, size, rank;
  CHECK_MPI(MPI_Comm_size(MPI_COMM_WORLD, &wsize));
  CHECK_MPI(MPI_Comm_rank(MPI_COMM_WORLD, &wrank));
  MPI_Group wg, g;
  CHECK_MPI(MPI_Comm_group(MPI_COMM_WORLD, &wg));
  CHECK_MPI(MPI_Comm_group(c, &g));
  CHECK_MPI(MPI_Comm_size(c, &size));
  CHECK_MPI(MPI_Comm_rank(c, &rank));
  int expect = 0, above = 0;
  for (int r = 0; r < wsize; ++r) {
    if (r % 2 != wrank % 2) continue;
    ++expect;
    if (r > wrank) ++above;
  }
  CHECK(size == expect && rank == above, "split %d: size %d rank %d, expected %d %d", it, size, rank, expect, above);
  int first = 0, in_world = -1;
  CHECK_MPI(MPI_Group_translate_ranks(g, 1, &first, wg, &in_world));
  CHECK(in_world % 2 == wrank % 2 && in_world >= wrank, "split %d: rank 0 is world rank %d", it, in_world);
  MPI_Group_free(&g);
  MPI_Group_free(&wg);
}

int main(int argc, char** argv) {
  int rc0 = MPI_Init(&argc, &argv);
  CHECK(rc0 == MPI_SUCCESS || rc0 == MPI_INIT_RESTARTED_NODE, "MPI_Init: %d", rc0);
  const int restarted = rc0 == MPI_INIT_RESTARTED_NODE;
  int rank, size;
  CHECK_MPI(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
  CHECK_MPI(MPI_Comm_size(MPI_COMM_WORLD, &size));
  CHECK(size > VICTIM, "needs more than %d ranks", VICTIM);
  CHECK_MPI(MPI_Errhandler_set(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
  const int rank0 = rank; /* SHRINK renumbers; the victim is a process */
  const int ignore = attr_int(FTMPI_RECOVERY_MODE) == FTMPI_RECOVERY_MODE_IGNORE;
  const int blank = attr_int(FTMPI_COMM_MODE) == FTMPI_COMM_MODE_BLANK;
  CHECK(!blank, "BLANK: splits over blanks are not covered here");

  int failures = 0, failed_at = -1;
  /* Non-atomic: a survivor still inside split KILL_AT - 1 when the victim
   * dies (it had done its part) gives up there while others completed it. So
   * after a recovery everyone resumes from the lowest failed split; the
   * respawned victim (REBUILD) joins that agreement first. */
  int resync = restarted, it = 0;
  while (it < ITERS) {
    if (resync) {
      int mine = restarted && failed_at < 0 ? ITERS : it;
      CHECK_MPI(MPI_Allreduce(&mine, &it, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD));
      resync = 0;
    }
    if (!restarted && rank0 == VICTIM && it == KILL_AT) raise(SIGKILL);
    MPI_Comm c = MPI_COMM_NULL;
    int rc = MPI_Comm_split(MPI_COMM_WORLD, rank % 2, -rank, &c);
    if (rc == MPI_SUCCESS) {
      check_split(c, it);
      CHECK_MPI(MPI_Comm_free(&c));
      ++it;
      continue;
    }
    CHECK(cls(rc) == MPI_ERR_OTHER, "split %d: error class %d", it, cls(rc));
    CHECK(c == MPI_COMM_NULL, "split %d: a failed split set a communicator", it);
    ++failures;
    failed_at = it;
    if (ignore) break;
    MPI_Comm world2;
    CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &world2));
    CHECK(world2 == MPI_COMM_NULL, "the recovering dup returns MPI_COMM_NULL");
    CHECK_MPI(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
    resync = 1; /* and redo this split over the recovered world */
  }
  CHECK(restarted || failures == 1, "%d failures seen", failures);
  CHECK(restarted || failed_at == KILL_AT || failed_at == KILL_AT - 1, "the failure surfaced at split %d", failed_at);
  if (ignore) {
    MPI_Comm c;
    CHECK(cls(MPI_Comm_split(MPI_COMM_WORLD, 0, 0, &c)) == MPI_ERR_OTHER, "IGNORE: a later split");
    CHECK_MPI(MPI_Comm_split(MPI_COMM_SELF, 0, 0, &c));
    CHECK_MPI(MPI_Comm_free(&c));
  } else {
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  }
  if (rank == 0) printf("ft_comm_create: ok (%d splits, one failure)\n", ITERS);
  MPI_Finalize();
  return 0;
}
