// What an image records besides memory contents (spec/checkpoint-image.md §3):
// the mappings of /proc/self/maps classified by how a restorer treats them,
// the open regular files, signal state, FPU control, the thread pointer, and
// the identity of the binary. Read and encoded before the capture point,
// decoded by the restorer; no MPI and no runtime here.
#pragma once
#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace ftmpi::ckpt {

enum class RegionKind : uint32_t {
  kData = 1,      // private, readable: contents in the image (anonymous or a file's private copy)
  kHeap = 2,      // [heap]: contents in the image, re-created with brk
  kStack = 3,     // [stack]: contents in the image, the restorer's stack grown to it
  kFileView = 4,  // a file mapped without write access: must be there, or is mapped again
  kReserved = 5,  // anonymous without access (guard pages, reservations)
  kKernel = 6,    // [vdso], [vvar], [vsyscall]...: must be at the same address
};

struct Region {
  uint64_t start = 0, end = 0;
  uint32_t prot = 0;  // PROT_* bits
  RegionKind kind = RegionKind::kData;
  bool shared = false;  // MAP_SHARED (only for read-only file views)
  uint64_t offset = 0;  // in the file
  uint64_t inode = 0;
  std::string path;  // file path, "[heap]"-style name, or "" (anonymous)
  bool file_backed() const { return inode != 0; }
};

// One line of /proc/self/maps.
struct MapsLine {
  uint64_t start = 0, end = 0;
  uint32_t prot = 0;
  bool shared = false;
  uint64_t offset = 0;
  uint64_t inode = 0;
  std::string path;
};
// "" on success.
std::string read_own_maps(std::vector<MapsLine>& out);
// Classifies one mapping; "" or why a process with it cannot be captured.
std::string classify(const MapsLine& l, Region& out);

struct OpenFile {
  int32_t fd = -1;
  int32_t status_flags = 0;  // F_GETFL
  int32_t fd_flags = 0;      // F_GETFD
  uint64_t offset = 0;
  std::string path;
};

struct KernelSigaction {  // the kernel's struct sigaction on x86-64
  uint64_t handler = 0, flags = 0, restorer = 0, mask = 0;
};

struct ImageMeta {
  // Identity of the executable and of this build of the capture code.
  std::string exe_path;
  uint64_t exe_dev = 0, exe_inode = 0, exe_size = 0, exe_mtime_ns = 0;
  uint64_t capture_point = 0;  // address of the saved registers (jmp_buf) of the capturing copy
  uint64_t resume_info = 0;    // address of that copy's ResumeInfo
  // Thread state.
  uint64_t fs_base = 0;
  int64_t tid_offset = -1;  // where glibc caches the thread id, from fs_base (-1: not found)
  uint32_t mxcsr = 0;
  uint32_t fpu_cw = 0;
  uint64_t sigmask = 0;
  std::array<KernelSigaction, 64> sigactions{};  // [sig - 1]
  uint64_t altstack_sp = 0, altstack_size = 0;
  int32_t altstack_flags = 0;
  // Memory.
  uint64_t start_brk = 0, brk = 0;
  std::vector<Region> regions;
  std::vector<OpenFile> files;
  std::string cwd;  // the working directory (relative paths must keep resolving)
  // An incremental image (spec/checkpoint-image.md §4a): the whole image it
  // builds on, by path and by the chain value of its trailer; its base runs
  // (chunks without data) name the pages that are that image's. Empty path:
  // a whole image.
  std::string base_path;
  uint64_t base_chain = 0;
};

void encode_meta(const ImageMeta& m, std::vector<uint8_t>& out);
// "" on success.
std::string decode_meta(const uint8_t* p, size_t n, ImageMeta& m);

// Identity of the running executable (path, dev, inode, size, mtime).
std::string exe_identity(ImageMeta& m);
// start_brk of this process (field 47 of /proc/self/stat), 0 if unreadable.
uint64_t own_start_brk();
// Regular files open in this process, except the descriptors in `skip`
// and those whose path starts with `leave_out` (when not empty).
std::string own_open_files(const std::vector<int>& skip, const std::string& leave_out, std::vector<OpenFile>& out);

std::string hex(uint64_t v);

}  // namespace ftmpi::ckpt
