// restore_from: loads and checks an image, compares its layout with this
// process, and turns it into the operation list the core executes
// (spec/checkpoint-image.md §4). Everything that can refuse happens here,
// before the process is changed.
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/personality.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <asm/prctl.h>

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstring>

#include "base/ckpt_image_format.hpp"
#include "modules/ckpt/image.hpp"
#include "modules/ckpt/image_delta.hpp"
#include "modules/ckpt/image_layout.hpp"
#include "modules/ckpt/image_restore_core.hpp"

extern char** environ;

namespace ftmpi::ckpt {
namespace {

namespace fmt = ckpt_format;

constexpr uint64_t kPage = 4096;
constexpr uint64_t kCoreStack = 256 * 1024;
inline uint64_t page_up(uint64_t v) { return (v + kPage - 1) & ~(kPage - 1); }

std::string range(uint64_t a, uint64_t b) { return hex(a) + "-" + hex(b); }
std::string name_of(const std::string& path) { return path.empty() ? "(anonymous)" : path; }

bool overlaps(uint64_t a0, uint64_t a1, uint64_t b0, uint64_t b1) { return a0 < b1 && b0 < a1; }

bool read_exact(int fd, void* p, size_t n, uint64_t& got) {
  auto* c = static_cast<uint8_t*>(p);
  size_t done = 0;
  while (done < n) {
    ssize_t r = ::read(fd, c + done, n - done);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) break;
    done += static_cast<size_t>(r);
  }
  got = done;
  return done == n;
}

struct Plan {
  ImageMeta meta;
  std::vector<MapsLine> own;
  uint64_t image_addr = 0, image_len = 0;  // where the image is readable now
  uint64_t base_addr = 0, base_len = 0;    // an incremental image's base, mapped
  std::vector<Op> ops;
  std::vector<std::pair<uint64_t, uint64_t>> taken;  // ranges reserved for the restore itself
  std::vector<uint8_t> keep;                           // by own mapping: an identical file mapping stays
  size_t unmap_at = 0;
};

// A hole for `len` bytes outside the image's regions and this process's
// mappings (the restore's own areas must survive it).
uint64_t pick_free(const Plan& p, uint64_t len) {
  for (uint64_t cand = 0x200000000000ull; cand < 0x700000000000ull; cand += 0x10000000000ull) {
    bool clash = false;
    for (const Region& r : p.meta.regions) clash |= overlaps(cand, cand + len, r.start, r.end);
    for (const MapsLine& l : p.own) clash |= overlaps(cand, cand + len, l.start, l.end);
    for (auto& t : p.taken) clash |= overlaps(cand, cand + len, t.first, t.second);
    if (!clash) return cand;
  }
  return 0;
}

std::string load_image(int fd, Plan& p) {
  struct stat st;
  if (::fstat(fd, &st) != 0) return std::string("cannot stat the image descriptor: ") + std::strerror(errno);
  bool file = S_ISREG(st.st_mode);
  uint8_t hb[fmt::kHeaderBytes];
  uint64_t got = 0;
  if (file ? ::pread(fd, hb, sizeof hb, 0) != static_cast<ssize_t>(sizeof hb) : !read_exact(fd, hb, sizeof hb, got))
    return "image is torn: it ends inside its header";
  fmt::Header h;
  std::string e = fmt::decode_header(hb, h);
  if (!e.empty()) return e;
  std::vector<uint8_t> meta(h.meta_bytes);
  if (file ? ::pread(fd, meta.data(), meta.size(), sizeof hb) != static_cast<ssize_t>(meta.size())
           : !read_exact(fd, meta.data(), meta.size(), got))
    return "image is torn: it ends inside its metadata";
  if (fmt::hash(meta.data(), meta.size(), 0) != h.meta_hash) return "image metadata is corrupt (hash mismatch)";
  e = decode_meta(meta.data(), meta.size(), p.meta);
  if (!e.empty()) return e;
  e = read_own_maps(p.own);
  if (!e.empty()) return e;

  uint64_t prefix = sizeof hb + meta.size();
  if (file) {
    p.image_len = page_up(static_cast<uint64_t>(st.st_size));
  } else {
    // Bound: every saved page in a chunk of its own.
    uint64_t bound = prefix + fmt::kTrailerBytes;
    for (const Region& r : p.meta.regions) {
      if (r.kind == RegionKind::kData || r.kind == RegionKind::kHeap || r.kind == RegionKind::kStack)
        bound += (r.end - r.start) + (r.end - r.start) / kPage * (fmt::kChunkHeadBytes + fmt::kChunkTailBytes);
    }
    p.image_len = page_up(bound);
  }
  uint64_t at = pick_free(p, p.image_len);
  if (at == 0) return "no free address range for the image outside its own regions";
  void* m = file ? ::mmap(reinterpret_cast<void*>(at), p.image_len, PROT_READ,
                          MAP_PRIVATE | MAP_FIXED_NOREPLACE | MAP_POPULATE, fd, 0)
                 : ::mmap(reinterpret_cast<void*>(at), p.image_len, PROT_READ | PROT_WRITE,
                          MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED_NOREPLACE, -1, 0);
  if (m != reinterpret_cast<void*>(at)) return std::string("cannot map the image: ") + std::strerror(errno);
  p.image_addr = at;
  p.taken.emplace_back(at, at + p.image_len);
  auto* base = reinterpret_cast<uint8_t*>(at);
  fmt::Scanner scan;
  uint64_t have;
  if (file) {
    have = static_cast<uint64_t>(st.st_size);
    scan.scan(base, have);
  } else {
    std::memcpy(base, hb, sizeof hb);
    std::memcpy(base + sizeof hb, meta.data(), meta.size());
    have = prefix;
    while (scan.scan(base, have) == fmt::Scanner::State::kMore) {
      if (have == p.image_len) return "image is larger than its regions allow (corrupt)";
      ssize_t r = ::read(fd, base + have, std::min<uint64_t>(p.image_len - have, 8u << 20));
      if (r < 0 && errno == EINTR) continue;
      if (r < 0) return std::string("cannot read the image: ") + std::strerror(errno);
      if (r == 0) break;
      have += static_cast<uint64_t>(r);
    }
  }
  if (scan.state() == fmt::Scanner::State::kInvalid) return scan.error();
  if (scan.state() != fmt::Scanner::State::kComplete)
    return "image is torn: the stream ended after " + std::to_string(have) + " bytes, before its trailer";
  if (file && scan.total_bytes() != have) return "image file has bytes after its trailer";
  ::close(fd);
  return "";
}

// An incremental image's base: a whole image file, the one the image names
// (its trailer's chain), of the same executable; mapped beside the image.
std::string load_base(Plan& p) {
  const std::string& path = p.meta.base_path;
  const std::string what = "the image's base " + path;
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return "cannot open " + what + ": " + std::strerror(errno);
  struct stat st;
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size < static_cast<off_t>(fmt::kHeaderBytes)) {
    ::close(fd);
    return what + " is not a whole image file";
  }
  p.base_len = page_up(static_cast<uint64_t>(st.st_size));
  uint64_t at = pick_free(p, p.base_len);
  void* m = at == 0 ? MAP_FAILED
                    : ::mmap(reinterpret_cast<void*>(at), p.base_len, PROT_READ,
                             MAP_PRIVATE | MAP_FIXED_NOREPLACE | MAP_POPULATE, fd, 0);
  ::close(fd);
  if (m != reinterpret_cast<void*>(at)) return "cannot map " + what;
  p.base_addr = at;
  p.taken.emplace_back(at, at + p.base_len);
  const auto* base = reinterpret_cast<const uint8_t*>(at);
  fmt::Scanner scan;
  if (scan.scan(base, static_cast<uint64_t>(st.st_size)) != fmt::Scanner::State::kComplete)
    return what + " is not a whole image: " + (scan.error().empty() ? "it is torn" : scan.error());
  if (scan.final_chain() != p.meta.base_chain)
    return what + " is not the image it was taken on (another image has its name)";
  ImageMeta bm;
  std::string e = decode_meta(base + fmt::kHeaderBytes, scan.header().meta_bytes, bm);
  if (!e.empty()) return what + ": " + e;
  if (!bm.base_path.empty()) return what + " is itself incremental";
  if (bm.exe_dev != p.meta.exe_dev || bm.exe_inode != p.meta.exe_inode || bm.exe_mtime_ns != p.meta.exe_mtime_ns)
    return what + " was taken from another executable";
  return "";
}

