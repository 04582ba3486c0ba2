// Capture and restore speed of a process with MIB MiB of resident heap
// (bench/ckpt/run_image_bench.py drives it).
//   ckpt_image_bench MIB file PATH   capture into a file (fsync'd), print wall and CPU seconds
//   ckpt_image_bench MIB fd N        capture into inherited descriptor N
//   ckpt_image_bench MIB series DIR PCT delta|whole
//                                    8 images into DIR through the memory store's
//                                    spare files, PCT% of the heap written between
//                                    two; with `delta` incremental when they pay
//                                    (image_delta.hpp); one line per image
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
#include "modules/ckpt/image_delta.hpp"
#include "modules/ckpt/image_disk.hpp"

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
// One image after another, as a rank with the memory store takes them.
int series(uint64_t* heap, size_t bytes, const char* dir, double pct, bool delta) {
  ftmpi::ckpt::DiskStore store(dir, "bench", ftmpi::ckpt::DiskStore::Reuse::kSpare);
  if (!store.prepare().ok()) return 1;
  ftmpi::ckpt::DeltaTracker tracker;
  const size_t words = bytes / 8, dirty = static_cast<size_t>(static_cast<double>(words) * pct / 100.0);
  size_t at = 0;
  for (uint64_t n = 1; n <= 8; ++n) {
    const uint64_t base = delta ? store.delta_base(0, n, tracker) : 0;
    const double t0 = now();
    auto b = store.begin(0, n, base);
    if (!b.ok()) return 1;
    auto r = ftmpi::ckpt::capture_self(b.value(), "", delta ? &tracker : nullptr);
    if (!r.ok() || r.value() == ftmpi::ckpt::Captured::kResumed) return 1;
    const off_t size = ::lseek(b.value(), 0, SEEK_CUR);
    if (!store.commit(b.value(), 0, n, base).ok()) return 1;
    if (delta) tracker.stored(n);
    std::printf("image %llu %s %lld bytes %.6f s\n", static_cast<unsigned long long>(n), base ? "delta" : "whole",
                static_cast<long long>(size), now() - t0);
    std::fflush(stdout);
    // The next PCT% of the heap, a page at a time, from where the last stopped.
    for (size_t i = 0; i < dirty; i += 512, at = (at + 512) % words) heap[at] += n;
  }
  return store.remove_job().ok() ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  const bool is_series = argc == 6 && std::string(argv[2]) == "series";
  if (!is_series && argc != 4) {
    std::fprintf(stderr, "usage: ckpt_image_bench MIB file PATH | MIB fd N | MIB series DIR PCT delta|whole\n");
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
  if (is_series) return series(heap, bytes, argv[3], std::atof(argv[4]), std::string(argv[5]) == "delta");
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
