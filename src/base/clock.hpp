#pragma once
#include <cstdint>
#include <ctime>

namespace ftmpi {

// Monotonic time in nanoseconds; the one clock the library and runtime use.
inline uint64_t now_ns() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1000000000ull + static_cast<uint64_t>(ts.tv_nsec);
}

inline double now_seconds() { return static_cast<double>(now_ns()) * 1e-9; }

}  // namespace ftmpi