std::string check_identity(const Plan& p) {
  ImageMeta self;
  std::string e = exe_identity(self);
  if (!e.empty()) return e;
  const ImageMeta& m = p.meta;
  if (self.exe_dev != m.exe_dev || self.exe_inode != m.exe_inode)
    return "the image was taken from " + m.exe_path + ", this process runs " + self.exe_path;
  if (self.exe_size != m.exe_size || self.exe_mtime_ns != m.exe_mtime_ns)
    return "the executable " + m.exe_path + " changed since the image was taken";
  int pers = ::personality(0xffffffff);
  if (pers == -1 || !(pers & ADDR_NO_RANDOMIZE))
    return "address randomisation is on in this process (start it with personality ADDR_NO_RANDOMIZE)";
  uint64_t start_brk = own_start_brk();
  if (start_brk != m.start_brk)
    return "the heap starts at " + hex(start_brk) + " here, at " + hex(m.start_brk) + " in the image";
  uint64_t fs = 0;
  ::syscall(SYS_arch_prctl, ARCH_GET_FS, &fs);
  if (fs != m.fs_base)
    return "the thread pointer is " + hex(fs) + " here, " + hex(m.fs_base) +
           " in the image (libraries loaded differently)";
  return "";
}

// Own mappings that are the same object as an image region.
bool same_mapping(const MapsLine& l, const Region& r) {
  return l.start == r.start && l.end == r.end && l.inode == r.inode && l.offset == r.offset && l.path == r.path &&
         l.shared == r.shared;
}

