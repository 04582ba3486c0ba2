// The files of a job's stored checkpoint images (spec/checkpoint-protocol.md
// §2a, §2b): <dir>/<job>.r<rank>.c<number>.img once whole, with ".tmp"
// appended while a copy writes it; an incremental image on image <base>
// (spec/checkpoint-image.md §4a) is <dir>/<job>.r<rank>.c<number>.d<base>.img. Written by the ranks and the daemons'
// checkpoint servers, read back by the daemon that restores a rank, removed
// by the launcher and the daemons at the end of the job: one naming for all.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace ftmpi::ckpt_files {

std::string image_path(const std::string& dir, const std::string& job, int rank, uint64_t number, uint64_t base = 0);

struct ImageFile {
  std::string path;
  int rank = -1;
  uint64_t number = 0;
  uint64_t base = 0;   // an incremental image's base; 0 for an image that holds every page
  bool whole = false;  // false: a temporary file some copy was still writing
};

// Every image file of `job` in `dir`, whole or not, in no particular order
// (none if the directory cannot be read). Other files are never listed.
std::vector<ImageFile> job_images(const std::string& dir, const std::string& job);

// The whole image of `rank` with the highest number; number 0 if none.
ImageFile newest_image(const std::string& dir, const std::string& job, int rank);

}  // namespace ftmpi::ckpt_files
