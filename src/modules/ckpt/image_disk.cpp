#include "modules/ckpt/image_disk.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <vector>

#include "base/ckpt_image_files.hpp"
#include "modules/ckpt/image_delta.hpp"

namespace ftmpi::ckpt {
namespace {

std::string errno_text(const std::string& what) { return what + ": " + std::strerror(errno); }

}  // namespace

Error DiskStore::prepare() const {
  for (size_t pos = 1; pos <= dir_.size(); ++pos) {
    if (pos < dir_.size() && dir_[pos] != '/') continue;
    std::string part = dir_.substr(0, pos);
    if (::mkdir(part.c_str(), 0700) != 0 && errno != EEXIST) return {errno_text("cannot create " + part)};
  }
  struct stat st;
  if (::stat(dir_.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) return {dir_ + " is not a directory"};
  return {};
}

std::string DiskStore::path_of(int rank, uint64_t number, uint64_t base) const {
  return ckpt_files::image_path(dir_, job_, rank, number, base);
}

bool DiskStore::holds(int rank, uint64_t number) const {
  struct stat st;
  return ::stat(path_of(rank, number).c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

std::string DiskStore::temp_path(int rank, uint64_t number, uint64_t base) const {
  return path_of(rank, number, base) + ".tmp";
}

std::string DiskStore::spare(int rank, uint64_t number, bool delta) const {
  if (reuse_ != Reuse::kSpare) return "";
  // The newest image and its base stay untouched until the next one is whole.
  std::vector<ckpt_files::ImageFile> older = older_images(rank, number);
  for (size_t i = 1; i < older.size(); ++i)
    if (older[i].number != older[0].base && (older[i].base != 0) == delta) return older[i].path;
  return "";
}

uint64_t DiskStore::delta_base(int rank, uint64_t number, DeltaTracker& tracker) const {
  const uint64_t base = tracker.base_number();
  if (base == 0 || !holds(rank, base)) return 0;
  if (reuse_ == Reuse::kSpare && spare(rank, number, false).empty()) return 0;
  return tracker.plan_delta(path_of(rank, base)) ? base : 0;
}

Result<int> DiskStore::begin(int rank, uint64_t number, uint64_t base) const {
  std::string tmp = temp_path(rank, number, base);
  int flags = O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC;
  const std::string reuse = spare(rank, number, base != 0);
  if (!reuse.empty() && ::rename(reuse.c_str(), tmp.c_str()) == 0) flags &= ~O_TRUNC;
  int fd = ::open(tmp.c_str(), flags, 0600);
  if (fd < 0) return Error{errno_text("cannot create " + tmp)};
  return fd;
}

Error DiskStore::commit(int fd, int rank, uint64_t number, uint64_t base) const {
  std::string tmp = temp_path(rank, number, base), final_path = path_of(rank, number, base);
  // A spare written over may have been longer than this image.
  const off_t end = ::lseek(fd, 0, SEEK_CUR);
  if (end < 0 || ::ftruncate(fd, end) != 0) {
    Error e{errno_text("cannot cut " + tmp)};
    ::close(fd);
    return e;
  }
  // The data must be on disk before the name says the image is whole.
  if (::fsync(fd) != 0) {
    Error e{errno_text("cannot flush " + tmp)};
    ::close(fd);
    return e;
  }
  if (::close(fd) != 0) return {errno_text("cannot close " + tmp)};
  if (::rename(tmp.c_str(), final_path.c_str()) != 0) return {errno_text("cannot rename " + tmp)};
  // With kSpare the newest whole and incremental images not needed are the next spares.
  bool spare_whole = reuse_ == Reuse::kSpare, spare_delta = reuse_ == Reuse::kSpare;
  for (const ckpt_files::ImageFile& f : older_images(rank, number)) {
    if (f.number == base) continue;
    bool& spare = f.base ? spare_delta : spare_whole;
    if (spare) {
      spare = false;
      continue;
    }
    ::unlink(f.path.c_str());
  }
  return {};
}

std::vector<ckpt_files::ImageFile> DiskStore::older_images(int rank, uint64_t number) const {
  std::vector<ckpt_files::ImageFile> out;
  for (ckpt_files::ImageFile& f : ckpt_files::job_images(dir_, job_))
    if (f.whole && f.rank == rank && f.number < number) out.push_back(std::move(f));
  std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.number > b.number; });
  return out;
}

void DiskStore::abandon(int fd, int rank, uint64_t number, uint64_t base) const {
  ::close(fd);
  ::unlink(temp_path(rank, number, base).c_str());
}

uint64_t DiskStore::latest(int rank) const { return ckpt_files::newest_image(dir_, job_, rank).number; }

Error DiskStore::remove_job() const {
  std::string failed;
  for (const ckpt_files::ImageFile& f : ckpt_files::job_images(dir_, job_))
    if (::unlink(f.path.c_str()) != 0 && failed.empty()) failed = errno_text("cannot remove " + f.path);
  return {failed};
}

}  // namespace ftmpi::ckpt