bool own_is_plain_anon(const MapsLine& l) {
  return l.inode == 0 && !l.shared && (l.path.empty() || l.path == "[heap]" || l.path == "[stack]" ||
                                       l.path.rfind("[anon:", 0) == 0);
}

std::string plan_layout(Plan& p) {
  const ImageMeta& m = p.meta;
  std::vector<Op>& ops = p.ops;
  // Kernel-provided mappings must be where the image expects them.
  for (const Region& r : m.regions) {
    if (r.kind != RegionKind::kKernel) continue;
    bool found = false;
    for (const MapsLine& l : p.own) found |= l.path == r.path && l.start == r.start && l.end == r.end;
    if (!found) return "the image has " + r.path + " at " + range(r.start, r.end) + ", this process does not";
  }
  for (const MapsLine& l : p.own) {
    if (l.path.empty() || l.path[0] != '[' || l.path == "[heap]" || l.path == "[stack]" || l.path.rfind("[anon:", 0) == 0)
      continue;
    bool found = false;
    for (const Region& r : m.regions) found |= l.path == r.path && l.start == r.start && l.end == r.end;
    if (!found) return "this process has " + l.path + " at " + range(l.start, l.end) + ", the image does not";
  }
  const Region* stack = nullptr;
  for (const Region& r : m.regions)
    if (r.kind == RegionKind::kStack) stack = &r;
  const MapsLine* own_stack = nullptr;
  for (const MapsLine& l : p.own)
    if (l.path == "[stack]") own_stack = &l;
  if (!stack || !own_stack || stack->end != own_stack->end)
    return "the main stack ends at a different address here (address randomisation?)";

  // Every image region against what this process has there.
  std::vector<uint8_t>& keep = p.keep;
  keep.assign(p.own.size(), 0);
  for (const Region& r : m.regions) {
    if (r.kind == RegionKind::kKernel) continue;
    for (size_t i = 0; i < p.own.size(); ++i) {
      const MapsLine& l = p.own[i];
      if (!overlaps(r.start, r.end, l.start, l.end)) continue;
      // An identical file mapping stays; an anonymous one is replaced even
      // when identical, so that pages the image does not hold read as zero.
      if (r.file_backed() && same_mapping(l, r) && (r.kind == RegionKind::kFileView || r.kind == RegionKind::kData)) {
        keep[i] = r.kind == RegionKind::kFileView ? 1 : 2;
        continue;
      }
      if (own_is_plain_anon(l)) continue;  // replaced
      return "the image has " + name_of(r.path) + " at " + range(r.start, r.end) + ", this process has " +
             name_of(l.path) + " at " + range(l.start, l.end);
    }
  }
  // No signal handler of this process may run while its memory is replaced.
  ops.push_back({OpCode::kSigmask, -1, ~0ull, 0, 0, 0, 0});
  // The heap: dropped whole, then re-grown, so pages the image does not hold read as zero.
  ops.push_back({OpCode::kBrk, -1, m.start_brk, 0, 0, 0, 0});
  if (m.brk != m.start_brk) ops.push_back({OpCode::kBrk, -1, m.brk, 0, 0, 0, 0});
  p.unmap_at = ops.size();  // plan_unmaps inserts here, last of all
  // Image regions into place.
  for (const Region& r : m.regions) {
    bool kept = false;
    for (size_t i = 0; i < p.own.size(); ++i) kept |= keep[i] && same_mapping(p.own[i], r);
    uint64_t len = r.end - r.start;
    switch (r.kind) {
      case RegionKind::kKernel:
      case RegionKind::kHeap:
        break;
      case RegionKind::kFileView:
        if (!kept) {
          int fd = ::open(r.path.c_str(), O_RDONLY | O_CLOEXEC);
          struct stat st;
          if (fd < 0 || ::fstat(fd, &st) != 0 || st.st_ino != r.inode) {
            if (fd >= 0) ::close(fd);
            return "the image maps " + r.path + " at " + range(r.start, r.end) + ", which cannot be mapped again here";
          }
          ops.push_back({OpCode::kMapFile, fd, r.start, len, r.prot, r.offset,
                         static_cast<uint64_t>(r.shared ? MAP_SHARED : MAP_PRIVATE)});
          ops.push_back({OpCode::kClose, fd, 0, 0, 0, 0, 0});
        }
        break;
      case RegionKind::kReserved:
        ops.push_back({OpCode::kMapAnon, -1, r.start, len, PROT_NONE, 0, 0});
        break;
      case RegionKind::kData:
        if (kept)
          ops.push_back({OpCode::kProtect, -1, r.start, len, PROT_READ | PROT_WRITE, 0, 0});
        else
          ops.push_back({OpCode::kMapAnon, -1, r.start, len, PROT_READ | PROT_WRITE, 0, 0});
        break;
      case RegionKind::kStack:
        // The stack grows down to the image's extent, then forgets its
        // contents: pages the image does not hold were never touched.
        ops.push_back({OpCode::kTouch, -1, r.start, 0, 0, 0, 0});
        ops.push_back({OpCode::kProtect, -1, r.start, len, PROT_READ | PROT_WRITE, 0, 0});
        break;
    }
  }
  return "";
}

