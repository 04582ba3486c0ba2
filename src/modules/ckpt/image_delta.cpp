#include "modules/ckpt/image_delta.hpp"

#include <fcntl.h>
#include <linux/userfaultfd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>

// Linux 6.7's names; Debian 12's headers predate them.
#ifndef UFFD_FEATURE_WP_ASYNC
#define UFFD_FEATURE_WP_ASYNC (1ull << 15)
#endif

namespace ftmpi::ckpt {
namespace {

constexpr uint64_t kPage = 4096;
constexpr size_t kBatch = 4096;  // pagemap entries read at once
// Smaller regions are written whole every time: registering each would
// cost more than their pages (a process may have hundreds of them).
constexpr uint64_t kMinTracked = 256 * 1024;

bool tracked(const MapsLine& l) {
  const bool anonymous =
      l.inode == 0 && (l.path.empty() || l.path == "[heap]" || l.path.rfind("[anon:", 0) == 0);
  return anonymous && !l.shared && (l.prot & PROT_READ) && (l.prot & PROT_WRITE) &&
         l.end - l.start >= kMinTracked;
}

// Counts the pages of [start, end) that exist, and those of them that still
// carry the write-protect bit.
std::string count(int pagemap_fd, uint64_t start, uint64_t end, uint64_t& exist, uint64_t& kept) {
  uint64_t entries[kBatch];
  for (uint64_t page = start; page < end;) {
    uint64_t n = (end - page) / kPage;
    if (n > kBatch) n = kBatch;
    ssize_t got = ::pread(pagemap_fd, entries, n * 8, static_cast<off_t>(page / kPage * 8));
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0)
      return std::string("cannot read /proc/self/pagemap: ") + std::strerror(got < 0 ? errno : EIO);
    const uint64_t k = static_cast<uint64_t>(got) / 8;
    for (uint64_t i = 0; i < k; ++i, page += kPage) {
      const bool exists = (entries[i] >> 62) != 0;  // present or swapped
      exist += exists ? 1 : 0;
      kept += exists && ((entries[i] >> 57) & 1) ? 1 : 0;
    }
  }
  return "";
}

uint64_t anonymous_resident_pages() {
  const int fd = ::open("/proc/self/statm", O_RDONLY | O_CLOEXEC);
  if (fd < 0) return 0;
  char buf[256];
  const ssize_t n = ::read(fd, buf, sizeof buf - 1);
  ::close(fd);
  if (n <= 0) return 0;
  buf[n] = '\0';
  unsigned long long size = 0, resident = 0, shared = 0;
  if (std::sscanf(buf, "%llu %llu %llu", &size, &resident, &shared) != 3 || shared > resident)
    return 0;
  return resident - shared;
}

}  // namespace

DeltaTracker::~DeltaTracker() {
  close_fd();
}

void DeltaTracker::close_fd() {
  if (uffd_ >= 0) ::close(uffd_);
  uffd_ = -1;
}

bool DeltaTracker::plan_delta(const std::string& base_path) {
  planned_ = false;
  if (uffd_ < 0 || base_number_ == 0 || armed_.empty()) return false;
  const int pm = ::open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC);
  if (pm < 0) return false;
  uint64_t exist = 0, kept = 0;
  std::string e;
  for (const auto& [a, b] : armed_)
    if (e.empty()) e = count(pm, a, b, exist, kept);
  ::close(pm);
  // A whole image holds about the anonymous resident pages (statm: resident
  // less file-backed and shared); a delta those less the kept ones. Memory
  // mapped since the base (a sender log's new chunks) counts against it.
  // At most a quarter: a delta lands in fresh file pages more often than a
  // whole image, which is written over its spare, and a fresh page of shared
  // memory costs several times its copy on the VMs measured (a page the
  // host took back); a delta also keeps its base from being the next spare
  // (docs/benchmarks.md, CG with checkpoints).
  const uint64_t whole = anonymous_resident_pages();
  if (!e.empty() || whole == 0 || (whole - std::min(kept, whole)) * 4 > whole) return false;
  base_path_ = base_path;
  planned_ = true;
  return true;
}

void DeltaTracker::stored(uint64_t number) {
  planned_ = false;
  if (last_whole_ && !armed_.empty()) {
    base_number_ = number;
    base_chain_ = last_chain_;
  }
}

void DeltaTracker::not_stored() {
  planned_ = false;
}

void DeltaTracker::arm(const std::vector<MapsLine>& maps) {
  // Whatever base there was: its pages are no longer told apart from now on.
  armed_.clear();
  base_number_ = 0;
  base_chain_ = 0;
  if (!off_.empty()) return;
  if (uffd_ < 0) {
    // User-mode faults only: what an unprivileged process may open; the
    // kernel's own writes (read() into a protected page) are resolved the
    // same way in asynchronous mode.
    uffd_ =
        static_cast<int>(::syscall(SYS_userfaultfd, O_CLOEXEC | O_NONBLOCK | UFFD_USER_MODE_ONLY));
    if (uffd_ < 0) {
      off_ = std::string("userfaultfd is not available: ") + std::strerror(errno);
      return;
    }
    uffdio_api api{};
    api.api = UFFD_API;
    api.features = UFFD_FEATURE_WP_ASYNC;
    if (::ioctl(uffd_, UFFDIO_API, &api) != 0) {
      off_ = "this kernel has no asynchronous userfaultfd write protection (Linux 6.7)";
      close_fd();
      return;
    }
  }
  for (const MapsLine& l : maps) {
    if (!tracked(l)) continue;
    uffdio_register r{};
    r.range = {l.start, l.end - l.start};
    r.mode = UFFDIO_REGISTER_MODE_WP;
    // Refused for a region the program protects through its own userfaultfd:
    // that one stays untracked and is written whole.
    if (::ioctl(uffd_, UFFDIO_REGISTER, &r) != 0) continue;
    uffdio_writeprotect w{};
    w.range = {l.start, l.end - l.start};
    w.mode = UFFDIO_WRITEPROTECT_MODE_WP;
    if (::ioctl(uffd_, UFFDIO_WRITEPROTECT, &w) != 0) continue;
    armed_.emplace_back(l.start, l.end);
  }
}

void DeltaTracker::captured(uint64_t chain, bool whole) {
  last_chain_ = chain;
  last_whole_ = whole;
}

void DeltaTracker::forget() {
  uffd_ = -1;
  armed_.clear();
  base_number_ = 0;
  base_chain_ = 0;
  planned_ = false;
  last_whole_ = false;
}

}  // namespace ftmpi::ckpt
