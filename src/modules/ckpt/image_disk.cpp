#include "modules/ckpt/image_disk.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <vector>

namespace ftmpi::ckpt {
namespace {

std::string errno_text(const std::string& what) { return what + ": " + std::strerror(errno); }

// Image number from "<job>.r<rank>.c<number>.img", 0 if `name` is not one.
uint64_t number_in(const std::string& name, const std::string& prefix) {
  if (name.compare(0, prefix.size(), prefix) != 0) return 0;
  std::string rest = name.substr(prefix.size());
  if (!rest.ends_with(".img")) return 0;
  rest.resize(rest.size() - 4);
  if (rest.empty() || rest.find_first_not_of("0123456789") != std::string::npos) return 0;
  return std::stoull(rest);
}

std::vector<std::string> names_in(const std::string& dir) {
  std::vector<std::string> out;
  if (DIR* d = ::opendir(dir.c_str())) {
    while (struct dirent* e = ::readdir(d)) out.emplace_back(e->d_name);
    ::closedir(d);
  }
  return out;
}

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

std::string DiskStore::path_of(int rank, uint64_t number) const {
  return dir_ + "/" + job_ + ".r" + std::to_string(rank) + ".c" + std::to_string(number) + ".img";
}

std::string DiskStore::temp_path(int rank, uint64_t number) const {
  return path_of(rank, number) + ".tmp";
}

Result<int> DiskStore::begin(int rank, uint64_t number) const {
  std::string tmp = temp_path(rank, number);
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0) return Error{errno_text("cannot create " + tmp)};
  return fd;
}

Error DiskStore::commit(int fd, int rank, uint64_t number) const {
  std::string tmp = temp_path(rank, number), final_path = path_of(rank, number);
  // The data must be on disk before the name says the image is whole.
  if (::fsync(fd) != 0) {
    Error e{errno_text("cannot flush " + tmp)};
    ::close(fd);
    return e;
  }
  if (::close(fd) != 0) return {errno_text("cannot close " + tmp)};
  if (::rename(tmp.c_str(), final_path.c_str()) != 0) return {errno_text("cannot rename " + tmp)};
  std::string prefix = job_ + ".r" + std::to_string(rank) + ".c";
  for (const std::string& n : names_in(dir_)) {
    uint64_t k = number_in(n, prefix);
    if (k != 0 && k < number) ::unlink((dir_ + "/" + n).c_str());
  }
  return {};
}

void DiskStore::abandon(int fd, int rank, uint64_t number) const {
  ::close(fd);
  ::unlink(temp_path(rank, number).c_str());
}

uint64_t DiskStore::latest(int rank) const {
  std::string prefix = job_ + ".r" + std::to_string(rank) + ".c";
  uint64_t best = 0;
  for (const std::string& n : names_in(dir_)) {
    uint64_t k = number_in(n, prefix);
    if (k > best) best = k;
  }
  return best;
}

Error DiskStore::remove_job() const {
  std::string prefix = job_ + ".r";
  std::string failed;
  for (const std::string& n : names_in(dir_)) {
    if (n.compare(0, prefix.size(), prefix) != 0) continue;
    bool image = n.ends_with(".img") || n.ends_with(".img.tmp");
    if (image && ::unlink((dir_ + "/" + n).c_str()) != 0 && failed.empty()) failed = errno_text("cannot remove " + n);
  }
  return {failed};
}

}  // namespace ftmpi::ckpt
