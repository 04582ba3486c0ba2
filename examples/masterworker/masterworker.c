/* masterworker: a task farm that survives the death of any of its processes.
 *
 *   mpirun -np 8 --ft-comm-mode=rebuild masterworker [tasks [points]]
 *   (or --ft-comm-mode=blank, --ft-comm-mode=shrink)
 *
 * The farm integrates 4/(1+x^2) over [0,1] (which is pi) in `tasks` slices,
 * each by Simpson's rule on `points` intervals. The master (rank 0 at the
 * start) hands slices to the workers and adds up their results; every slice
 * is counted exactly once, whichever processes die and whenever. Before the farm starts
 * the master computes every slice itself (the failure-free value); at the
 * end it prints both values and exits non-zero unless they are identical.
 *
 * Any process may die, the master (rank 0) included: the lowest live rank
 * leads the farm. Every process keeps the results it computed; after each
 * recovery they are merged into the master's tables (MPI_Reduce), so a new
 * master finishes the farm with every slice still counted once, and only
 * the slices computed by dead processes are computed again. Any process may
 * die at any time until every process has entered the final barrier
 * (stop_workers): only one that dies after that, while the others leave it
 * for MPI_Finalize, is not handled (see README.md).
 *
 * The whole fault-tolerance protocol is one rule on each side:
 *  - a worker sends one message and waits for the answer; the message is
 *    its last result (or "ready"), and it sends that same message again
 *    after every recovery until the master answers it;
 *  - after every recovery the master forgets who was working on what, first
 *    takes exactly one message from every live worker, and only then hands
 *    out the slices whose result it does not have. So a slice is computed
 *    twice only when the worker computing it died.
 * Results carry their slice number and the master keeps the first result of
 * each slice, so a result that reaches it twice is counted once.
 *
 * How each communicator mode shows up (all with MANUAL recovery):
 *  - REBUILD: a dead process is started again; its MPI_Init returns
 *    MPI_INIT_RESTARTED_NODE, and it asks for work (a restarted rank 0
 *    leads again, from the merged results).
 *  - BLANK:   dead processes stay in MPI_COMM_WORLD as blanks; a receive
 *    from a blank rank completes at once with source MPI_PROC_NULL, which is
 *    how the master tells them apart. When rank 0 died, the next live rank
 *    leads (find_master).
 *  - SHRINK:  dead processes are removed and the survivors renumbered (the
 *    lowest survivor becomes rank 0 and leads); the master re-learns its
 *    workers from the messages of the new ranks. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TAG_RESULT 1 /* worker -> master: double[2] = {slice, or -1 for "ready"; value} */
#define TAG_WORK 2   /* master -> worker: int slice, or STOP */
#define STOP (-1)

static int ntasks = 1000;
static int npoints = 200000;

/* One task: Simpson's rule for 4/(1+x^2) on slice t of [0,1]. */
static double integrate(int t) {
  const double a = (double)t / ntasks, b = (double)(t + 1) / ntasks, h = (b - a) / npoints;
  double odd = 0.0, even = 0.0;
  for (int i = 1; i < npoints; i++) {
    const double x = a + i * h, fx = 4.0 / (1.0 + x * x);
    if (i % 2) odd += fx;
    else even += fx;
  }
  return h / 3.0 * (4.0 / (1.0 + a * a) + 4.0 / (1.0 + b * b) + 4.0 * odd + 2.0 * even);
}

/* An MPI call failed. In FT-MPI a process failure shows as MPI_ERR_OTHER;
 * anything else is a bug in this program. */