// What this process has and the image does not goes away (not the heap, the
// kernel's mappings, nor the restore's own areas). Computed last, from the
// mappings as they are now: planning itself may have mapped memory.
std::string plan_unmaps(Plan& p) {
  std::vector<MapsLine> now;
  std::string e = read_own_maps(now);
  if (!e.empty()) return e;
  const ImageMeta& m = p.meta;
  std::vector<Op> unmaps;
  for (const MapsLine& l : now) {
    bool kept = false;
    for (size_t i = 0; i < p.own.size(); ++i) {
      const MapsLine& o = p.own[i];
      kept |= p.keep[i] && o.start == l.start && o.end == l.end && o.inode == l.inode;
    }
    if (kept || l.path == "[heap]" || (!l.path.empty() && l.path[0] == '[' && l.path != "[stack]" &&
                                       l.path.rfind("[anon:", 0) != 0))
      continue;
    bool restore_area = false;
    for (auto& t : p.taken) restore_area |= overlaps(l.start, l.end, t.first, t.second);
    if (restore_area) continue;
    // The parts of l no image region covers.
    uint64_t cur = l.start;
    std::vector<std::pair<uint64_t, uint64_t>> cover;
    for (const Region& r : m.regions)
      if (overlaps(r.start, r.end, l.start, l.end)) cover.emplace_back(std::max(r.start, l.start), std::min(r.end, l.end));
    std::sort(cover.begin(), cover.end());
    for (auto& c : cover) {
      if (c.first > cur) unmaps.push_back({OpCode::kUnmap, -1, cur, c.first - cur, 0, 0, 0});
      cur = std::max(cur, c.second);
    }
    if (cur < l.end) unmaps.push_back({OpCode::kUnmap, -1, cur, l.end - cur, 0, 0, 0});
  }
  p.ops.insert(p.ops.begin() + static_cast<long>(p.unmap_at), unmaps.begin(), unmaps.end());
  return "";
}

