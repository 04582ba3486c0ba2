// Capture and restore speed of a process with MIB MiB of resident heap
// (bench/ckpt/run_image_bench.py drives it).
//   ckpt_image_bench MIB file PATH   capture into a file (fsync'd), print wall and CPU seconds
//   ckpt_image_bench MIB fd N        capture into inherited descriptor N
// A restored process prints "resumed T" with T its CLOCK_MONOTONIC time, and
// checks the heap.
#include <sys/personality.h>
#include <sys/resource.h>
#include <fcntl.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <string>

#include "modules/ckpt/image.hpp"

namespace {
double now() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}
double cpu() {
  rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  return static_cast<double>(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
         static_cast<double>(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1e-6;
}
}  // namespace

int main(int argc, char** argv) {
  if (argc != 4) {
    std::fprintf(stderr, "usage: ckpt_image_bench MIB file PATH | MIB fd N\n");
    return 2;
  }
  if (!(::personality(0xffffffff) & ADDR_NO_RANDOMIZE)) {
    ::personality(ADDR_NO_RANDOMIZE);
    ::execv("/proc/self/exe", argv);
    return 2;
  }
  size_t bytes = std::strtoull(argv[1], nullptr, 10) << 20;
  auto* heap = static_cast<uint64_t*>(std::malloc(bytes));
  for (size_t i = 0; i < bytes / 8; ++i) heap[i] = i * 0x9E3779B97F4A7C15ull;
  std::string how = argv[2];
  int fd = how == "file" ? ::open(argv[3], O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600) : std::atoi(argv[3]);
  double t0 = now(), c0 = cpu();
  auto r = ftmpi::ckpt::capture_self(fd);
  if (!r.ok()) {
    std::fprintf(stderr, "%s\n", r.error().what.c_str());
    return 1;
  }
  if (r.value() == ftmpi::ckpt::Captured::kResumed) {
    double t = now();
    for (size_t i = 0; i < bytes / 8; ++i)
      if (heap[i] != i * 0x9E3779B97F4A7C15ull) {
        std::printf("heap differs at word %zu\n", i);
        return 1;
      }
    std::printf("resumed %.6f\n", t);
    return 0;
  }
  if (how == "file") ::fsync(fd);
  double t1 = now(), c1 = cpu();
  ::close(fd);
  std::printf("captured %.6f %.6f\n", t1 - t0, c1 - c0);
  return 0;
}
