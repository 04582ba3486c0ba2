/* A process dies during intercommunicator collectives (spec/ft-semantics.md
 * §4.5), in every communicator mode (MANUAL recovery). World ranks split
 * into even and odd groups joined by an intercommunicator; after a round
 * that succeeds everywhere, world rank 2 (group 0) kills itself. Every
 * survivor, in both groups, is then in an MPI_Allreduce or MPI_Bcast on the
 * intercommunicator that needs the victim: each must return MPI_ERR_OTHER
 * (no hang). After MPI_Comm_dup(MPI_COMM_WORLD) (the recovery), everybody
 * alive (REBUILD: the respawned victim too) builds a new intercommunicator
 * over the new MPI_COMM_WORLD and checks intercommunicator collectives'
 * values over the new membership. */
#include <signal.h>

#include "check.h"

#define VICTIM 2

static MPI_Comm make_inter(int* color, int* lr, int* rn) {
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  *color = rank % 2;
  MPI_Comm local, inter;
  /* BLANK: the victim's rank is a blank, which MPI_Comm_split leaves out. */
  CHECK_MPI(MPI_Comm_split(MPI_COMM_WORLD, *color, rank, &local));
  CHECK_MPI(MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, 1 - *color, 5, &inter));
  CHECK_MPI(MPI_Comm_free(&local));
  MPI_Comm_rank(inter, lr);
  MPI_Comm_remote_size(inter, rn);
  return inter;
}

/* Allreduce and bcast on a fresh intercommunicator, values checked. */
static void check_round(void) {
  int color, lr, rn;
  MPI_Comm inter = make_inter(&color, &lr, &rn);
  MPI_Comm_set_errhandler(inter, MPI_ERRORS_RETURN);
  long long mine = 1000LL * color + lr, sum = -1;
  CHECK_MPI(MPI_Allreduce(&mine, &sum, 1, MPI_LONG_LONG, MPI_SUM, inter));
  const long long want = 1000LL * (1 - color) * rn + (long long)rn * (rn - 1) / 2;
  CHECK(sum == want, "allreduce after recovery: %lld, expected %lld", sum, want);
  int v = -1;
  const int root = color == 1 ? 0 : (lr == 0 ? MPI_ROOT : MPI_PROC_NULL);
  if (root == MPI_ROOT) v = 4242;
  CHECK_MPI(MPI_Bcast(&v, 1, MPI_INT, root, inter));
  CHECK(root == MPI_PROC_NULL ? v == -1 : v == 4242, "bcast after recovery: %d", v);
  CHECK_MPI(MPI_Barrier(inter));
  CHECK_MPI(MPI_Comm_free(&inter));
}

int main(int argc, char** argv) {
  const int rc0 = MPI_Init(&argc, &argv);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  int rank, nprocs0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nprocs0);
  CHECK(nprocs0 > VICTIM + 1, "needs more than %d processes", VICTIM + 1);
  if (rc0 == MPI_INIT_RESTARTED_NODE) {
    check_round();
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
  }
  int color, lr, rn;
  MPI_Comm inter = make_inter(&color, &lr, &rn);
  MPI_Comm_set_errhandler(inter, MPI_ERRORS_RETURN);
  long long one = 1, n = 0;
  CHECK_MPI(MPI_Allreduce(&one, &n, 1, MPI_LONG_LONG, MPI_SUM, inter));
  CHECK(n == rn, "first allreduce %lld", n);
  /* The victim dies only once every survivor finished that round. */
  int x = 1;
  if (rank == 0) {
    for (int r = 1; r < nprocs0; ++r)
      if (r != VICTIM) CHECK_MPI(MPI_Recv(&x, 1, MPI_INT, r, 90, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    CHECK_MPI(MPI_Send(&x, 1, MPI_INT, VICTIM, 91, MPI_COMM_WORLD));
  } else if (rank == VICTIM) {
    MPI_Request req;
    int flag = 0;
    CHECK_MPI(MPI_Irecv(&x, 1, MPI_INT, 0, 91, MPI_COMM_WORLD, &req));
    while (!flag) MPI_Test(&req, &flag, MPI_STATUS_IGNORE);
    raise(SIGKILL);
  } else {
    CHECK_MPI(MPI_Send(&x, 1, MPI_INT, 0, 90, MPI_COMM_WORLD));
  }
  /* Group 0 broadcasts from its rank 0 (the victim's group), then allreduce. */
  int rc;
  if (rank % 2 == 0) {
    int v = 1, root = lr == 0 ? MPI_ROOT : MPI_PROC_NULL;
    rc = MPI_Bcast(&v, 1, MPI_INT, root, inter);
    if (rc == MPI_SUCCESS) rc = MPI_Allreduce(&one, &n, 1, MPI_LONG_LONG, MPI_SUM, inter);
  } else {
    int v = 0;
    rc = MPI_Bcast(&v, 1, MPI_INT, 0, inter);
    if (rc == MPI_SUCCESS) rc = MPI_Allreduce(&one, &n, 1, MPI_LONG_LONG, MPI_SUM, inter);
  }
  CHECK(rc != MPI_SUCCESS, "an intercommunicator allreduce that needs the dead victim succeeded");
  CHECK(cls(rc) == MPI_ERR_OTHER, "error class %d, expected MPI_ERR_OTHER", cls(rc));
  MPI_Comm dummy;
  CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &dummy));
  check_round();
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) printf("intercoll_ft: ok\n");
  MPI_Finalize();
  return 0;
}