// The pages an incremental image leaves to its base (its base runs, in
// address order): copied from the base's chunks, which must hold every one.
std::string plan_base_copies(Plan& p, const PageRuns& runs) {
  if (runs.empty()) return "";
  if (!p.base_addr) return "the image has base runs but names no base";
  const auto* base = reinterpret_cast<const uint8_t*>(p.base_addr);
  fmt::Header h;
  fmt::decode_header(base, h);
  uint64_t pos = fmt::kHeaderBytes + h.meta_bytes;
  uint64_t wanted = 0, copied = 0;
  for (const auto& [a, b] : runs) wanted += b - a;
  size_t run = 0;
  for (;;) {
    uint64_t addr, len;
    __builtin_memcpy(&addr, base + pos, 8);
    if (addr == fmt::kEndWord) break;
    __builtin_memcpy(&len, base + pos + 8, 8);
    if (len & fmt::kBaseRun) return "the image's base " + p.meta.base_path + " is itself incremental";
    const uint64_t data = p.base_addr + pos + fmt::kChunkHeadBytes;
    while (run < runs.size() && runs[run].second <= addr) ++run;
    for (size_t i = run; i < runs.size() && runs[i].first < addr + len; ++i) {
      const uint64_t s = std::max(runs[i].first, addr), e = std::min(runs[i].second, addr + len);
      if (s >= e) continue;
      p.ops.push_back({OpCode::kCopy, -1, s, data + (s - addr), e - s, 0, 0});
      copied += e - s;
    }
    pos += fmt::kChunkHeadBytes + len + fmt::kChunkTailBytes;
  }
  if (copied != wanted)
    return "the image's base holds " + std::to_string(copied / kPage) + " of the " + std::to_string(wanted / kPage) +
           " pages the image takes from it";
  return "";
}

