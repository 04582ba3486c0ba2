/* Non-deterministic programs for transparent mode (issue 16). Each decision
 * MPI leaves to chance (which sender an MPI_ANY_SOURCE receive takes, how
 * many Iprobe polls fail, which requests Testany/Waitsome return, what
 * MPI_Wtime says) is appended to a trace file as "rank pid k decision",
 * after the send that follows it (from then on the decision is logged: a
 * replay must make it again). run_traced.py checks that every incarnation
 * of a rank made the decisions of the final one, and the result printed here
 * against the final incarnation's decisions.
 *
 *   tm_cases anysource|iprobe|harvest|wtime|rand|cancel_death|ldpad|nbc_skip TRACE [ITER]
 */
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "check.h"

static int g_trace = -1, g_rank, g_size;

static void trace(long k, const char* what) {
  char line[256];
  int n = snprintf(line, sizeof line, "%d %d %ld %s\n", g_rank, (int)getpid(), k, what);
  CHECK(write(g_trace, line, (size_t)n) == n, "trace write");
}

/* Ranks >= 1 each send `iter` numbered values to rank 0 and wait for an ack;
 * rank 0 takes them with MPI_ANY_SOURCE. */
static void anysource(int iter) {
  const int total = iter * (g_size - 1);
  if (g_rank == 0) {
    uint64_t hash = 1, sum = 0;
    int next[64] = {0};
    for (int k = 0; k < total; ++k) {
      int v;
      MPI_Status st;
      CHECK_MPI(MPI_Recv(&v, 1, MPI_INT, MPI_ANY_SOURCE, 7, MPI_COMM_WORLD, &st));
      int src = st.MPI_SOURCE;
      CHECK(v == src * 100000 + next[src], "from %d got %d, expected its message %d", src, v, next[src]);
      ++next[src];
      sum += (uint64_t)v;
      hash = hash * 31 + (uint64_t)src;
      CHECK_MPI(MPI_Send(&k, 1, MPI_INT, src, 8, MPI_COMM_WORLD));
      char d[32];
      snprintf(d, sizeof d, "%d", src);
      trace(k, d);
    }
    uint64_t want = 0;
    for (int s = 1; s < g_size; ++s)
      for (int k = 0; k < iter; ++k) want += (uint64_t)(s * 100000 + k);
    CHECK(sum == want, "sum %llu, expected %llu", (unsigned long long)sum, (unsigned long long)want);
    printf("anysource: ok %d messages hash=%llu\n", total, (unsigned long long)hash);
  } else {
    for (int k = 0; k < iter; ++k) {
      int v = g_rank * 100000 + k, ack;
      CHECK_MPI(MPI_Send(&v, 1, MPI_INT, 0, 7, MPI_COMM_WORLD));
      CHECK_MPI(MPI_Recv(&ack, 1, MPI_INT, 0, 8, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
      usleep(1000 + 500 * (unsigned)g_rank);
    }
  }
}

/* Rank 0 polls MPI_Iprobe(MPI_ANY_SOURCE) and counts the failed polls
 * before each message. */
static void iprobe(int iter) {
  const int total = iter * (g_size - 1);
  if (g_rank == 0) {
    uint64_t hash = 1, polls_all = 0;
    for (int k = 0; k < total; ++k) {
      int flag = 0;
      long polls = 0;
      MPI_Status st;
      for (;;) {
        CHECK_MPI(MPI_Iprobe(MPI_ANY_SOURCE, 5, MPI_COMM_WORLD, &flag, &st));
        if (flag) break;
        ++polls;
        usleep(100);
      }
      int v;
      CHECK_MPI(MPI_Recv(&v, 1, MPI_INT, st.MPI_SOURCE, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
      CHECK(v / 100000 == st.MPI_SOURCE, "probe said %d, message from %d", st.MPI_SOURCE, v / 100000);
      CHECK_MPI(MPI_Send(&k, 1, MPI_INT, st.MPI_SOURCE, 6, MPI_COMM_WORLD));
      polls_all += (uint64_t)polls;
      hash = hash * 31 + (uint64_t)st.MPI_SOURCE * 1000003u + (uint64_t)polls;
      char d[48];
      snprintf(d, sizeof d, "%d/%ld", st.MPI_SOURCE, polls);
      trace(k, d);
    }
    printf("iprobe: ok %d messages hash=%llu\n", total, (unsigned long long)hash);
  } else {
    for (int k = 0; k < iter; ++k) {
      int v = g_rank * 100000 + k, ack;
      usleep(1500 + 700 * (unsigned)g_rank);
      CHECK_MPI(MPI_Send(&v, 1, MPI_INT, 0, 5, MPI_COMM_WORLD));
      CHECK_MPI(MPI_Recv(&ack, 1, MPI_INT, 0, 6, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    }
  }
}

/* Rank 0 keeps one receive posted per sender and harvests them with
 * Testany (polling) and Waitsome, alternately. */
static void harvest(int iter) {
  const int n = g_size - 1;
  if (g_rank == 0) {
    MPI_Request req[64];
    int val[64], got[64] = {0}, done = 0, k = 0;
    uint64_t hash = 1;
    for (int i = 0; i < n; ++i)
      CHECK_MPI(MPI_Irecv(&val[i], 1, MPI_INT, i + 1, 3, MPI_COMM_WORLD, &req[i]));
    while (done < n * iter) {
      int idx[64], cnt = 0;
      long polls = 0;
      if (k % 2 == 0) {
        int flag = 0, i;
        for (;;) {
          CHECK_MPI(MPI_Testany(n, req, &i, &flag, MPI_STATUS_IGNORE));
          if (flag) break;
          ++polls;
          usleep(100);
        }
        CHECK(i != MPI_UNDEFINED, "Testany found no active request");
        idx[cnt++] = i;
      } else {
        CHECK_MPI(MPI_Waitsome(n, req, &cnt, idx, MPI_STATUSES_IGNORE));
        CHECK(cnt >= 1 && cnt != MPI_UNDEFINED, "Waitsome returned %d", cnt);
      }
      char d[200];
      int off = snprintf(d, sizeof d, "%s/%ld:", k % 2 == 0 ? "testany" : "waitsome", polls);
      for (int j = 0; j < cnt; ++j) {
        int i = idx[j];
        CHECK(val[i] == (i + 1) * 100000 + got[i], "request %d got %d", i, val[i]);
        ++got[i];
        ++done;
        hash = hash * 31 + (uint64_t)i;
        CHECK_MPI(MPI_Send(&k, 1, MPI_INT, i + 1, 4, MPI_COMM_WORLD));
        if (got[i] < iter) CHECK_MPI(MPI_Irecv(&val[i], 1, MPI_INT, i + 1, 3, MPI_COMM_WORLD, &req[i]));
        if (off < (int)sizeof d - 8) off += snprintf(d + off, sizeof d - (size_t)off, "%d,", i);
      }
      trace(k, d);
      ++k;
    }
    printf("harvest: ok %d messages hash=%llu\n", done, (unsigned long long)hash);
  } else {
    for (int k = 0; k < iter; ++k) {
      int v = g_rank * 100000 + k, ack;
      usleep(800 + 600 * (unsigned)g_rank);
      CHECK_MPI(MPI_Send(&v, 1, MPI_INT, 0, 3, MPI_COMM_WORLD));
      CHECK_MPI(MPI_Recv(&ack, 1, MPI_INT, 0, 4, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    }
  }
}

/* Everybody computes until rank 0's clock says `ms` milliseconds passed. */
static void wtime(int ms) {
  const double t0 = MPI_Wtime();
  long it = 0;
  double acc = 0;
  for (;;) {
    int go = 1;
    if (g_rank == 0) go = (MPI_Wtime() - t0) * 1000.0 < ms;
    CHECK_MPI(MPI_Bcast(&go, 1, MPI_INT, 0, MPI_COMM_WORLD));
    if (g_rank == 0) {
      char d[32];
      snprintf(d, sizeof d, "%d", go);
      trace(it, d);
    }
    if (!go) break;
    double mine = (double)(g_rank + 1) * (double)(it + 1), all = 0;
    CHECK_MPI(MPI_Allreduce(&mine, &all, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD));
    acc += all;
    ++it;
    usleep(2000);
  }
  double want = 0;
  for (long i = 0; i < it; ++i) want += (double)(i + 1) * g_size * (g_size + 1) / 2.0;
  CHECK(acc == want, "sum %g, expected %g after %ld iterations", acc, want, it);
  if (g_rank == 0) printf("wtime: ok %ld iterations sum=%.0f\n", it, acc);
}

/* A program that is NOT deterministic apart from MPI: it sends rand() values
 * seeded from the clock. A replay must end in a divergence message. */
static void randsend(int iter) {
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  srand((unsigned)(ts.tv_nsec ^ (long)getpid()));
  int right = (g_rank + 1) % g_size, left = (g_rank + g_size - 1) % g_size;
  long sum = 0;
  for (int k = 0; k < iter; ++k) {
    int v = rand(), w;
    CHECK_MPI(MPI_Sendrecv(&v, 1, MPI_INT, right, 9, &w, 1, MPI_INT, left, 9, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    sum += w % 7;
    usleep(2000);
  }
  if (g_rank == 0) printf("rand: done %ld\n", sum);
}

/* A survivor's cancel outlives its receiver: rank 0 cancels a message rank 1
 * never asks for while rank 1 sleeps outside MPI, and in round 1 rank 1's
 * first incarnation kills itself (SIGKILL; the marker file TRACE.died says
 * it did) before it could answer. As in a failure-free run the cancel must
 * end cancelled (before: "not cancelled", its answer lost with the
 * receiver) and the message must never arrive. Traces: rank 0 the cancel
 * outcome, rank 1 whether the message was there. */
static void cancel_death(int iter, const char* trace_path) {
  char marker[4096];
  snprintf(marker, sizeof marker, "%s.died", trace_path);
  for (int i = 0; i < iter; ++i) {
    int v = i, token = 0, flag = 1;
    MPI_Status st;
    if (g_rank == 0) {
      MPI_Request rq;
      /* Rank 1 has left MPI for a while. */
      CHECK_MPI(MPI_Recv(&token, 1, MPI_INT, 1, 298, MPI_COMM_WORLD, &st));
      CHECK_MPI(MPI_Isend(&v, 1, MPI_INT, 1, 300, MPI_COMM_WORLD, &rq));
      /* A progress pass lets the message leave: the cancel must ask rank 1. */
      CHECK_MPI(MPI_Iprobe(1, 301, MPI_COMM_WORLD, &flag, &st));
      CHECK_MPI(MPI_Cancel(&rq));
      CHECK_MPI(MPI_Wait(&rq, &st));
      CHECK_MPI(MPI_Test_cancelled(&st, &flag));
      CHECK(flag, "round %d: a send rank 1 never asked for was not cancelled", i);
      trace(i, "1");
      CHECK_MPI(MPI_Send(&token, 1, MPI_INT, 1, 299, MPI_COMM_WORLD));
    } else if (g_rank == 1) {
      CHECK_MPI(MPI_Send(&token, 1, MPI_INT, 0, 298, MPI_COMM_WORLD));
      usleep(300000); /* rank 0's CANCEL arrives meanwhile, unanswered */
      if (i == 1) {
        int fd = open(marker, O_WRONLY | O_CREAT | O_EXCL, 0644);
        if (fd >= 0) kill(getpid(), SIGKILL);
      }
      CHECK_MPI(MPI_Recv(&token, 1, MPI_INT, 0, 299, MPI_COMM_WORLD, &st));
      CHECK_MPI(MPI_Iprobe(0, 300, MPI_COMM_WORLD, &flag, &st));
      CHECK(!flag, "round %d: the cancelled message arrived", i);
      trace(i, "0");
    }
  }
  if (g_rank == 1) unlink(marker);
  if (g_rank == 0) printf("cancel_death: ok\n");
}

/* A deterministic program whose long doubles carry bytes without value
 * (x87: 6 of every 16) that differ from run to run, as memory that held
 * something else leaves them: rank 0 sends MPI_LONG_DOUBLE,
 * MPI_LONG_DOUBLE_INT and a vector of long doubles to rank 1, the unused
 * bytes filled from its pid. Its first incarnation dies at its 10th message
 * (FTMPI_INJECT_SEND_KILL); the replay sends the same values, which must not
 * count as a divergence (before: "replay diverged (its message 1 to rank 1
 * differs ...)"). */
static void ldpad(int iter) {
  typedef struct {
    long double v;
    int i;
  } LdInt;
  enum { N = 8 };
  MPI_Datatype vec;
  CHECK_MPI(MPI_Type_vector(N / 2, 1, 2, MPI_LONG_DOUBLE, &vec));
  CHECK_MPI(MPI_Type_commit(&vec));
  for (int k = 0; k < iter; ++k) {
    long double a[N];
    LdInt p[N];
    if (g_rank == 0) {
      memset(a, (int)(getpid() & 0x7f) | 1, sizeof a);
      memset(p, (int)(getpid() & 0x7f) | 1, sizeof p);
      for (int j = 0; j < N; ++j) {
        a[j] = (long double)(k * N + j) / 3.0L;
        p[j].v = (long double)k - j / 7.0L;
        p[j].i = k + j;
      }
      CHECK_MPI(MPI_Send(a, N, MPI_LONG_DOUBLE, 1, 1, MPI_COMM_WORLD));
      CHECK_MPI(MPI_Send(p, N, MPI_LONG_DOUBLE_INT, 1, 2, MPI_COMM_WORLD));
      CHECK_MPI(MPI_Send(a, 1, vec, 1, 3, MPI_COMM_WORLD));
      trace(k, "1");
    } else if (g_rank == 1) {
      long double b[N], c[N / 2];
      LdInt q[N];
      CHECK_MPI(MPI_Recv(b, N, MPI_LONG_DOUBLE, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
      CHECK_MPI(MPI_Recv(q, N, MPI_LONG_DOUBLE_INT, 0, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
      CHECK_MPI(MPI_Recv(c, N / 2, MPI_LONG_DOUBLE, 0, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
      for (int j = 0; j < N; ++j) {
        CHECK(b[j] == (long double)(k * N + j) / 3.0L, "round %d: long double %d wrong", k, j);
        CHECK(q[j].v == (long double)k - j / 7.0L && q[j].i == k + j, "round %d: pair %d wrong", k, j);
        if (j % 2 == 0) CHECK(c[j / 2] == b[j], "round %d: vector element %d wrong", k, j / 2);
      }
    }
  }
  CHECK_MPI(MPI_Type_free(&vec));
  if (g_rank == 0) printf("ldpad: ok\n");
}

/* A replay that never starts the nonblocking collective its dead
 * incarnation had started: each iteration is an MPI_Ibcast from rank 0 (at
 * np 4 rank 2 forwards to rank 3 in its second round, which the progress
 * engine starts and message logging records) and a ring MPI_Sendrecv. Rank
 * 2's first incarnation (it creates the marker TRACE.died) dies at its 5th
 * message (FTMPI_INJECT_SEND_KILL=2:5); its replay finds the marker and
 * skips the first MPI_Ibcast, as a program would whose control flow depends
 * on a file. Its next send waits for the logged round that can no longer
 * come: the job must end with the divergence named (before: it hung). */
static void nbc_skip(int iter, const char* trace_path) {
  char marker[4096];
  snprintf(marker, sizeof marker, "%s.died", trace_path);
  int replay = 0;
  if (g_rank == 2) {
    int fd = open(marker, O_WRONLY | O_CREAT | O_EXCL, 0644);
    if (fd >= 0) close(fd);
    else replay = 1;
  }
  int right = (g_rank + 1) % g_size, left = (g_rank + g_size - 1) % g_size;
  for (int k = 0; k < iter; ++k) {
    int v = g_rank == 0 ? k : -1, w = -1;
    if (!(replay && k == 0)) {
      MPI_Request rq;
      CHECK_MPI(MPI_Ibcast(&v, 1, MPI_INT, 0, MPI_COMM_WORLD, &rq));
      CHECK_MPI(MPI_Wait(&rq, MPI_STATUS_IGNORE));
      CHECK(v == k, "round %d: the broadcast brought %d", k, v);
    }
    CHECK_MPI(MPI_Sendrecv(&v, 1, MPI_INT, right, 7, &w, 1, MPI_INT, left, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    trace(k, "1");
  }
  if (g_rank == 0) printf("nbc_skip: ok\n");
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
  MPI_Comm_size(MPI_COMM_WORLD, &g_size);
  CHECK(argc >= 3, "usage: tm_cases CASE TRACE [ITER]");
  CHECK(g_size >= 2 && g_size <= 64, "2 to 64 ranks");
  g_trace = open(argv[2], O_WRONLY | O_CREAT | O_APPEND, 0644);
  CHECK(g_trace >= 0, "cannot open %s", argv[2]);
  int iter = argc > 3 ? atoi(argv[3]) : 100;
  if (!strcmp(argv[1], "anysource")) anysource(iter);
  else if (!strcmp(argv[1], "iprobe")) iprobe(iter);
  else if (!strcmp(argv[1], "harvest")) harvest(iter);
  else if (!strcmp(argv[1], "wtime")) wtime(iter);
  else if (!strcmp(argv[1], "rand")) randsend(iter);
  else if (!strcmp(argv[1], "cancel_death")) cancel_death(iter, argv[2]);
  else if (!strcmp(argv[1], "ldpad")) ldpad(iter);
  else if (!strcmp(argv[1], "nbc_skip")) nbc_skip(iter, argv[2]);
  else CHECK(0, "unknown case %s", argv[1]);
  close(g_trace);
  MPI_Finalize();
  return 0;
}
