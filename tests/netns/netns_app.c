/* The application of the multi-host tests: a job that keeps computing while
 * hosts fail under it, and checks its numbers.
 *
 *   netns_app ITERS SLEEP_MS
 *
 * Every iteration each rank passes a value around the ring (Sendrecv) and
 * the world sums (Allreduce); both results are checked against what they
 * must be for the current size. A failure (any error return) is recovered
 * the FT-MPI way: MPI_Comm_dup(MPI_COMM_WORLD) until it succeeds (MANUAL
 * recovery), then the ranks agree on the iteration to resume from (the
 * lowest any survivor completed) and go on. Respawned processes (REBUILD)
 * join that agreement. Rank 0 prints progress lines ("iter N size S") that
 * the tests wait for before they break a host, and at the end
 * "netns_app: ok ITERS iterations, R recoveries, size S". */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int fail(const char* what, int a, int b) {
  fprintf(stderr, "netns_app: CHECK FAILED: %s (%d vs %d)\n", what, a, b);
  fflush(stderr);
  MPI_Abort(MPI_COMM_WORLD, 3);
  return 3;
}

/* One iteration's work; MPI_SUCCESS or the first error. */
static int step(int iter) {
  int rank, size, rc;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int out = 1000 * iter + rank, in = -1;
  int to = (rank + 1) % size, from = (rank + size - 1) % size;
  MPI_Status st;
  rc = MPI_Sendrecv(&out, 1, MPI_INT, to, 10 + iter, &in, 1, MPI_INT, from, 10 + iter, MPI_COMM_WORLD, &st);
  if (rc != MPI_SUCCESS) return rc;
  if (size > 1 && in != 1000 * iter + from) return fail("ring value", in, 1000 * iter + from);
  long mine = (long)(iter + 1) * (rank + 1), sum = -1;
  rc = MPI_Allreduce(&mine, &sum, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
  if (rc != MPI_SUCCESS) return rc;
  long want = (long)(iter + 1) * size * (size + 1) / 2;
  if (sum != want) return fail("allreduce sum", (int)sum, (int)want);
  return MPI_SUCCESS;
}

/* Rank 0 learns every survivor's progress and tells all where to resume;
 * -1 (a respawned process) has none. */
static int agree(int done, int* resume) {
  int rank, size, rc;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (rank == 0) {
    int r = done;
    for (int p = 1; p < size; ++p) {
      int v;
      rc = MPI_Recv(&v, 1, MPI_INT, p, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      if (rc != MPI_SUCCESS) return rc;
      if (v >= 0 && (r < 0 || v < r)) r = v;
    }
    for (int p = 1; p < size; ++p)
      if ((rc = MPI_Send(&r, 1, MPI_INT, p, 3, MPI_COMM_WORLD)) != MPI_SUCCESS) return rc;
    *resume = r;
    return MPI_SUCCESS;
  }
  rc = MPI_Send(&done, 1, MPI_INT, 0, 2, MPI_COMM_WORLD);
  if (rc != MPI_SUCCESS) return rc;
  return MPI_Recv(resume, 1, MPI_INT, 0, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
}

static void recover(void) {
  MPI_Comm c;
  while (MPI_Comm_dup(MPI_COMM_WORLD, &c) != MPI_SUCCESS) usleep(1000);
  MPI_Comm_free(&c);
}

int main(int argc, char** argv) {
  int rc = MPI_Init(&argc, &argv);
  int restarted = rc == MPI_INIT_RESTARTED_NODE;
  if (rc != MPI_SUCCESS && !restarted) return 2;
  int iters = argc > 1 ? atoi(argv[1]) : 20, sleep_ms = argc > 2 ? atoi(argv[2]) : 100;
  MPI_Errhandler_set(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  int done = restarted ? -1 : 0; /* iterations completed */
  int recoveries = 0, need_agree = restarted;
  while (done < iters) {
    if (need_agree) {
      int resume = -1;
      if (agree(done, &resume) != MPI_SUCCESS) {
        recover();
        ++recoveries;
        continue;
      }
      if (resume < 0) fail("no survivor knew the iteration", resume, 0);
      done = resume;
      need_agree = 0;
      continue;
    }
    if (step(done) != MPI_SUCCESS) {
      recover();
      ++recoveries;
      need_agree = 1;
      continue;
    }
    ++done;
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (rank == 0) {
      printf("iter %d size %d\n", done, size);
      fflush(stdout);
    }
    usleep((useconds_t)sleep_ms * 1000);
  }
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  /* NETNS_CHECK_ENV="A=x,B=y": every rank, on every host, must see these. */
  const char* want = getenv("NETNS_CHECK_ENV");
  if (want) {
    char buf[256];
    snprintf(buf, sizeof buf, "%s", want);
    for (char* tok = strtok(buf, ","); tok; tok = strtok(NULL, ",")) {
      char* eq = strchr(tok, '=');
      if (!eq) continue;
      *eq = 0;
      const char* have = getenv(tok);
      if (!have || strcmp(have, eq + 1) != 0) {
        fprintf(stderr, "netns_app: rank %d: %s is %s, expected %s\n", rank, tok, have ? have : "unset", eq + 1);
        return fail("environment", 0, 0);
      }
    }
  }
  if (rank == 0) printf("netns_app: ok %d iterations, %d recoveries, size %d\n", iters, recoveries, size);
  fflush(stdout);
  MPI_Finalize();
  return 0;
}
