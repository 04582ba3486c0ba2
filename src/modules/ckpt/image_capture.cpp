// capture_self, the resumed path, and the load-time hook that starts a
// restore (spec/checkpoint-image.md §2, §4).
#include <asm/prctl.h>
#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#include <cerrno>
#include <csetjmp>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "base/ckpt_image_format.hpp"
#include "modules/ckpt/image.hpp"
#include "modules/ckpt/image_delta.hpp"
#include "modules/ckpt/image_layout.hpp"
#include "modules/ckpt/image_restore_core.hpp"

// Defined only when AddressSanitizer's runtime is in the process (whichever
// part of it was built with -fsanitize=address).
extern "C" int __asan_address_is_poisoned(void const volatile* addr) __attribute__((weak));

namespace ftmpi::ckpt {

jmp_buf g_capture_point;
ResumeInfo g_resume;

namespace {

namespace fmt = ckpt_format;

std::vector<std::string> g_restorer_env;

constexpr uint64_t kPage = 4096;
constexpr uint64_t kChunkMax = 1ull << 20;
constexpr size_t kPagemapBatch = 4096;  // entries read at once (16 MiB of address space)

int count_threads() {
  DIR* d = ::opendir("/proc/self/task");
  if (!d) return -1;
  int n = 0;
  while (struct dirent* e = ::readdir(d))
    if (e->d_name[0] != '.') ++n;
  ::closedir(d);
  return n;
}

// glibc keeps the thread id in its thread descriptor at an offset it does
// not publish; a restored process has a new one. The offset is found by
// looking for our own id near the thread pointer.
int64_t find_tid_offset(uint64_t fs_base) {
  auto tid = static_cast<int32_t>(::syscall(SYS_gettid));
  for (uint64_t off = 0x40; off < 0x1000; off += 4) {
    int32_t v;
    __builtin_memcpy(&v, reinterpret_cast<const void*>(fs_base + off), 4);
    if (v == tid) return static_cast<int64_t>(off);
  }
  return -1;
}

constexpr uint64_t kWriterStack = 1ull << 20;

struct CaptureWork {
  ImageMeta meta;
  std::vector<uint8_t> meta_bytes;
  int pagemap_fd = -1;
  int out_fd = -1;
  // The writer runs on its own stack, left out of the image: the main stack
  // must not change while it is being written.
  uint64_t writer_stack = 0;
  uint64_t chain = 0;  // the trailer's, set once the image is written
  // A delta: the ranges whose pages may be left to the base (those the
  // kernel still shows write-protected when the writer reaches them).
  const PageRuns* armed = nullptr;
  const PageRuns* unused = nullptr;  // capture_self's
};

// This process's mappings as image regions, the writer's stack left out.
std::string list_regions(uint64_t writer_stack, const std::string& leave_out, std::vector<Region>& regions) {
  std::vector<MapsLine> maps;
  std::string e = read_own_maps(maps);
  if (!e.empty()) return e;
  const uint64_t ws0 = writer_stack, ws1 = ws0 + kWriterStack;
  for (const MapsLine& l : maps) {
    if (l.shared && !leave_out.empty() && l.path.rfind(leave_out, 0) == 0) continue;
    Region r;
    e = classify(l, r);
    if (!e.empty()) return e;
    if (r.end <= ws0 || r.start >= ws1) {
      regions.push_back(std::move(r));
      continue;
    }
    // The kernel may have merged the writer's stack with a neighbour.
    if (r.start < ws0) {
      Region below = r;
      below.end = ws0;
      regions.push_back(std::move(below));
    }
    if (r.end > ws1) {
      r.start = ws1;
      regions.push_back(std::move(r));
    }
  }
  return "";
}

std::string prepare(int out_fd, const std::string& leave_out, DeltaTracker* delta, CaptureWork& w) {
  int threads = count_threads();
  if (threads != 1)
    return "the process has " + std::to_string(threads) + " threads; only a single-threaded process can be captured";
  // Its shadow memory (terabytes of address space at fixed places, whose
  // every byte the instrumented code checks) cannot go into an image, and an
  // image without it would not match the restored heap.
  if (&__asan_address_is_poisoned != nullptr)
    return "the process runs under AddressSanitizer, whose shadow memory an image cannot hold";
  ImageMeta& m = w.meta;
  std::string e;
  if (delta && !delta->planned()) {
    // A whole image: protection first, so that every page written from
    // here on (this preparation's included) goes into the next delta.
    std::vector<MapsLine> maps;
    e = read_own_maps(maps);
    if (!e.empty()) return e;
    delta->arm(maps);
  }
  e = exe_identity(m);
  if (!e.empty()) return e;
  m.capture_point = reinterpret_cast<uint64_t>(&g_capture_point);
  m.resume_info = reinterpret_cast<uint64_t>(&g_resume);
  if (::syscall(SYS_arch_prctl, ARCH_GET_FS, &m.fs_base) != 0)
    return std::string("cannot read the thread pointer: ") + std::strerror(errno);
  m.tid_offset = find_tid_offset(m.fs_base);
  uint32_t mxcsr = 0;
  uint16_t cw = 0;
  asm volatile("stmxcsr %0\n\tfnstcw %1" : "=m"(mxcsr), "=m"(cw));
  m.mxcsr = mxcsr;
  m.fpu_cw = cw;
  if (::syscall(SYS_rt_sigprocmask, SIG_BLOCK, nullptr, &m.sigmask, 8) != 0)
    return std::string("cannot read the signal mask: ") + std::strerror(errno);
  for (int sig = 1; sig <= 64; ++sig) {
    KernelSigaction& a = m.sigactions[static_cast<size_t>(sig - 1)];
    if (::syscall(SYS_rt_sigaction, sig, nullptr, &a, 8) != 0) a = KernelSigaction{};
  }
  stack_t ss{};
  if (::sigaltstack(nullptr, &ss) == 0 && !(ss.ss_flags & SS_DISABLE)) {
    m.altstack_sp = reinterpret_cast<uint64_t>(ss.ss_sp);
    m.altstack_size = ss.ss_size;
    m.altstack_flags = ss.ss_flags & ~SS_ONSTACK;
  }
  m.start_brk = own_start_brk();
  if (delta && delta->planned()) {
    m.base_path = delta->base_path();
    m.base_chain = delta->base_chain();
    w.armed = &delta->armed();
  }
  // Opened before the file list is taken, so that it is not in it.
  w.pagemap_fd = ::open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC);
  if (w.pagemap_fd < 0) return std::string("cannot open /proc/self/pagemap: ") + std::strerror(errno);
  // 0, 1 and 2 belong to whoever starts the restorer (the daemon wires a new
  // incarnation's output): they are not part of the image.
  e = own_open_files({0, 1, 2, out_fd, w.pagemap_fd}, leave_out, m.files);
  if (!e.empty()) return e;
  void* ws = ::mmap(nullptr, kWriterStack, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (ws == MAP_FAILED) return std::string("cannot map the writer's stack: ") + std::strerror(errno);
  w.writer_stack = reinterpret_cast<uint64_t>(ws);
  // The program break is read after every allocation of the preparation
  // (reading the maps, building the metadata may move it): a break below
  // heap pages the image holds would leave them unmapped in the restored
  // process, with the allocator believing them its own. If it moved, again.
  for (int attempt = 0;; ++attempt) {
    m.brk = static_cast<uint64_t>(::syscall(SYS_brk, 0));
    m.regions.clear();
    e = list_regions(w.writer_stack, leave_out, m.regions);
    if (!e.empty()) return e;
    w.meta_bytes.clear();  // encode_meta appends
    encode_meta(m, w.meta_bytes);
    if (static_cast<uint64_t>(::syscall(SYS_brk, 0)) == m.brk) return "";
    if (attempt == 3) return "the heap kept moving while the image was being prepared";
  }
}

// ---- writing: nothing below allocates (the heap is being saved) ----

struct Writer {
  int fd;
  const PageRuns* armed;   // a delta's (sorted), else null
  const PageRuns* unused;  // left out, or null
  size_t at = 0;           // the first armed range not below the page being written
  size_t unused_at = 0;    // the same in `unused`
  uint64_t total = 0;
  uint64_t chunks = 0;
  uint64_t chain = 0;
};

// 0 or an errno.
int write_iov(int fd, struct iovec* iov, int cnt) {
  while (cnt > 0) {
    ssize_t n = ::writev(fd, iov, cnt);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return errno;
    if (n == 0) return EPIPE;
    auto left = static_cast<size_t>(n);
    while (cnt > 0 && left >= iov->iov_len) {
      left -= iov->iov_len;
      ++iov;
      --cnt;
    }
    if (cnt > 0) {
      iov->iov_base = static_cast<char*>(iov->iov_base) + left;
      iov->iov_len -= left;
    }
  }
  return 0;
}

int write_chunk(Writer& w, uint64_t addr, uint64_t len) {
  uint64_t head[2] = {addr, len};
  uint64_t h = fmt::hash(reinterpret_cast<const void*>(addr), len, addr ^ len);
  struct iovec iov[3] = {{head, sizeof head}, {reinterpret_cast<void*>(addr), len}, {&h, sizeof h}};
  int err = write_iov(w.fd, iov, 3);
  if (err) return err;
  w.chain = fmt::chain(w.chain, h);
  ++w.chunks;
  w.total += fmt::kChunkHeadBytes + len + fmt::kChunkTailBytes;
  return 0;
}

int write_range(Writer& w, uint64_t start, uint64_t end) {
  for (uint64_t a = start; a < end; a += kChunkMax) {
    int err = write_chunk(w, a, end - a < kChunkMax ? end - a : kChunkMax);
    if (err) return err;
  }
  return 0;
}

// A run of pages the base holds as they are: a chunk without data.
int write_base_run(Writer& w, uint64_t start, uint64_t end) {
  uint64_t head[2] = {start, (end - start) | fmt::kBaseRun};
  uint64_t h = fmt::hash(head, sizeof head, head[0] ^ head[1]);
  struct iovec iov[2] = {{head, sizeof head}, {&h, sizeof h}};
  int err = write_iov(w.fd, iov, 2);
  if (err) return err;
  w.chain = fmt::chain(w.chain, h);
  ++w.chunks;
  w.total += fmt::kChunkHeadBytes + fmt::kChunkTailBytes;
  return 0;
}

// Pages increase from call to call (regions in address order): one cursor.
bool in_runs(const PageRuns* runs, size_t& at, uint64_t page) {
  if (!runs) return false;
  while (at < runs->size() && (*runs)[at].second <= page) ++at;
  return at < runs->size() && (*runs)[at].first <= page;
}

// A page is left to a delta's base when it exists and still carries the
// write-protect bit the tracker set before the base was written: nothing
// wrote it since. Decided here, as the page is reached, so that no write of
// the preparation can slip in between.
bool left_to_base(Writer& w, uint64_t page, uint64_t entry) {
  return in_runs(w.armed, w.at, page) && (entry >> 62) != 0 && ((entry >> 57) & 1);
}

// Anonymous memory: only pages that exist (present or swapped); the others
// read as zero in a fresh mapping. A file's private copy is written whole:
// its untouched pages are the file's, which a fresh mapping would not have.
// A delta leaves the pages its base holds as they are to the base. Pages the
// caller named unused are left out before either test: the base may not
// hold them (they were unused then too), and a base run must be covered.
int write_region(Writer& w, const Region& r, int pagemap_fd) {
  if (r.file_backed()) return write_range(w, r.start, r.end);
  const bool may_leave = r.kind == RegionKind::kData || r.kind == RegionKind::kHeap;
  uint64_t entries[kPagemapBatch];
  uint64_t run_start = 0;
  enum : uint8_t { kNone, kHere, kBase } run = kNone;
  auto flush = [&](uint64_t end) {
    if (run == kHere) return write_range(w, run_start, end);
    return run == kBase ? write_base_run(w, run_start, end) : 0;
  };
  for (uint64_t page = r.start; page < r.end;) {
    uint64_t n = (r.end - page) / kPage;
    if (n > kPagemapBatch) n = kPagemapBatch;
    ssize_t got = ::pread(pagemap_fd, entries, n * 8, static_cast<off_t>(page / kPage * 8));
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) return got < 0 ? errno : EIO;
    uint64_t k = static_cast<uint64_t>(got) / 8;
    for (uint64_t i = 0; i < k; ++i, page += kPage) {
      const bool exists = (entries[i] >> 62) != 0 && !in_runs(w.unused, w.unused_at, page);  // 63 present, 62 swapped
      const auto kind = !exists ? kNone : may_leave && left_to_base(w, page, entries[i]) ? kBase : kHere;
      if (kind == run) continue;
      if (int err = flush(page)) return err;
      run = kind;
      run_start = page;
    }
  }
  return flush(r.end);
}

int write_image(CaptureWork& work) {
  int fd = work.out_fd;
  Writer w{fd, work.armed, work.unused};
  uint8_t header[fmt::kHeaderBytes];
  fmt::Header h;
  h.meta_bytes = work.meta_bytes.size();
  h.meta_hash = fmt::hash(work.meta_bytes.data(), work.meta_bytes.size(), 0);
  fmt::encode_header(h, header);
  uint64_t header_hash;
  __builtin_memcpy(&header_hash, header + 40, 8);
  w.chain = fmt::chain(fmt::chain(0, header_hash), h.meta_hash);
  struct iovec iov[2] = {{header, sizeof header},
                         {const_cast<uint8_t*>(work.meta_bytes.data()), work.meta_bytes.size()}};
  int err = write_iov(fd, iov, 2);
  if (err) return err;
  w.total = sizeof header + work.meta_bytes.size();
  for (const Region& r : work.meta.regions) {
    if (r.kind != RegionKind::kData && r.kind != RegionKind::kHeap && r.kind != RegionKind::kStack) continue;
    if (!(r.prot & PROT_READ)) continue;
    err = write_region(w, r, work.pagemap_fd);
    if (err) return err;
  }
  fmt::Trailer t;
  t.total_bytes = w.total + fmt::kTrailerBytes;
  t.chunks = w.chunks;
  t.chain = w.chain;
  uint8_t trailer[fmt::kTrailerBytes];
  fmt::encode_trailer(t, trailer);
  struct iovec tv[1] = {{trailer, sizeof trailer}};
  err = write_iov(fd, tv, 1);
  if (!err) work.chain = w.chain;  // the image is whole: its frames may change
  return err;
}

int write_image_entry(void* work) { return write_image(*static_cast<CaptureWork*>(work)); }

// Calls fn(arg) with the stack pointer at `top`, back on this stack after.
int call_on_stack(uint64_t top, int (*fn)(void*), void* arg) {
  int ret;
  asm volatile(
      "mov %%rsp, %%rbx\n\t"
      "mov %[top], %%rsp\n\t"
      "call *%[fn]\n\t"
      "mov %%rbx, %%rsp"
      : "=a"(ret), "+D"(arg)
      : [top] "r"(top), [fn] "r"(fn)
      : "rbx", "rcx", "rdx", "rsi", "r8", "r9", "r10", "r11", "memory", "cc", "xmm0", "xmm1", "xmm2", "xmm3", "xmm4",
        "xmm5", "xmm6", "xmm7", "xmm8", "xmm9", "xmm10", "xmm11", "xmm12", "xmm13", "xmm14", "xmm15", "st", "st(1)",
        "st(2)", "st(3)", "st(4)", "st(5)", "st(6)", "st(7)");
  return ret;
}

Captured finish_resume() {
  const auto* env = reinterpret_cast<const char*>(g_resume.env);
  g_restorer_env.clear();
  for (uint64_t i = 0; i < g_resume.env_len;) {
    size_t n = ::strnlen(env + i, g_resume.env_len - i);
    g_restorer_env.emplace_back(env + i, n);
    i += n + 1;
  }
  ::munmap(reinterpret_cast<void*>(g_resume.scratch), g_resume.scratch_len);
  g_resume = ResumeInfo{};
  return Captured::kResumed;
}

// A number: an inherited descriptor; anything else: a path.
__attribute__((constructor)) void restore_hook() {
  const char* v = std::getenv(kRestoreEnv);
  if (!v || !*v) return;
  int fd = -1;
  char* end = nullptr;
  long n = std::strtol(v, &end, 10);
  std::string why;
  if (*end == '\0' && n >= 0 && n < 1 << 30) {
    fd = static_cast<int>(n);
  } else {
    fd = ::open(v, O_RDONLY | O_CLOEXEC);
    if (fd < 0) why = std::strerror(errno);
  }
  if (why.empty()) why = restore_from(fd).what;
  std::fprintf(stderr, "ftmpi: cannot restore checkpoint image %s: %s\n", v, why.c_str());
  std::fflush(stderr);
  ::_exit(kRestoreFailedExit);
}

}  // namespace

Result<Captured> capture_self(int out_fd, const std::string& leave_out, DeltaTracker* delta, const PageRuns* unused) {
  CaptureWork work;
  work.out_fd = out_fd;
  work.unused = unused;
  std::string e = prepare(out_fd, leave_out, delta, work);
  if (!e.empty()) {
    if (work.pagemap_fd >= 0) ::close(work.pagemap_fd);
    if (work.writer_stack) ::munmap(reinterpret_cast<void*>(work.writer_stack), kWriterStack);
    return Error{"capture_self: " + e};
  }
  // From here to the end of the image: no allocation, no change to `work`
  // nor to this frame.
  if (setjmp(g_capture_point) != 0) {
    if (delta) delta->forget();
    return finish_resume();
  }
  int err = call_on_stack(work.writer_stack + kWriterStack, write_image_entry, &work);
  ::close(work.pagemap_fd);
  ::munmap(reinterpret_cast<void*>(work.writer_stack), kWriterStack);
  if (err) return Error{std::string("capture_self: writing the image failed: ") + std::strerror(err)};
  if (delta) delta->captured(work.chain, !work.armed);
  return Captured::kSaved;
}

const std::vector<std::string>& restorer_environment() { return g_restorer_env; }

}  // namespace ftmpi::ckpt
