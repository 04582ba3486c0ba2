// A program that captures itself in the middle of a computation
// (tests/ckpt/ckpt_cases.py). It holds tens of MiB of heap (large blocks and
// many small nodes), a deep stack of frames with checked contents, globals in
// .data and .bss, a file being written through stdio, a signal handler and a
// blocked signal, and 4 MiB of scratch whose middle each capture names
// unused (left out of the image: it must read as zero). After the capture the original scribbles over its state and
// kills itself; a restored process must finish with exactly the output of a
// run without checkpoint.
//
//   ckpt_victim plain OUT            no checkpoint (the expected output)
//   ckpt_victim disk DIR OUT         image to DIR through the disk store
//   ckpt_victim fd N OUT             image written to inherited descriptor N
//   ckpt_victim disk2 DIR OUT        image 1 at the bottom of the stack, image 2
//                                    near the end (a restored process captures again)
//   ckpt_victim threads DIR OUT      starts a thread first: capture must refuse
//   ckpt_victim edge DIR OUT         disk, with the heap's top used up first: the
//                                    capture's own allocations grow the heap
//   ckpt_victim delta DIR OUT        disk with a delta tracker: image 1 whole (the
//                                    run goes on), image 2 incremental on it
//   ckpt_victim buddy ADDR:PORT OUT  image to a buddy checkpoint server (secret
//                                    in FTMPI_TEST_CKPT_SECRET, hex)
#include <fcntl.h>
#include <malloc.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/personality.h>
#include <unistd.h>

#include <cfenv>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include "modules/ckpt/image.hpp"
#include "modules/ckpt/image_buddy.hpp"
#include "modules/ckpt/image_delta.hpp"
#include "modules/ckpt/image_disk.hpp"

