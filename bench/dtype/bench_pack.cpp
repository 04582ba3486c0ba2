// Micro-benchmark of the datatype cursor: the same cases as
// mpi_pack_bench.c (every other double of an 8 MiB array, runs of 4 doubles
// out of 16, contiguous), plus the piecewise pipelined pack a rendezvous
// protocol does and iovec generation. Prints the best of N runs; run.sh
// puts the numbers next to Open MPI's and MPICH's MPI_Pack.
#include <sys/uio.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "dtype/datatype.hpp"

using namespace ftmpi::dtype;

namespace {

double now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

template <class F>
double best_of(int reps, F&& f) {
  double best = 1e9;
  for (int r = 0; r < reps; ++r) {
    const double t0 = now();
    f();
    const double t = now() - t0;
    if (t < best) best = t;
  }
  return best;
}

void run(const char* name, const Type& t, const double* src, double* dst, char* packed,
         size_t packed_bytes, int reps) {
  const double pack = best_of(reps, [&] {
    Cursor c(src, 1, t);
    if (c.pack(packed, packed_bytes) != packed_bytes) std::abort();
  });
  const double unpack = best_of(reps, [&] {
    Cursor c(dst, 1, t);
    if (c.unpack(packed, packed_bytes) != packed_bytes) std::abort();
  });
  // A pipelined protocol moves the message in 64 KiB pieces.
  const double pieces = best_of(reps, [&] {
    Cursor c(src, 1, t);
    size_t at = 0;
    while (!c.done()) at += c.pack(packed + at, 64 << 10);
    if (at != packed_bytes) std::abort();
  });
  std::printf("%-14s pack %8.1f us (%6.2f GB/s packed)  unpack %8.1f us  64KiB-pieces %8.1f us\n",
              name, pack * 1e6, packed_bytes / pack * 1e-9, unpack * 1e6, pieces * 1e6);
}

}  // namespace

int main(int argc, char** argv) {
  const int reps = argc > 1 ? std::atoi(argv[1]) : 50;
  const int n = (8 << 20) / 8;
  std::vector<double> src(n), dst(n, 0.0);
  std::vector<char> packed(static_cast<size_t>(n) * 8);
  for (int i = 0; i < n; ++i) src[i] = i;

  TypeRef every_other, cols, contig;
  if (make_vector(n / 2, 1, 2, builtin_type(Builtin::kDouble), &every_other) != ftmpi::Err::kOk ||
      make_vector(n / 16, 4, 16, builtin_type(Builtin::kDouble), &cols) != ftmpi::Err::kOk ||
      make_contiguous(n, builtin_type(Builtin::kDouble), &contig) != ftmpi::Err::kOk)
    return 1;
  run("every_other", *every_other, src.data(), dst.data(), packed.data(), n / 2 * 8, reps);
  run("4_of_16", *cols, src.data(), dst.data(), packed.data(), n / 4 * 8, reps);
  run("contiguous", *contig, src.data(), dst.data(), packed.data(), size_t{8} * n, reps);
  for (int i = 0; i < n; i += 2)
    if (dst[i] != src[i]) {
      std::printf("unpack mismatch at %d\n", i);
      return 1;
    }

  // iovecs for process_vm_readv: IOV_MAX (1024) entries per call.
  std::vector<iovec> iov(1024);
  const double iovecs = best_of(reps, [&] {
    Cursor c(src.data(), 1, *cols);
    while (!c.done()) c.iovecs(iov.data(), iov.size(), SIZE_MAX);
  });
  std::printf("%-14s iovecs for 4_of_16 (%d blocks) %8.1f us\n", "", n / 16, iovecs * 1e6);
  return 0;
}
