#include "base/ckpt_image_files.hpp"

#include <dirent.h>

#include <cstdlib>

namespace ftmpi::ckpt_files {
namespace {

bool all_digits(const std::string& s) { return !s.empty() && s.find_first_not_of("0123456789") == std::string::npos; }

// Fills rank, number, base and whole from a name after "<job>.r"; false if
// the rest is not "<rank>.c<number>[.d<base>].img" or that with ".tmp".
bool parse_rest(std::string rest, ImageFile& f) {
  f.whole = !rest.ends_with(".tmp");
  if (!f.whole) rest.resize(rest.size() - 4);
  if (!rest.ends_with(".img")) return false;
  rest.resize(rest.size() - 4);
  const size_t d = rest.find(".d");
  if (d != std::string::npos) {
    const std::string base = rest.substr(d + 2);
    if (!all_digits(base)) return false;
    f.base = std::strtoull(base.c_str(), nullptr, 10);
    rest.resize(d);
    if (f.base == 0) return false;
  }
  const size_t c = rest.find(".c");
  if (c == std::string::npos) return false;
  const std::string rank = rest.substr(0, c), number = rest.substr(c + 2);
  if (!all_digits(rank) || !all_digits(number) || rank.size() > 9) return false;
  f.rank = std::atoi(rank.c_str());
  f.number = std::strtoull(number.c_str(), nullptr, 10);
  return f.number > 0 && f.base < f.number;
}

}  // namespace

std::string image_path(const std::string& dir, const std::string& job, int rank, uint64_t number, uint64_t base) {
  return dir + "/" + job + ".r" + std::to_string(rank) + ".c" + std::to_string(number) +
         (base ? ".d" + std::to_string(base) : "") + ".img";
}

std::vector<ImageFile> job_images(const std::string& dir, const std::string& job) {
  std::vector<ImageFile> out;
  DIR* d = ::opendir(dir.c_str());
  if (!d) return out;
  const std::string prefix = job + ".r";
  while (const dirent* e = ::readdir(d)) {
    const std::string name = e->d_name;
    ImageFile f;
    if (name.rfind(prefix, 0) != 0 || !parse_rest(name.substr(prefix.size()), f)) continue;
    f.path = dir + "/" + name;
    out.push_back(std::move(f));
  }
  ::closedir(d);
  return out;
}

ImageFile newest_image(const std::string& dir, const std::string& job, int rank) {
  ImageFile best;
  for (ImageFile& f : job_images(dir, job))
    if (f.whole && f.rank == rank && f.number > best.number) best = std::move(f);
  return best;
}

}  // namespace ftmpi::ckpt_files
