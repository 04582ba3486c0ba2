/* cg_checksum: a parallel conjugate-gradient solver that survives process
 * failures by rolling back to an in-memory checkpoint encoded with
 * Reed-Solomon across the processes (no disk involved).
 *
 *   mpirun -np 8 --ft-comm-mode=rebuild cg_checksum [-n N] [-K K] [-m M] [-t TOL] [-q] [-C]
 *
 *   -n N    grid points per side: N^3 unknowns (default 64)
 *   -K K    checkpoint every K iterations (default 10; 0: never, so a failure
 *           sends the solve back to iteration 0)
 *   -m M    checksum ranks = simultaneous failures survived (default 1)
 *   -t TOL  stop when ||r|| / ||b|| <= TOL (default 1e-10)
 *   -q      no line per checkpoint
 *   -C      for the tests only: spoil every state rebuilt from a checkpoint
 *           (x[0] += 1e-6), to show that the final check then fails
 *
 * Ranks 0..np-M-1 solve (rows in slabs of z-planes: poisson.c); ranks
 * np-M..np-1 hold the Reed-Solomon parity of the solvers' states
 * (checkpoint.c). In REBUILD mode a dead process is started again: its
 * MPI_Init returns MPI_INIT_RESTARTED_NODE, the others see MPI_ERR_OTHER and
 * recover with MPI_Comm_dup(MPI_COMM_WORLD); then all of them go through
 * restore(): the restarted processes' states are decoded from the others'
 * and the parity, everyone rolls back to that checkpoint, and the solve goes
 * on. RESET message mode makes sure no halo of before the failure is
 * received after the rollback. The rolled-back solve does exactly the same
 * arithmetic, so it ends with the same iteration count and solution as a
 * run without failures; rank 0 checks that against the same solver run on
 * one process, prints the check, and the job exits non-zero if it fails. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "checkpoint.h"
#include "poisson.h"

/* The reference does the same arithmetic (poisson.h): the solutions agree
 * to the last bit; the tolerance only allows for a compiler that would
 * treat the two code paths differently. */
#define TOLERANCE 1e-12
#define HEADER 5 /* doubles before x, r, p in a checkpoint block: it, rho, rr, bb, t_start */
#define TRY(call)                                  \
  do {                                             \
    const int rc_ = (call);                        \
    if (rc_ != MPI_SUCCESS) return rc_;            \
  } while (0)

static struct {
  int n, K, m, verbose, maxit, corrupt;
  double tol;
  int rank, np, k, solver; /* solver: rank < k; the others are checksum ranks */
  Slab slab;
  CgState st;
  Checkpoint ck;
  MPI_Comm compute; /* the solvers; made again after every recovery */
  double t_start;   /* when the solve started (kept across restarts in the checkpoint) */
  int recoveries, interrupted, redone, checkpoints;
  double t_recovering, t_checkpointing;
  double* x_ref; /* rank 0: the failure-free solution, once computed */
  int ref_iterations;
} app;

/* ---- fault tolerance plumbing ------------------------------------------ */

static int attr(int key) {
  int *value, flag;
  MPI_Attr_get(MPI_COMM_WORLD, key, &value, &flag);
  return flag ? *value : -1;
}

/* An MPI call failed: in FT-MPI a process failure is MPI_ERR_OTHER, and
 * anything else is a bug here. */
