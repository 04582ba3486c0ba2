#include "modules/ckpt/image_layout.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "base/codec.hpp"

namespace ftmpi::ckpt {
namespace {

constexpr uint32_t kMetaTag = 0x4154454D;  // "META": the block starts with it

std::string read_small_file(const char* path, std::string& out) {
  int fd = ::open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return std::string("cannot open ") + path + ": " + std::strerror(errno);
  char buf[65536];
  for (;;) {
    ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      int e = errno;
      ::close(fd);
      return std::string("cannot read ") + path + ": " + std::strerror(e);
    }
    if (n == 0) break;
    out.append(buf, static_cast<size_t>(n));
  }
  ::close(fd);
  return "";
}

bool is_kernel_name(const std::string& p) {
  return p == "[vdso]" || p == "[vvar]" || p == "[vvar_vclock]" || p == "[vsyscall]" || p == "[uprobes]";
}

}  // namespace

std::string hex(uint64_t v) {
  char b[24];
  std::snprintf(b, sizeof b, "%#llx", static_cast<unsigned long long>(v));
  return b;
}

std::string read_own_maps(std::vector<MapsLine>& out) {
  std::string text;
  std::string e = read_small_file("/proc/self/maps", text);
  if (!e.empty()) return e;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t eol = text.find('\n', pos);
    if (eol == std::string::npos) eol = text.size();
    std::string line = text.substr(pos, eol - pos);
    pos = eol + 1;
    if (line.empty()) continue;
    MapsLine l;
    char perms[8] = {};
    unsigned long long start, end, off, inode;
    unsigned dmaj, dmin;
    int consumed = 0;
    if (std::sscanf(line.c_str(), "%llx-%llx %7s %llx %x:%x %llu %n", &start, &end, perms, &off, &dmaj, &dmin,
                    &inode, &consumed) < 7)
      return "cannot parse /proc/self/maps line '" + line + "'";
    l.start = start;
    l.end = end;
    l.offset = off;
    l.inode = inode;
    l.prot = (perms[0] == 'r' ? PROT_READ : 0) | (perms[1] == 'w' ? PROT_WRITE : 0) | (perms[2] == 'x' ? PROT_EXEC : 0);
    l.shared = perms[3] == 's';
    l.path = line.substr(static_cast<size_t>(consumed));
    out.push_back(std::move(l));
  }
  return "";
}

std::string classify(const MapsLine& l, Region& r) {
  r.start = l.start;
  r.end = l.end;
  r.prot = l.prot;
  r.shared = l.shared;
  r.offset = l.offset;
  r.inode = l.inode;
  r.path = l.path;
  if (is_kernel_name(l.path)) {
    r.kind = RegionKind::kKernel;
    return "";
  }
  if (l.shared) {
    if ((l.prot & PROT_WRITE) || l.inode == 0)
      return "shared mapping " + hex(l.start) + "-" + hex(l.end) + " " + (l.path.empty() ? "(anonymous)" : l.path) +
             " cannot be captured (the caller must unmap it first)";
    r.kind = RegionKind::kFileView;
    return "";
  }
  if (l.path == "[heap]") {
    r.kind = RegionKind::kHeap;
  } else if (l.path == "[stack]") {
    r.kind = RegionKind::kStack;
  } else if (!(l.prot & PROT_READ)) {
    r.kind = l.inode != 0 ? RegionKind::kFileView : RegionKind::kReserved;
  } else if (l.inode != 0 && !(l.prot & PROT_WRITE)) {
    // Read-only private file mappings (text, rodata, RELRO) are the same in a
    // process of the same binary at the same addresses.
    r.kind = RegionKind::kFileView;
  } else {
    r.kind = RegionKind::kData;
  }
  return "";
}

void encode_meta(const ImageMeta& m, std::vector<uint8_t>& out) {
  Encoder e(&out);
  e.u32(kMetaTag);
  e.str(m.exe_path);
  e.u64(m.exe_dev);
  e.u64(m.exe_inode);
  e.u64(m.exe_size);
  e.u64(m.exe_mtime_ns);
  e.u64(m.capture_point);
  e.u64(m.resume_info);
  e.u64(m.fs_base);
  e.i64(m.tid_offset);
  e.u32(m.mxcsr);
  e.u32(m.fpu_cw);
  e.u64(m.sigmask);
  for (const KernelSigaction& a : m.sigactions) {
    e.u64(a.handler);
    e.u64(a.flags);
    e.u64(a.restorer);
    e.u64(a.mask);
  }
  e.u64(m.altstack_sp);
  e.u64(m.altstack_size);
  e.i32(m.altstack_flags);
  e.u64(m.start_brk);
  e.u64(m.brk);
  e.u32(static_cast<uint32_t>(m.regions.size()));
  for (const Region& r : m.regions) {
    e.u64(r.start);
    e.u64(r.end);
    e.u32(r.prot);
    e.u32(static_cast<uint32_t>(r.kind));
    e.u8(r.shared ? 1 : 0);
    e.u64(r.offset);
    e.u64(r.inode);
    e.str(r.path);
  }
  e.u32(static_cast<uint32_t>(m.files.size()));
  for (const OpenFile& f : m.files) {
    e.i32(f.fd);
    e.i32(f.status_flags);
    e.i32(f.fd_flags);
    e.u64(f.offset);
    e.str(f.path);
  }
  e.str(m.cwd);
  e.str(m.base_path);
  e.u64(m.base_chain);
}

