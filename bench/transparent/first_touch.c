/* What filling never-used memory costs on this machine: the sender log of
 * transparent mode copies every payload into memory the process has not
 * touched before (until garbage collection recycles chunks), so its large-
 * message bandwidth is bounded by how fast fresh pages can be written.
 *
 *   first_touch [MiB per trial, default 128] [trials, default 3]
 *
 * Each trial copies 4 MiB pieces of a warm source into a fresh 64 MiB
 * mapping at a time (the log's chunk size), in one of these ways:
 *   warm       into memory already written (the floor: the copy alone)
 *   fault      4 KiB page faults as the copy first touches each page
 *   populate   MAP_POPULATE: the kernel fills the chunk at mmap time
 *   popwrite   madvise(MADV_POPULATE_WRITE) on the chunk, then the copy
 *   huge       2 MiB aligned chunk with madvise(MADV_HUGEPAGE), faults
 *   hugepop    the same, then MADV_POPULATE_WRITE
 *   poppiece   MADV_POPULATE_WRITE on each 4 MiB piece before its copy
 *   pop256k    the same per 256 KiB (a step ahead of a stream of small copies)
 * Nothing is unmapped before the exit (a page given back could be handed
 * out again, no longer fresh): a run holds 7 x trials x MiB of memory,
 * 2.7 GiB with 128 MiB and 3 trials. It prints MB/s of payload per way
 * (medians of the trials, per second of the thread's CPU time), the
 * mapping and population time included. Not a test; see docs/benchmarks.md. */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif

enum { kChunk = 64 << 20, kPiece = 4 << 20, kHuge = 2 << 20 };

/* CPU time of this thread, not wall-clock: on a loaded machine the wall
 * clock mostly measures the other jobs; a page fault's time (the host's
 * share included, the vCPU waits) is charged to the thread that faults. */
static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static uint8_t* chunk(const char* way) {
  int huge = strncmp(way, "huge", 4) == 0;
  size_t len = huge ? kChunk + kHuge : kChunk;
  int flags = MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE;
  if (strcmp(way, "populate") == 0) flags |= MAP_POPULATE;
  uint8_t* p = mmap(NULL, len, PROT_READ | PROT_WRITE, flags, -1, 0);
  if (p == MAP_FAILED) {
    perror("mmap");
    exit(1);
  }
  if (huge) {
    /* The aligned 64 MiB inside; the ends stay mapped (a benchmark). */
    p = (uint8_t*)(((uintptr_t)p + kHuge - 1) & ~(uintptr_t)(kHuge - 1));
    if (madvise(p, kChunk, MADV_HUGEPAGE) != 0) perror("madvise(MADV_HUGEPAGE)");
  }
  if (strcmp(way, "popwrite") == 0 || strcmp(way, "hugepop") == 0)
    if (madvise(p, kChunk, MADV_POPULATE_WRITE) != 0) perror("madvise(MADV_POPULATE_WRITE)");
  return p;
}

static int cmp(const void* a, const void* b) {
  double x = *(const double*)a, y = *(const double*)b;
  return x < y ? -1 : x > y;
}

int main(int argc, char** argv) {
  size_t mib = argc > 1 ? (size_t)atol(argv[1]) : 128;
  int trials = argc > 2 ? atoi(argv[2]) : 3;
  if (mib < 64 || trials < 1 || trials > 31) {
    fprintf(stderr, "usage: first_touch [MiB >= 64] [trials 1..31]\n");
    return 2;
  }
  size_t chunks = mib / 64;
  uint8_t* src = malloc(kPiece);
  memset(src, 7, kPiece);
  const char* ways[] = {"warm", "fault", "populate", "popwrite", "huge", "hugepop", "poppiece", "pop256k"};
  enum { kWays = sizeof ways / sizeof ways[0] };
  double mbs[kWays][31];
  uint8_t* warm = chunk("fault");
  memset(warm, 1, kChunk);
  for (int t = 0; t < trials; ++t) {
    for (int w = 0; w < kWays; ++w) {  /* interleaved: a slow phase of the machine hits every way */
      double t0 = now();
      for (size_t c = 0; c < chunks; ++c) {
        uint8_t* dst = w == 0 ? warm : chunk(ways[w]);
        size_t step = strcmp(ways[w], "poppiece") == 0 ? kPiece : strcmp(ways[w], "pop256k") == 0 ? 256 << 10 : 0;
        for (size_t off = 0; off < kChunk; off += kPiece) {
          for (size_t at = 0; step && at < kPiece; at += step)
            if (madvise(dst + off + at, step, MADV_POPULATE_WRITE) != 0) perror("madvise(MADV_POPULATE_WRITE)");
          memcpy(dst + off, src, kPiece);
        }
      }
      mbs[w][t] = (double)(chunks * (size_t)kChunk) / (now() - t0) / 1e6;
    }
  }
  printf("| way | MB/s (median of %d, %zu MiB each) |\n|---|---|\n", trials, chunks * 64);
  for (int w = 0; w < kWays; ++w) {
    qsort(mbs[w], (size_t)trials, sizeof(double), cmp);
    printf("| %s | %.0f |\n", ways[w], mbs[w][trials / 2]);
  }
  return 0;
}
