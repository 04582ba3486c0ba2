/* The pause of a checkpoint is a fork (spec/checkpoint-protocol.md §2):
 * this measures it for a process with MIB MiB of touched heap, wall and CPU
 * time of the parent, seven times (the state is rewritten in between, as a
 * solver would). Run it plain and with GLIBC_TUNABLES=glibc.malloc.hugetlb=1
 * (what ftmpirun gives ranks when checkpoints are on) side by side:
 *   cc -O2 -o fork_pause bench/ckpt/fork_pause.c
 *   ./fork_pause 1024; GLIBC_TUNABLES=glibc.malloc.hugetlb=1 ./fork_pause 1024 */
#define _GNU_SOURCE
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double ms(clockid_t c) {
  struct timespec ts;
  clock_gettime(c, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

int main(int argc, char** argv) {
  size_t mib = argc > 1 ? (size_t)atol(argv[1]) : 1024;
  char* p = malloc(mib << 20);
  if (!p) return 1;
  memset(p, 1, mib << 20);
  for (int i = 0; i < 7; ++i) {
    double w0 = ms(CLOCK_MONOTONIC), c0 = ms(CLOCK_THREAD_CPUTIME_ID);
    pid_t pid = fork();
    if (pid == 0) {
      pause();
      _exit(0);
    }
    double w1 = ms(CLOCK_MONOTONIC), c1 = ms(CLOCK_THREAD_CPUTIME_ID);
    printf("%zu MiB: fork %.2f ms wall, %.2f ms cpu: %.1f ms/GiB cpu\n", mib, w1 - w0, c1 - c0,
           (c1 - c0) * 1024.0 / (double)mib);
    kill(pid, SIGKILL);
    waitpid(pid, NULL, 0);
    for (size_t k = 0; k < (mib << 20); k += 4096) p[k]++;
  }
  free(p);
  return 0;
}