std::string plan_contents(Plan& p) {
  // Chunks: each inside one saved region.
  auto* base = reinterpret_cast<const uint8_t*>(p.image_addr);
  fmt::Header h;
  fmt::decode_header(base, h);
  uint64_t pos = fmt::kHeaderBytes + h.meta_bytes;
  PageRuns from_base;
  for (;;) {
    uint64_t addr, len;
    __builtin_memcpy(&addr, base + pos, 8);
    if (addr == fmt::kEndWord) break;
    __builtin_memcpy(&len, base + pos + 8, 8);
    const bool base_run = (len & fmt::kBaseRun) != 0;
    len &= ~fmt::kBaseRun;
    // Base runs only in anonymous data or heap (where the writer leaves pages to the base).
    bool inside = false;
    for (const Region& r : p.meta.regions) {
      const bool saved = r.kind == RegionKind::kData || r.kind == RegionKind::kHeap || r.kind == RegionKind::kStack;
      const bool may_leave = (r.kind == RegionKind::kData || r.kind == RegionKind::kHeap) && !r.file_backed();
      inside |= (base_run ? may_leave : saved) && addr >= r.start && addr + len <= r.end;
    }
    if (!inside) return "image chunk at " + hex(addr) + " lies outside the image's saved regions";
    if (base_run) {
      if (!from_base.empty() && from_base.back().second > addr) return "image base runs are out of order (corrupt)";
      from_base.emplace_back(addr, addr + len);
      pos += fmt::kChunkHeadBytes + fmt::kChunkTailBytes;
      continue;
    }
    p.ops.push_back({OpCode::kCopy, -1, addr, p.image_addr + pos + fmt::kChunkHeadBytes, len, 0, 0});
    pos += fmt::kChunkHeadBytes + len + fmt::kChunkTailBytes;
  }
  // Stack pages without a chunk were never touched by the captured process:
  // zero them (madvise keeps the stack one growable mapping), not leave what
  // this process had there.
  std::vector<Op> discard;
  for (const Region& r : p.meta.regions) {
    if (r.kind != RegionKind::kStack) continue;
    std::vector<std::pair<uint64_t, uint64_t>> held;
    for (const Op& op : p.ops)
      if (op.code == OpCode::kCopy && op.a >= r.start && op.a < r.end) held.emplace_back(op.a, op.a + op.c);
    std::sort(held.begin(), held.end());
    uint64_t cur = r.start;
    for (auto& c : held) {
      if (c.first > cur) discard.push_back({OpCode::kDiscard, -1, cur, c.first - cur, 0, 0, 0});
      cur = std::max(cur, c.second);
    }
    if (cur < r.end) discard.push_back({OpCode::kDiscard, -1, cur, r.end - cur, 0, 0, 0});
  }
  auto first_copy = std::find_if(p.ops.begin(), p.ops.end(), [](const Op& o) { return o.code == OpCode::kCopy; });
  p.ops.insert(first_copy, discard.begin(), discard.end());
  std::string e = plan_base_copies(p, from_base);
  if (!e.empty()) return e;
  for (const Region& r : p.meta.regions) {
    bool saved = r.kind == RegionKind::kData || r.kind == RegionKind::kHeap || r.kind == RegionKind::kStack;
    if (saved && r.prot != (PROT_READ | PROT_WRITE))
      p.ops.push_back({OpCode::kProtect, -1, r.start, r.end - r.start, r.prot, 0, 0});
  }
  // The image's own areas are not needed once copied.
  p.ops.push_back({OpCode::kUnmap, -1, p.image_addr, p.image_len, 0, 0, 0});
  if (p.base_addr) p.ops.push_back({OpCode::kUnmap, -1, p.base_addr, p.base_len, 0, 0, 0});
  return "";
}

std::string plan_files(Plan& p) {
  // The last step that can refuse: nothing else changes the process before the core.
  if (::chdir(p.meta.cwd.c_str()) != 0)
    return "cannot enter the working directory " + p.meta.cwd + ": " + std::strerror(errno);
  int high = 1024;
  for (const OpenFile& f : p.meta.files) high = std::max(high, f.fd + 1);
  for (const OpenFile& f : p.meta.files) {
    int keep = O_ACCMODE | O_APPEND | O_NONBLOCK | O_DIRECT | O_NOATIME | O_SYNC | O_DSYNC;
    int fd = ::open(f.path.c_str(), (f.status_flags & keep) | O_CLOEXEC);
    if (fd < 0)
      return "cannot reopen " + f.path + " (descriptor " + std::to_string(f.fd) + "): " + std::strerror(errno);
    if (::lseek(fd, static_cast<off_t>(f.offset), SEEK_SET) != static_cast<off_t>(f.offset)) {
      ::close(fd);
      return "cannot seek " + f.path + " to offset " + std::to_string(f.offset);
    }
    int moved = ::fcntl(fd, F_DUPFD_CLOEXEC, high);
    ::close(fd);
    if (moved < 0) return std::string("no descriptor free for a reopened file: ") + std::strerror(errno);
    p.ops.push_back({OpCode::kDup, moved, 0, 0, (f.fd_flags & FD_CLOEXEC) ? 1u : 0u, 0, static_cast<uint64_t>(f.fd)});
  }
  return "";
}

}  // namespace