namespace {

constexpr int kDepth = 3000;          // frames of ~1 KiB: a 3 MiB stack
constexpr size_t kBlocks = 40;        // 40 MiB in large blocks
constexpr size_t kBlockWords = (1u << 20) / 8;
constexpr int kNodes = 50000;         // small allocations

uint64_t g_table[1 << 16];            // .bss
char g_label[32] = "ckpt-victim";     // .data
volatile sig_atomic_t g_usr1 = 0;

std::vector<std::vector<uint64_t>>* g_blocks;
uint64_t* g_grown;            // a C buffer realloc'd between the images (moved by mremap)
size_t g_grown_words;
ftmpi::ckpt::DeltaTracker* g_delta;
constexpr size_t kMiB = 1u << 20;
uint8_t* g_scratch;              // 4 MiB mapping
ftmpi::ckpt::PageRuns g_unused;  // what the capture leaves out of it
std::map<int, std::string>* g_nodes;
FILE* g_out;
const char* g_mode;
const char* g_target;
int g_resumed = 0;

void on_usr1(int) { g_usr1 = g_usr1 + 1; }

uint64_t mix(uint64_t x) {
  x ^= x >> 31;
  x *= 0x7fb5d329728ea185ull;
  x ^= x >> 27;
  return x;
}

uint64_t digest() {
  uint64_t h = 1;
  for (auto& b : *g_blocks)
    for (uint64_t w : b) h = mix(h ^ w);
  for (auto& [k, v] : *g_nodes) h = mix(h ^ static_cast<uint64_t>(k) ^ std::hash<std::string>{}(v));
  for (uint64_t w : g_table) h = mix(h ^ w);
  for (size_t i = 0; i < g_grown_words; ++i) h = mix(h ^ g_grown[i]);
  return h;
}

void scribble() {
  for (auto& b : *g_blocks) std::fill(b.begin(), b.end(), 0xdeadbeefull);
  g_nodes->clear();
  std::memset(g_table, 0xab, sizeof g_table);
  std::strcpy(g_label, "scribbled");
  std::fputs("GARBAGE", g_out);
  std::fflush(g_out);
}

// Sets the heap up so that the capture's own allocations move the program
// break: no mapping for large blocks, no padding when the heap grows, its
// top chunk used up by small blocks, and a few hundred separate mappings to
// list (tens of KiB of maps text and records, more than any free chunk).
void use_up_heap_top() {
  mallopt(M_MMAP_THRESHOLD, 64 << 20);
  mallopt(M_TOP_PAD, 0);
  for (int i = 0; i < 400; ++i) {
    void* m = ::mmap(nullptr, 4096, i % 2 ? PROT_READ : PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m == MAP_FAILED) std::exit(4);
  }
  for (;;) {
    const size_t top = mallinfo2().keepcost;
    if (top < 512) return;
    void* p = std::malloc(top - 256 < 4096 ? top - 256 : 4096);
    if (!p) return;
    std::memset(p, 0x5a, 16);
  }
}

// Image 1 leaves out MiB 1-3 of the scratch; before image 2 MiB 1 is
// written again (a delta must hold it) and only MiB 2 is left out.
void name_unused(uint64_t number) {
  const auto s = reinterpret_cast<uint64_t>(g_scratch);
  if (number == 2) std::memset(g_scratch + kMiB, 0x55, kMiB);
  g_unused = {{s + (number == 1 ? 1 : 2) * kMiB, s + 3 * kMiB}};
}

bool scratch_is(size_t mib, uint8_t v) {
  for (size_t i = mib * kMiB; i < (mib + 1) * kMiB; ++i)
    if (g_scratch[i] != v) return false;
  return true;
}

void check_scratch(uint64_t number) {
  const bool ok = scratch_is(0, 0x77) && scratch_is(1, number == 1 ? 0 : 0x55) && scratch_is(2, 0) &&
                  scratch_is(3, 0x77);
  if (ok) return;
  std::fprintf(stderr, "victim: scratch restored from image %d is wrong: MiB 0-3 start %02x %02x %02x %02x\n",
               static_cast<int>(number), g_scratch[0], g_scratch[kMiB], g_scratch[2 * kMiB], g_scratch[3 * kMiB]);
  std::exit(8);
}

void checkpoint(uint64_t number) {
  std::string mode = g_mode;
  if (mode == "plain" || (number == 2 && mode != "disk2" && mode != "delta")) return;
  name_unused(number);
  const bool edge = mode == "edge", delta = mode == "delta";
  if (mode == "disk2" || edge || delta) mode = "disk";
  if (mode == "threads") {
    std::thread t([] { ::pause(); });
    t.detach();
    ::usleep(10000);
  }
  int fd = -1;
  ftmpi::ckpt::DiskStore store(g_target, "victim");
  const uint64_t base = delta ? store.delta_base(0, number, *g_delta) : 0;
  if (mode == "disk" || mode == "threads") {
    ftmpi::ckpt::Error e = store.prepare();
    auto r = store.begin(0, number, base);
    if (!e.ok() || !r.ok()) {
      std::fprintf(stderr, "victim: %s%s\n", e.what.c_str(), r.ok() ? "" : r.error().what.c_str());
      std::exit(4);
    }
    fd = r.value();
  } else if (mode == "buddy") {
    std::string t = g_target;
    ftmpi::auth::Secret secret;
    const char* hex = std::getenv("FTMPI_TEST_CKPT_SECRET");
    if (!hex || !ftmpi::auth::from_hex(hex, secret)) std::exit(4);
    auto r = ftmpi::ckpt::buddy_put_begin(t.substr(0, t.find(':')), static_cast<uint16_t>(std::stoi(t.substr(t.find(':') + 1))),
                                          secret, 0, 1, 10000);
    if (!r.ok()) {
      std::fprintf(stderr, "victim: %s\n", r.error().what.c_str());
      std::exit(4);
    }
    fd = r.value();
  } else {
    fd = std::atoi(g_target);
  }
  if (edge) use_up_heap_top();
  auto c = ftmpi::ckpt::capture_self(fd, "", g_delta, &g_unused);
  if (!c.ok()) {
    std::fprintf(stderr, "victim: %s\n", c.error().what.c_str());
    std::exit(5);
  }
  if (c.value() == ftmpi::ckpt::Captured::kResumed) {
    g_resumed = 1;
    check_scratch(number);
    // The captured process's environment is back; the restorer's is aside,
    // and the image's descriptor is closed.
    std::string ref;
    for (const std::string& e : ftmpi::ckpt::restorer_environment())
      if (e.rfind("FTMPI_CKPT_RESTORE=", 0) == 0) ref = e.substr(19);
    if (std::getenv("FTMPI_CKPT_RESTORE") || ref.empty()) {
      std::fprintf(stderr, "victim: environment after resume is wrong\n");
      std::exit(7);
    }
    if (ref.find_first_not_of("0123456789") == std::string::npos && ::fcntl(std::stoi(ref), F_GETFD) != -1) {
      std::fprintf(stderr, "victim: the image descriptor %s is still open\n", ref.c_str());
      std::exit(7);
    }
    return;
  }
  if (mode == "disk") {
    ftmpi::ckpt::Error e = store.commit(fd, 0, number, base);
    if (!e.ok()) {
      std::fprintf(stderr, "victim: %s\n", e.what.c_str());
      std::exit(6);
    }
    if (delta) {
      g_delta->stored(number);
      std::fprintf(stderr, "victim: image %d %s\n", static_cast<int>(number), base ? "incremental" : "whole");
      if (!g_delta->unavailable().empty()) std::fprintf(stderr, "victim: no deltas: %s\n", g_delta->unavailable().c_str());
      if (number == 1) return;  // image 2 builds on this one
    }
  } else if (mode == "buddy") {
    ftmpi::ckpt::Error e = ftmpi::ckpt::buddy_put_finish(fd, 10000);
    if (!e.ok()) {
      std::fprintf(stderr, "victim: %s\n", e.what.c_str());
      std::exit(6);
    }
  } else {
    ::close(fd);
  }
  std::fprintf(stderr, "victim: image saved\n");
  scribble();
  ::kill(::getpid(), SIGKILL);
}

// Each frame holds 1 KiB of values that depend on its depth, checked after
// the deepest frame returns (in a restored process: after the resume).
uint64_t descend(int depth) {
  volatile uint64_t local[128];
  for (int i = 0; i < 128; ++i) local[i] = mix(static_cast<uint64_t>(depth) * 131 + static_cast<uint64_t>(i));
  uint64_t below = 0;
  if (depth == kDepth) {
    std::fprintf(g_out, "bottom reached at depth %d\n", depth);
    checkpoint(1);
    std::fprintf(g_out, "after the checkpoint\n");
  } else {
    below = descend(depth + 1);
  }
  for (int i = 0; i < 128; ++i) {
    if (local[i] != mix(static_cast<uint64_t>(depth) * 131 + static_cast<uint64_t>(i))) {
      std::fprintf(stderr, "victim: stack frame at depth %d corrupt\n", depth);
      std::exit(3);
    }
  }
  return mix(below ^ local[depth % 128]);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: ckpt_victim plain OUT | disk DIR OUT | fd N OUT | threads DIR OUT | buddy ADDR:PORT OUT\n");
    return 2;
  }
  // Checkpointed processes run without address randomisation (as the
  // daemon starts transparent ranks); re-exec once to get there.
  if (!(::personality(0xffffffff) & ADDR_NO_RANDOMIZE)) {
    ::personality(ADDR_NO_RANDOMIZE);
    ::execv("/proc/self/exe", argv);
    std::perror("victim: re-exec");
    return 2;
  }
  g_mode = argv[1];
  g_target = argc > 3 ? argv[2] : "";
  const char* out_path = argv[argc - 1];
  g_out = std::fopen(out_path, "w");
  if (!g_out) {
    std::perror(out_path);
    return 2;
  }
  ::signal(SIGUSR1, on_usr1);
  sigset_t block;
  sigemptyset(&block);
  sigaddset(&block, SIGUSR2);
  sigprocmask(SIG_BLOCK, &block, nullptr);
  std::fesetround(FE_DOWNWARD);