std::string decode_meta(const uint8_t* p, size_t n, ImageMeta& m) {
  Decoder d(p, n);
  if (d.u32() != kMetaTag) return "image metadata does not start with its tag";
  m.exe_path = d.str(4096);
  m.exe_dev = d.u64();
  m.exe_inode = d.u64();
  m.exe_size = d.u64();
  m.exe_mtime_ns = d.u64();
  m.capture_point = d.u64();
  m.resume_info = d.u64();
  m.fs_base = d.u64();
  m.tid_offset = d.i64();
  m.mxcsr = d.u32();
  m.fpu_cw = d.u32();
  m.sigmask = d.u64();
  for (KernelSigaction& a : m.sigactions) {
    a.handler = d.u64();
    a.flags = d.u64();
    a.restorer = d.u64();
    a.mask = d.u64();
  }
  m.altstack_sp = d.u64();
  m.altstack_size = d.u64();
  m.altstack_flags = d.i32();
  m.start_brk = d.u64();
  m.brk = d.u64();
  uint32_t nr = d.u32();
  if (nr > 1u << 20) return "image metadata lists too many regions";
  for (uint32_t i = 0; i < nr && d.ok(); ++i) {
    Region r;
    r.start = d.u64();
    r.end = d.u64();
    r.prot = d.u32();
    uint32_t kind = d.u32();
    if (kind < 1 || kind > 6) return "image metadata has an unknown region kind";
    r.kind = static_cast<RegionKind>(kind);
    r.shared = d.u8() != 0;
    r.offset = d.u64();
    r.inode = d.u64();
    r.path = d.str(4096);
    if (r.start >= r.end || (r.start & 4095) || (r.end & 4095)) return "image metadata has a malformed region";
    m.regions.push_back(std::move(r));
  }
  uint32_t nf = d.u32();
  if (nf > 1u << 20) return "image metadata lists too many files";
  for (uint32_t i = 0; i < nf && d.ok(); ++i) {
    OpenFile f;
    f.fd = d.i32();
    f.status_flags = d.i32();
    f.fd_flags = d.i32();
    f.offset = d.u64();
    f.path = d.str(4096);
    m.files.push_back(std::move(f));
  }
  m.cwd = d.str(4096);
  m.base_path = d.str(4096);
  m.base_chain = d.u64();
  if (!d.done()) return "image metadata is truncated or has trailing bytes";
  return "";
}

std::string exe_identity(ImageMeta& m) {
  char buf[4096];
  ssize_t n = ::readlink("/proc/self/exe", buf, sizeof buf - 1);
  if (n < 0) return std::string("cannot read /proc/self/exe: ") + std::strerror(errno);
  m.exe_path.assign(buf, static_cast<size_t>(n));
  struct stat st;
  if (::stat("/proc/self/exe", &st) != 0) return std::string("cannot stat /proc/self/exe: ") + std::strerror(errno);
  m.exe_dev = st.st_dev;
  m.exe_inode = st.st_ino;
  m.exe_size = static_cast<uint64_t>(st.st_size);
  m.exe_mtime_ns = static_cast<uint64_t>(st.st_mtim.tv_sec) * 1000000000ull + static_cast<uint64_t>(st.st_mtim.tv_nsec);
  n = ::readlink("/proc/self/cwd", buf, sizeof buf - 1);
  if (n < 0) return std::string("cannot read /proc/self/cwd: ") + std::strerror(errno);
  m.cwd.assign(buf, static_cast<size_t>(n));
  return "";
}

uint64_t own_start_brk() {
  std::string text;
  if (!read_small_file("/proc/self/stat", text).empty()) return 0;
  // Fields after the command name (which may hold spaces) start after the last ')'.
  size_t close = text.rfind(')');
  if (close == std::string::npos) return 0;
  const char* s = text.c_str() + close + 2;  // field 3
  for (int field = 3; field < 47 && *s; ++field) {
    s = std::strchr(s, ' ');
    if (!s) return 0;
    ++s;
  }
  return std::strtoull(s, nullptr, 10);
}

std::string own_open_files(const std::vector<int>& skip, const std::string& leave_out, std::vector<OpenFile>& out) {
  DIR* dir = ::opendir("/proc/self/fd");
  if (!dir) return std::string("cannot list /proc/self/fd: ") + std::strerror(errno);
  int dir_fd = ::dirfd(dir);
  std::vector<int> fds;
  while (struct dirent* ent = ::readdir(dir)) {
    if (ent->d_name[0] < '0' || ent->d_name[0] > '9') continue;
    int fd = std::atoi(ent->d_name);
    if (fd == dir_fd) continue;
    bool skipped = false;
    for (int s : skip) skipped |= s == fd;
    if (!skipped) fds.push_back(fd);
  }
  ::closedir(dir);
  for (int fd : fds) {
    struct stat st;
    if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) continue;
    OpenFile f;
    f.fd = fd;
    f.status_flags = ::fcntl(fd, F_GETFL);
    f.fd_flags = ::fcntl(fd, F_GETFD);
    off_t off = ::lseek(fd, 0, SEEK_CUR);
    f.offset = off < 0 ? 0 : static_cast<uint64_t>(off);
    char link[64], buf[4096];
    std::snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
    ssize_t n = ::readlink(link, buf, sizeof buf - 1);
    if (n < 0) continue;
    f.path.assign(buf, static_cast<size_t>(n));
    if (!leave_out.empty() && f.path.rfind(leave_out, 0) == 0) continue;
    out.push_back(std::move(f));
  }
  return "";
}

}  // namespace ftmpi::ckpt