Error restore_from(int in_fd) {
  Plan p;
  std::string e = load_image(in_fd, p);
  if (e.empty() && !p.meta.base_path.empty()) e = load_base(p);
  if (e.empty()) e = check_identity(p);
  if (e.empty()) e = plan_layout(p);
  if (e.empty()) e = plan_contents(p);
  if (e.empty()) e = plan_files(p);
  if (!e.empty()) return Error{e};
  const ImageMeta& m = p.meta;

  // The work area: the core's stack, the operations, the data they point to,
  // and the restorer's environment for the resumed process.
  std::string env;
  for (char** v = environ; v && *v; ++v) {
    env += *v;
    env.push_back('\0');
  }
  // Room for the unmaps (at most a few per mapping) and the signal operations.
  size_t n_ops_max = p.ops.size() + 4 * (p.own.size() + 64) + 70;
  uint64_t data_off = kCoreStack + n_ops_max * sizeof(Op);
  uint64_t env_off = data_off + 65 * sizeof(KernelSigaction) + sizeof(stack_t) + 64;
  uint64_t work_len = page_up(env_off + env.size() + 1);
  uint64_t work = pick_free(p, work_len);
  if (work == 0 || ::mmap(reinterpret_cast<void*>(work), work_len, PROT_READ | PROT_WRITE,
                          MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0) != reinterpret_cast<void*>(work))
    return Error{"cannot map the restore's work area"};
  p.taken.emplace_back(work, work + work_len);
  auto* base = reinterpret_cast<uint8_t*>(work);
  auto* acts = reinterpret_cast<KernelSigaction*>(base + data_off);
  for (int sig = 1; sig <= 64; ++sig) {
    if (sig == SIGKILL || sig == SIGSTOP) continue;
    acts[sig] = m.sigactions[static_cast<size_t>(sig - 1)];
    p.ops.push_back({OpCode::kSigaction, -1, reinterpret_cast<uint64_t>(&acts[sig]), 0, 0, 0, static_cast<uint64_t>(sig)});
  }
  auto* ss = reinterpret_cast<stack_t*>(base + data_off + 65 * sizeof(KernelSigaction));
  ss->ss_sp = reinterpret_cast<void*>(m.altstack_sp);
  ss->ss_size = m.altstack_size;
  ss->ss_flags = m.altstack_sp ? m.altstack_flags : SS_DISABLE;
  p.ops.push_back({OpCode::kSigaltstack, -1, reinterpret_cast<uint64_t>(ss), 0, 0, 0, 0});
  p.ops.push_back({OpCode::kSetFs, -1, m.fs_base, 0, 0, 0, 0});
  if (m.tid_offset >= 0) p.ops.push_back({OpCode::kSetTid, -1, m.fs_base + static_cast<uint64_t>(m.tid_offset), 0, 0, 0, 0});
  p.ops.push_back({OpCode::kFpu, -1, m.mxcsr, m.fpu_cw, 0, 0, 0});
  p.ops.push_back({OpCode::kSigmask, -1, m.sigmask, 0, 0, 0, 0});
  e = plan_unmaps(p);
  if (!e.empty() || p.ops.size() > n_ops_max) {
    ::munmap(reinterpret_cast<void*>(work), work_len);
    return Error{e.empty() ? "too many mappings to restore" : e};
  }
  auto* ops = reinterpret_cast<Op*>(base + kCoreStack);
  std::copy(p.ops.begin(), p.ops.end(), ops);
  std::memcpy(base + env_off, env.data(), env.size());

  CoreTarget target;
  target.capture_point = reinterpret_cast<jmp_buf*>(m.capture_point);
  target.resume = reinterpret_cast<ResumeInfo*>(m.resume_info);
  target.info.scratch = work;
  target.info.scratch_len = work_len;
  target.info.env = work + env_off;
  target.info.env_len = env.size();
  run_restore_core(base + kCoreStack, ops, p.ops.size(), target);
}

}  // namespace ftmpi::ckpt