  g_blocks = new std::vector<std::vector<uint64_t>>(kBlocks);
  uint64_t seed = 42;
  for (auto& b : *g_blocks) {
    b.resize(kBlockWords);
    for (uint64_t& w : b) w = seed = mix(seed + 1);
  }
  g_grown_words = (2u << 20) / 8;
  g_grown = static_cast<uint64_t*>(std::malloc(g_grown_words * 8));
  for (size_t i = 0; i < g_grown_words; ++i) g_grown[i] = mix(~i);
  if (std::string(g_mode) == "delta") g_delta = new ftmpi::ckpt::DeltaTracker;
  void* scratch = ::mmap(nullptr, 4 * kMiB, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (scratch == MAP_FAILED) return 2;
  g_scratch = static_cast<uint8_t*>(scratch);
  std::memset(g_scratch, 0x77, 4 * kMiB);
  g_nodes = new std::map<int, std::string>;
  for (int i = 0; i < kNodes; ++i) (*g_nodes)[i * 7] = "node-" + std::to_string(static_cast<long long>(i) * i);
  for (size_t i = 0; i < std::size(g_table); ++i) g_table[i] = mix(i);
  std::fprintf(g_out, "%s start digest %016" PRIx64 "\n", g_label, digest());

  uint64_t stack_value = descend(0);

  // Heap changed after image 1, so that image 2 differs from it: written
  // words, a block freed and another allocated (unmapped, mapped anew), a
  // page given back to the kernel (reads as zero), a buffer moved by mremap.
  for (int i = 0; i < kNodes; i += 2) (*g_nodes)[i * 7] += "+";
  (*g_blocks)[3][5] ^= 1;
  (*g_blocks)[7] = std::vector<uint64_t>(kBlockWords, 77);
  {
    auto at = reinterpret_cast<uintptr_t>((*g_blocks)[9].data());
    ::madvise(reinterpret_cast<void*>((at + 8191) & ~uintptr_t{4095}), 4096, MADV_DONTNEED);
  }
  g_grown = static_cast<uint64_t*>(std::realloc(g_grown, 2 * g_grown_words * 8));
  for (size_t i = g_grown_words; i < 2 * g_grown_words; ++i) g_grown[i] = mix(i);
  g_grown_words *= 2;
  checkpoint(2);
  // State that must have come back with the image.
  ::raise(SIGUSR1);
  sigset_t now;
  sigprocmask(SIG_BLOCK, nullptr, &now);
  volatile double third = 1.0;
  third = third / 3.0;
  std::fprintf(g_out, "%s stack %016" PRIx64 " digest %016" PRIx64 " usr1 %d usr2-blocked %d rounding-down %d third %.17g\n",
               g_label, stack_value, digest(), static_cast<int>(g_usr1), sigismember(&now, SIGUSR2),
               std::fegetround() == FE_DOWNWARD, static_cast<double>(third));
  for (int i = 0; i < 1000; ++i) std::fprintf(g_out, "line %d %s\n", i, (*g_nodes)[i * 7].c_str());
  std::fclose(g_out);
  // A relative path resolves in the captured process's working directory.
  if (FILE* rel = std::fopen("victim-relative.txt", "w")) {
    std::fputs("relative\n", rel);
    std::fclose(rel);
  }
  std::printf("victim done%s\n", g_resumed ? " (resumed)" : "");
  return 0;
}