static void expect_failure(int rc) {
  int cls;
  MPI_Error_class(rc, &cls);
  if (cls != MPI_ERR_OTHER) {
    char text[MPI_MAX_ERROR_STRING];
    int len;
    MPI_Error_string(rc, text, &len);
    fprintf(stderr, "masterworker: unexpected MPI error: %s\n", text);
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
}

/* MANUAL recovery: MPI_Comm_dup of MPI_COMM_WORLD runs it (the new handle is
 * MPI_COMM_NULL). Failures during the recovery are folded into it. */
static void recover(void) {
  MPI_Comm unused;
  int rc;
  while ((rc = MPI_Comm_dup(MPI_COMM_WORLD, &unused)) != MPI_SUCCESS) expect_failure(rc);
}

static int attr(int key) {
  int *value, flag;
  MPI_Attr_get(MPI_COMM_WORLD, key, &value, &flag);
  return flag ? *value : -1;
}

/* ---- state of every process ---------------------------------------------
 * Any process may have to lead the farm (the lowest live rank does), so every
 * process keeps the master's tables, and every worker keeps each result it
 * computed (`mine`, -1 where none): after a recovery they are merged into the
 * master's, so a new master loses only what the dead computed. */
static double* value;  /* value[t]: result of slice t, valid if done[t] */
static char* done;
static char* assigned; /* handed out and not answered since the last recovery */
static char* given;    /* handed out at least once */
static char* waiting;  /* waiting[r]: worker rank r waits for an answer */
static double* mine;   /* mine[t]: this process computed slice t (>= 0) */
static double* merged; /* the reduction of every process's `mine` */
static double expected; /* the failure-free value, once this process leads */
static int have_expected;
static int ndone, nworkers, nwaiting, duplicates, handed_again, by_master, recoveries, merged_in;
static int comm_mode, master = -1, took_over;

static void allocate_state(int size0) {
  value = calloc((size_t)ntasks, sizeof *value);
  done = calloc((size_t)ntasks, 1);
  assigned = calloc((size_t)ntasks, 1);
  given = calloc((size_t)ntasks, 1);
  waiting = calloc((size_t)size0, 1);
  mine = malloc(sizeof *mine * (size_t)ntasks);
  merged = malloc(sizeof *merged * (size_t)ntasks);
  for (int t = 0; t < ntasks; t++) mine[t] = -1.0;
}

/* The master is the lowest live rank. MPI_Comm_split leaves out BLANK mode's
 * dead ranks (they count as MPI_UNDEFINED), so rank 0 of the result is the
 * lowest live rank of MPI_COMM_WORLD: 0 in REBUILD and SHRINK, the next one
 * in BLANK once rank 0 died. Collective: every process calls it at the start
 * and after every recovery (a restarted one right after MPI_Init). */
static int find_master(int* out) {
  MPI_Comm live;
  MPI_Group world_group, live_group;
  int zero = 0, rc = MPI_Comm_split(MPI_COMM_WORLD, 0, 0, &live);
  if (rc != MPI_SUCCESS) return rc;
  MPI_Comm_group(MPI_COMM_WORLD, &world_group);
  MPI_Comm_group(live, &live_group);
  MPI_Group_translate_ranks(live_group, 1, &zero, world_group, out);
  MPI_Group_free(&live_group);
  MPI_Group_free(&world_group);
  return MPI_Comm_free(&live);
}

/* Every result any live process computed reaches the master (a slice's
 * result has the same bits whoever computes it, so MPI_MAX picks it). */
static int merge_results(int me) {
  int rc = MPI_Reduce(mine, merged, ntasks, MPI_DOUBLE, MPI_MAX, master, MPI_COMM_WORLD);
  if (rc != MPI_SUCCESS || me != master) return rc;
  for (int t = 0; t < ntasks; t++)
    if (merged[t] >= 0.0 && !done[t]) value[t] = merged[t], done[t] = 1, ndone++, merged_in++;
  return MPI_SUCCESS;
}

/* ---- worker ------------------------------------------------------------ */

static double msg[2] = {-1.0, 0.0}; /* "ready", then the last result until answered */

static int work(void) {
  for (;;) {
    int task, rc = MPI_Send(msg, 2, MPI_DOUBLE, master, TAG_RESULT, MPI_COMM_WORLD);
    if (rc == MPI_SUCCESS) rc = MPI_Recv(&task, 1, MPI_INT, master, TAG_WORK, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    if (rc != MPI_SUCCESS) return rc; /* recover, then send the same message again */
    if (task == STOP) {               /* the end, if every process gets this far (see lead()) */
      msg[0] = -1.0;                  /* "ready" if it fails: the master has my last result */
      return MPI_Barrier(MPI_COMM_WORLD);
    }
    msg[0] = task;
    msg[1] = mine[task] = integrate(task);
  }
}

/* ---- master ------------------------------------------------------------ */

/* A worker's message: keep its result unless the slice is done already. */
static void record(const double m[2]) {
  if (m[0] < 0) return; /* "ready" */
  const int t = (int)m[0];
  assigned[t] = 0;
  if (done[t]) {
    duplicates++; /* its first copy arrived before a failure: keep that one */
    return;
  }
  done[t] = 1;
  value[t] = m[1];
  ndone++;
}

/* Answer worker w with a slice, or let it wait (STOP at the end). */
static int hand_out(int w) {
  int t = 0;
  while (t < ntasks && (done[t] || assigned[t])) t++;
  if (t == ntasks) {
    waiting[w] = 1;
    nwaiting++;
    return MPI_SUCCESS;
  }
  assigned[t] = 1;
  handed_again += given[t];
  given[t] = 1;
  return MPI_Send(&t, 1, MPI_INT, w, TAG_WORK, MPI_COMM_WORLD);
}

/* One run of the farm from the current membership of MPI_COMM_WORLD; returns
 * the error of the first call a failure interrupted. */
static int farm(int me) {
  int size, rc = MPI_SUCCESS;
  MPI_Comm_size(MPI_COMM_WORLD, &size); /* SHRINK: smaller after each recovery */
  memset(assigned, 0, (size_t)ntasks);
  memset(waiting, 0, (size_t)size);
  nworkers = nwaiting = 0;
  /* Exactly one message from every live worker, before handing anything
   * out: once every survivor's last result is in, the slices not done are
   * exactly those nobody alive is working on. */
  int* live = malloc(sizeof(int) * (size_t)size);
  for (int r = 0; r < size; r++) {
    double m[2];
    MPI_Status st;
    if (r == me) continue;
    if ((rc = MPI_Recv(m, 2, MPI_DOUBLE, r, TAG_RESULT, MPI_COMM_WORLD, &st)) != MPI_SUCCESS) break;
    if (st.MPI_SOURCE == MPI_PROC_NULL) continue; /* BLANK: rank r is dead */
    record(m);
    live[nworkers++] = r;
  }
  if (recoveries > 0) {
    printf("master: %d live workers%s\n", nworkers, nworkers < size - 1 ? " (the other ranks are blank)" : "");
    fflush(stdout);
  }
  for (int i = 0; i < nworkers && rc == MPI_SUCCESS; i++) rc = hand_out(live[i]);
  free(live);
  if (rc != MPI_SUCCESS) return rc;
  if (nworkers == 0) { /* BLANK or SHRINK, and every worker died: finish alone */
    for (int t = 0; t < ntasks; t++)
      if (!done[t]) value[t] = integrate(t), done[t] = 1, ndone++, by_master++;
    return MPI_SUCCESS;
  }
  /* Every worker that is not waiting works on a slice: go on until every
   * slice is done and every worker waits. */
  while (ndone < ntasks || nwaiting < nworkers) {
    double m[2];
    MPI_Status st;
    if ((rc = MPI_Recv(m, 2, MPI_DOUBLE, MPI_ANY_SOURCE, TAG_RESULT, MPI_COMM_WORLD, &st)) != MPI_SUCCESS) return rc;
    record(m);
    if ((rc = hand_out(st.MPI_SOURCE)) != MPI_SUCCESS) return rc;
  }
  return MPI_SUCCESS;
}

/* After a recovery: which ranks failed (FTMPI_ERROR_FAILURE's error string
 * names them, as they were numbered before the recovery) and the new size. */
static void report_recovery(void) {
  char failed[MPI_MAX_ERROR_STRING] = "?";
  int size, len;
  MPI_Error_string(attr(FTMPI_ERROR_FAILURE), failed, &len);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  printf("master: recovery %d after %s: world size %d, %d of %d slices done\n", recoveries, failed, size, ndone,
         ntasks);
  fflush(stdout);
}

/* Every slice is done and every live worker waits: tell them to stop, then
 * agree with all of them that the job ends. A failure before every process
 * is in the barrier fails it everywhere (a barrier cannot complete anywhere
 * before everyone entered it): everybody recovers and the farm runs again,
 * where the stopped workers and any restarted one say "ready" and get STOP
 * once more. Without the barrier, a worker dying after its last result
 * would leave the master in MPI_Finalize while the others recover. */
static int stop_workers(int me) {
  int size, rc, stop = STOP;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  for (int r = 0; r < size; r++)
    if (r != me && waiting[r] && (rc = MPI_Send(&stop, 1, MPI_INT, r, TAG_WORK, MPI_COMM_WORLD)) != MPI_SUCCESS)
      return rc;
  return MPI_Barrier(MPI_COMM_WORLD);
}

/* The master's part, from the first time this process leads. */
static int lead(int me) {
  static const char* mode_names[] = {"ABORT", "REBUILD", "BLANK", "SHRINK"};
  if (!have_expected) {
    int size;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (took_over)
      printf("master: rank %d takes over the farm (the master died): %d of %d slices done\n", me, ndone, ntasks);
    else
      printf("masterworker: %s mode, %d workers, %d slices of %d points\n",
             comm_mode >= 0 && comm_mode <= 3 ? mode_names[comm_mode] : "?", size - 1, ntasks, npoints);
    fflush(stdout);
    /* The failure-free value, computed here first (no MPI call: a failure
     * meanwhile waits for the master's next call to be noticed). */
    for (int t = 0; t < ntasks; t++) expected += integrate(t);
    have_expected = 1;
    printf("masterworker: failure-free value computed, farm starts\n");
    fflush(stdout);
  } else if (recoveries > 0) {
    report_recovery();
  }
  int rc = farm(me);
  return rc == MPI_SUCCESS ? stop_workers(me) : rc;
}

static int report(double elapsed) {
  double result = 0.0;
  for (int t = 0; t < ntasks; t++) result += value[t]; /* in slice order, as `expected` */
  const int ok = result == expected;
  /* A slice is handed out again when its worker died, or when the failure
   * discarded the message that handed it out (RESET: no message crosses a
   * recovery); it is computed again only in the first case. */
  printf("masterworker: farm done in %.2f s: %d slices, %d handed out again after a recovery, %d computed by the "
         "master alone, %d duplicate results ignored, %d recoveries\n",
         elapsed, ntasks, handed_again, by_master, duplicates, recoveries);
  if (took_over) printf("masterworker: %d results of the old master's farm reached the new master\n", merged_in);
  printf("masterworker: result %.17g, failure-free value %.17g: %s\n", result, expected, ok ? "MATCH" : "MISMATCH");
  fflush(stdout);
  return ok;
}

/* The whole program after MPI_Init: find the master, merge results, lead or
 * work; after a failure recover and start again from the top. */
static int run(int restarted) {
  int me, rc;
  const double t0 = MPI_Wtime();
  for (;;) {
    MPI_Comm_rank(MPI_COMM_WORLD, &me); /* SHRINK renumbers */
    rc = find_master(&master);
    if (rc == MPI_SUCCESS) {
      /* Leading for the first time after a recovery (or restarted, in
       * REBUILD): the master died. */
      if (me == master && !have_expected && (recoveries > 0 || restarted)) took_over = 1;
      if (restarted && recoveries == 0 && me != master) {
        printf("worker %d: restarted (MPI_INIT_RESTARTED_NODE), asking for work\n", me);
        fflush(stdout);
      }
      rc = merge_results(me);
    }
    if (rc == MPI_SUCCESS) rc = me == master ? lead(me) : work();
    if (rc == MPI_SUCCESS) break;
    expect_failure(rc);
    recover();
    recoveries++;
  }
  return me == master ? report(MPI_Wtime() - t0) : 1;
}

int main(int argc, char** argv) {
  const int rc = MPI_Init(&argc, &argv);
  const int restarted = rc == MPI_INIT_RESTARTED_NODE;
  if (argc > 1) ntasks = atoi(argv[1]);
  if (argc > 2) npoints = atoi(argv[2]) / 2 * 2; /* Simpson needs an even count */
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (ntasks < 1 || npoints < 2 || size < 2) {
    if (rank == 0) fprintf(stderr, "usage: mpirun -np N (N >= 2) masterworker [tasks [points]]\n");
    MPI_Finalize();
    return 2;
  }
  if (attr(FTMPI_RECOVERY_MODE) != FTMPI_RECOVERY_MODE_MANUAL || attr(FTMPI_MSG_MODE) != FTMPI_MSG_MODE_RESET) {
    if (rank == 0) fprintf(stderr, "masterworker: written for MANUAL recovery and RESET messages (the defaults)\n");
    MPI_Finalize();
    return 2;
  }
  /* Failures must come back as error codes, not end the job. */
  MPI_Errhandler_set(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  comm_mode = attr(FTMPI_COMM_MODE);
  allocate_state(size);
  const int ok = run(restarted);
  MPI_Finalize();
  return ok ? 0 : 1;
}
