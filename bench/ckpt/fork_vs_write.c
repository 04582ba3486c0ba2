/* What a checkpoint costs a process that rewrites its state between two
 * checkpoints, for the two ways of capturing it (spec/checkpoint-protocol.md
 * §2 and §2b):
 *   fork:  the pause is the fork; then, while the frozen copy lives, every
 *          page the process writes again takes a copy-on-write fault;
 *   write: the pause is the write of the state into a file of /dev/shm (the
 *          memory store); the process's page tables do not change.
 * For each, five rounds of: capture, then one rewrite of the whole state
 * (what a solver does between checkpoints); wall times of each step.
 *   cc -O2 -o fork_vs_write bench/ckpt/fork_vs_write.c
 *   ./fork_vs_write 256 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static double rewrite(char* p, size_t bytes, int round) {
  double t0 = now_ms();
  memset(p, round, bytes);
  return now_ms() - t0;
}

int main(int argc, char** argv) {
  size_t mib = argc > 1 ? (size_t)atol(argv[1]) : 256;
  size_t bytes = mib << 20;
  char* p = malloc(bytes);
  if (!p) return 1;
  memset(p, 1, bytes);
  char path[64];
  snprintf(path, sizeof path, "/dev/shm/fork_vs_write.%d", (int)getpid());
  double pages = (double)bytes / 4096.0;
  for (int round = 0; round < 5; ++round) {
    double t0 = now_ms();
    pid_t pid = fork();
    if (pid == 0) {
      pause();
      _exit(0);
    }
    double pause_ms = now_ms() - t0;
    double after = rewrite(p, bytes, round);
    printf("%zu MiB fork : pause %7.1f ms, rewrite after it %7.1f ms (%.2f us/page)\n", mib, pause_ms, after,
           after * 1e3 / pages);
    kill(pid, SIGKILL);
    waitpid(pid, NULL, 0);
  }
  for (int round = 0; round < 5; ++round) {
    double t0 = now_ms();
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    if (fd < 0) return 1;
    for (size_t off = 0; off < bytes;) {
      ssize_t n = write(fd, p + off, bytes - off < (1u << 20) ? bytes - off : (1u << 20));
      if (n <= 0) return 1;
      off += (size_t)n;
    }
    close(fd);
    double pause_ms = now_ms() - t0;
    double after = rewrite(p, bytes, round);
    printf("%zu MiB write: pause %7.1f ms, rewrite after it %7.1f ms (%.2f us/page)\n", mib, pause_ms, after,
           after * 1e3 / pages);
  }
  unlink(path);
  return 0;
}