static void expect_failure(int rc) {
  int cls;
  MPI_Error_class(rc, &cls);
  if (cls != MPI_ERR_OTHER) {
    char text[MPI_MAX_ERROR_STRING];
    int len;
    MPI_Error_string(rc, text, &len);
    fprintf(stderr, "cg_checksum: rank %d: unexpected MPI error: %s\n", app.rank, text);
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
}

/* MANUAL recovery: MPI_Comm_dup(MPI_COMM_WORLD) runs it; failures during
 * the recovery round are folded into it. */
static void recover(void) {
  MPI_Comm unused;
  int rc;
  while ((rc = MPI_Comm_dup(MPI_COMM_WORLD, &unused)) != MPI_SUCCESS) expect_failure(rc);
}

/* ---- checkpoint contents ------------------------------------------------ */

static void pack(unsigned char* block) {
  double* d = (double*)block;
  const size_t bytes = (size_t)app.slab.nloc * sizeof(double);
  const long stride = slab_max_nloc(app.n, app.k);
  d[0] = app.st.it;
  d[1] = app.st.rho;
  d[2] = app.st.rr;
  d[3] = app.st.bb;
  d[4] = app.t_start;
  memcpy(d + HEADER, app.st.x, bytes);
  memcpy(d + HEADER + stride, app.st.r, bytes);
  memcpy(d + HEADER + 2 * stride, app.st.p_ext + app.slab.plane, bytes);
}

static void unpack(const unsigned char* block) {
  const double* d = (const double*)block;
  const size_t bytes = (size_t)app.slab.nloc * sizeof(double);
  const long stride = slab_max_nloc(app.n, app.k);
  app.st.it = (int)d[0];
  app.st.rho = d[1];
  app.st.rr = d[2];
  app.st.bb = d[3];
  if (d[4] < app.t_start) app.t_start = d[4];
  memcpy(app.st.x, d + HEADER, bytes);
  memcpy(app.st.r, d + HEADER + stride, bytes);
  memcpy(app.st.p_ext + app.slab.plane, d + HEADER + 2 * stride, bytes);
}

/* Rank 0 announces every checkpoint to all processes (the checksum ranks
 * only wait for these): {version, final, encode}. */
static int checkpoint(int final) {
  int h[3] = {app.ck.next, final, app.K > 0};
  TRY(MPI_Bcast(h, 3, MPI_INT, 0, MPI_COMM_WORLD));
  if (!h[2]) return MPI_SUCCESS; /* -K 0: only the final announcement */
  const double t0 = MPI_Wtime();
  pack(ckpt_begin(&app.ck));
  TRY(ckpt_encode(&app.ck));
  app.checkpoints++;
  app.t_checkpointing += MPI_Wtime() - t0;
  if (app.rank == 0 && app.verbose) {
    printf("cg: iteration %4d  residual %.3e  checkpoint %d (%.1f ms)\n", app.st.it, cg_residual(&app.st), h[0],
           1e3 * (MPI_Wtime() - t0));
    fflush(stdout);
  }
  return MPI_SUCCESS;
}

/* A checksum rank's whole job: take part in each checkpoint. */
static int serve_checkpoints(void) {
  for (;;) {
    int h[3];
    TRY(MPI_Bcast(h, 3, MPI_INT, 0, MPI_COMM_WORLD));
    if (h[2]) {
      if (h[0] != app.ck.next) {
        fprintf(stderr, "cg_checksum: rank %d expected checkpoint %d, got %d\n", app.rank, app.ck.next, h[0]);
        MPI_Abort(MPI_COMM_WORLD, 2);
      }
      ckpt_begin(&app.ck);
      TRY(ckpt_encode(&app.ck));
    }
    if (h[1]) return MPI_SUCCESS;
  }
}

/* ---- the solve ---------------------------------------------------------- */

static int solve(void) {
  for (;;) {
    const int last = cg_residual(&app.st) <= app.tol || app.st.it >= app.maxit;
    /* After a rollback this re-encodes the checkpoint just restored, which
     * gives the restarted checksum ranks their parity back at once. */
    if (last || (app.K > 0 && app.st.it % app.K == 0)) TRY(checkpoint(last));
    if (last) return MPI_SUCCESS;
    TRY(cg_iterate(&app.st, &app.slab, app.compute));
  }
}

/* After the start and after every recovery: new solver communicator, agree
 * on a checkpoint, rebuild what the restarted processes lost, roll back. */
static int restore(int after_failure) {
  const double t0 = MPI_Wtime();
  TRY(MPI_Comm_split(MPI_COMM_WORLD, app.solver ? 0 : MPI_UNDEFINED, app.rank, &app.compute));
  if (app.solver) MPI_Errhandler_set(app.compute, MPI_ERRORS_RETURN);
  /* How far anyone got (a restarted process: -1), and the counters of the
   * report, which a restarted process lost. */
  int mine[4] = {app.solver ? app.st.it : -1, app.recoveries, app.interrupted, app.redone}, most[4];
  TRY(MPI_Allreduce(mine, most, 4, MPI_INT, MPI_MAX, MPI_COMM_WORLD));
  const int max_reached = most[0];
  app.recoveries = most[1], app.interrupted = most[2], app.redone = most[3];
  RestoreReport rep;
  TRY(ckpt_restore(&app.ck, &rep));
  if (app.solver) {
    if (rep.version >= 0) {
      unpack(ckpt_restored(&app.ck, &rep));
      for (int i = 0; app.corrupt && i < rep.nlost; i++)
        if (rep.lost[i] == app.rank) app.st.x[0] += 1e-6; /* -C: a wrong rebuild must not go unnoticed */
    } else {
      TRY(cg_start(&app.st, &app.slab, app.compute)); /* nothing to go back to: iteration 0 */
    }
  }
  if (!after_failure) return MPI_SUCCESS;
  app.recoveries++;
  app.t_recovering += MPI_Wtime() - t0;
  if (app.solver && max_reached > app.st.it) app.redone += max_reached - app.st.it; /* the same on every solver */
  if (app.rank == 0) {
    printf("cg: recovery %d: restarted rank(s)", app.recoveries);
    for (int i = 0; i < rep.nlost; i++) printf(" %d%s", rep.lost[i], rep.lost[i] < app.k ? "" : " (checksum)");
    if (rep.version >= 0)
      printf("; %d state(s) rebuilt from checkpoint %d; back to iteration %d", rep.rebuilt, rep.version, app.st.it);
    else
      printf("; %s: back to iteration 0", rep.too_many ? "more states lost than checksums left" : "no checkpoint yet");
    if (max_reached > app.st.it) printf(" from %d", max_reached);
    printf(" (%.1f ms)\n", 1e3 * (MPI_Wtime() - t0));
    fflush(stdout);
  }
  return MPI_SUCCESS;
}

/* ---- the check against a failure-free run ------------------------------- */

static unsigned long long fingerprint(const double* x, long n) {
  unsigned long long h = 1469598103934665603ull; /* FNV-1a over the bytes */
  const unsigned char* b = (const unsigned char*)x;
  for (long i = 0; i < n * (long)sizeof(double); i++) h = (h ^ b[i]) * 1099511628211ull;
  return h;
}

static int final_check(int* passed) {
  const long total = (long)app.n * app.n * app.n;
  double* x_all = NULL;
  const double t_solved = MPI_Wtime();
  if (app.solver) {
    int* counts = malloc(sizeof(int) * (size_t)app.k);
    int* displs = malloc(sizeof(int) * (size_t)app.k);
    for (int r = 0; r < app.k; r++) {
      Slab s;
      slab_init(&s, app.n, r, app.k);
      counts[r] = (int)s.nloc;
      displs[r] = (int)(s.z0 * s.plane);
    }
    if (app.rank == 0) x_all = malloc(sizeof(double) * (size_t)total);
    const int rc = MPI_Gatherv(app.st.x, (int)app.slab.nloc, MPI_DOUBLE, x_all, counts, displs, MPI_DOUBLE, 0,
                               app.compute);
    free(counts);
    free(displs);
    if (rc != MPI_SUCCESS) {
      free(x_all);
      return rc;
    }
  }
  /* A restarted process took fewer checkpoints: report the longest history. */
  double stats[2] = {app.checkpoints, app.t_checkpointing}, max_stats[2];
  int rc = MPI_Reduce(stats, max_stats, 2, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
  double diff = 0.0, scale = 0.0;
  int ok = 0;
  if (rc == MPI_SUCCESS && app.rank == 0) {
    if (!app.x_ref) { /* the same solver on one process, no failures, no MPI */
      app.x_ref = malloc(sizeof(double) * (size_t)total);
      app.ref_iterations = cg_reference(app.n, app.k, app.tol, app.maxit, app.x_ref);
    }
    for (long i = 0; i < total; i++) {
      diff = fmax(diff, fabs(x_all[i] - app.x_ref[i]));
      scale = fmax(scale, fabs(app.x_ref[i]));
    }
    ok = app.st.it == app.ref_iterations && diff <= TOLERANCE * scale;
  }
  /* How the job agrees to end. A collective can succeed on some processes
   * and fail on others (a root's eager broadcast, or a reduction a process
   * contributed to before it died); whoever succeeded would go on to
   * MPI_Finalize while the others recover without it, and the job hangs.
   * So the others wait for rank 0's verdict in a broadcast (a process that
   * dies meanwhile never contributes to what follows), then everybody takes
   * part in a short MPI_Allreduce, which cannot complete anywhere unless
   * every process entered it. Only a process dying inside that last call,
   * after its contribution, is not covered. */
  if (rc == MPI_SUCCESS) rc = MPI_Bcast(&ok, 1, MPI_INT, 0, MPI_COMM_WORLD);
  int vote = ok;
  if (rc == MPI_SUCCESS) rc = MPI_Allreduce(&vote, &ok, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  if (rc == MPI_SUCCESS && app.rank == 0) {
    printf("cg_checksum: converged in %d iterations (residual %.2e) in %.2f s: %d recoveries (%d interrupted by "
           "another failure), %d iterations redone, %d checkpoints taking %.3f s\n",
           app.st.it, cg_residual(&app.st), t_solved - app.t_start, app.recoveries, app.interrupted, app.redone,
           (int)max_stats[0], max_stats[1]);
    printf("cg_checksum: check against the failure-free solve (same solver, one process): iterations %d vs %d, "
           "max |x - x_ref| = %.2e (relative %.2e, tolerance %.0e): %s\n",
           app.st.it, app.ref_iterations, diff, scale > 0 ? diff / scale : 0.0, TOLERANCE, ok ? "PASSED" : "FAILED");
    printf("cg_checksum: solution fingerprint %016llx\n", fingerprint(x_all, total));
    fflush(stdout);
  }
  free(x_all);
  *passed = ok;
  return rc;
}

/* ---- main --------------------------------------------------------------- */

static int usage(void) {
  if (app.rank == 0)
    fprintf(stderr, "usage: mpirun -np P --ft-comm-mode=rebuild cg_checksum [-n N] [-K K] [-m M] [-t TOL] [-i MAXIT] [-q] [-C]\n");
  MPI_Finalize();
  return 2;
}

int main(int argc, char** argv) {
  const int init = MPI_Init(&argc, &argv);
  const int restarted = init == MPI_INIT_RESTARTED_NODE;
  app.t_start = MPI_Wtime();
  MPI_Comm_rank(MPI_COMM_WORLD, &app.rank);
  MPI_Comm_size(MPI_COMM_WORLD, &app.np);
  app.n = 64, app.K = 10, app.m = 1, app.tol = 1e-10, app.verbose = 1, app.maxit = 100000;
  for (int c; (c = getopt(argc, argv, "n:K:m:t:i:qC")) != -1;) {
    if (c == 'n') app.n = atoi(optarg);
    else if (c == 'K') app.K = atoi(optarg);
    else if (c == 'm') app.m = atoi(optarg);
    else if (c == 't') app.tol = atof(optarg);
    else if (c == 'i') app.maxit = atoi(optarg);
    else if (c == 'q') app.verbose = 0;
    else if (c == 'C') app.corrupt = 1;
    else return usage();
  }
  app.k = app.np - app.m;
  if (app.k < 1 || app.m < 0 || app.np > 256 || app.n < app.k || app.K < 0 || !(app.tol > 0) || app.maxit < 1)
    return usage();
  const int mode = attr(FTMPI_COMM_MODE);
  if ((mode != FTMPI_COMM_MODE_REBUILD && mode != FTMPI_COMM_MODE_ABORT) ||
      attr(FTMPI_RECOVERY_MODE) != FTMPI_RECOVERY_MODE_MANUAL || attr(FTMPI_MSG_MODE) != FTMPI_MSG_MODE_RESET) {
    if (app.rank == 0)
      fprintf(stderr, "cg_checksum: needs --ft-comm-mode=rebuild (or abort: no fault tolerance) with MANUAL "
                      "recovery and RESET messages (the defaults)\n");
    MPI_Finalize();
    return 2;
  }
  MPI_Errhandler_set(MPI_COMM_WORLD, MPI_ERRORS_RETURN); /* failures come back as error codes */

  app.solver = app.rank < app.k;
  app.compute = MPI_COMM_NULL;
  slab_init(&app.slab, app.n, app.rank, app.k);
  if (app.solver) cg_alloc(&app.st, &app.slab);
  app.st.it = -1; /* no state yet */
  const size_t block = sizeof(double) * (HEADER + 3 * (size_t)slab_max_nloc(app.n, app.k));
  if (ckpt_init(&app.ck, app.k, app.m, app.rank, block) != 0) return usage();
  if (app.rank == 0 && !restarted)
    printf("cg_checksum: %d^3 unknowns, %d solver ranks + %d checksum ranks (survives %d simultaneous failures), "
           "checkpoint every %d iterations, %s mode\n",
           app.n, app.k, app.m, app.m, app.K, mode == FTMPI_COMM_MODE_REBUILD ? "REBUILD" : "ABORT");
  fflush(stdout);
  if (restarted) {
    printf("cg: rank %d restarted (MPI_INIT_RESTARTED_NODE)\n", app.rank);
    fflush(stdout);
  }

  int after_failure = restarted, passed = 0;
  for (;;) {
    int rc = restore(after_failure);
    if (rc != MPI_SUCCESS && after_failure) app.interrupted++; /* another failure during this recovery */
    if (rc == MPI_SUCCESS) rc = app.solver ? solve() : serve_checkpoints();
    if (rc == MPI_SUCCESS) rc = final_check(&passed);
    if (rc == MPI_SUCCESS) break;
    expect_failure(rc);
    recover();
    after_failure = 1;
  }
  MPI_Finalize();
  return passed ? 0 : 1;
}
