// The disk store (spec/checkpoint-image.md §5): image files of one job in a
// directory, named by job, rank and checkpoint number. An image is written
// under a temporary name and renamed when complete, so a half-written image
// is never taken for a whole one; the older image of a rank is removed only
// after the newer one is complete.
//
// An incremental image (spec/checkpoint-image.md §4a) names the whole image
// it builds on (`base`): that one stays as long as the rank's newest image
// needs it.
//
// With Reuse::kSpare (the memory store) the rank keeps an older image it no
// longer needs as a spare, one whole and one incremental, and writes its next
// image of that kind over it in place: a file's pages that stay allocated
// cost the copy only, while fresh pages cost a fault each on a VM that hands
// freed memory back to its host (spec/checkpoint-protocol.md §2b).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "base/ckpt_image_files.hpp"

#include "modules/ckpt/image.hpp"

namespace ftmpi::ckpt {

class DiskStore {
 public:
  enum class Reuse : uint8_t { kNone, kSpare };
  DiskStore(std::string dir, std::string job, Reuse reuse = Reuse::kNone)
      : dir_(std::move(dir)), job_(std::move(job)), reuse_(reuse) {}
  // Creates the directory (and its parents) if needed.
  Error prepare() const;
  // <dir>/<job>.r<rank>.c<number>.img, or .c<number>.d<base>.img for an
  // incremental image on image `base`.
  std::string path_of(int rank, uint64_t number, uint64_t base = 0) const;
  // The base image `number` of `rank` may be a delta on (image_delta.hpp),
  // 0 for a whole image: the tracker's base, while this store holds it and
  // the tracker finds a delta worth it; with kSpare also only while a spare
  // whole image exists, so that the whole image after a delta is written
  // over it, never into fresh pages (spec/checkpoint-protocol.md §2b).
  uint64_t delta_base(int rank, uint64_t number, DeltaTracker& tracker) const;
  // The temporary file for image `number` of `rank` (descriptor,
  // close-on-exec, at offset 0): a new one, or with kSpare a spare of the
  // same kind renamed to the temporary name, to be written over. Neither
  // the rank's newest image nor its base is ever a spare.
  Result<int> begin(int rank, uint64_t number, uint64_t base = 0) const;
  // Cuts the file at its offset, flushes and closes `fd`, renames the
  // temporary file to its final name, then removes the rank's older images
  // but the new one's base (with kSpare the newest whole and incremental
  // ones it does not need stay, the next spares).
  Error commit(int fd, int rank, uint64_t number, uint64_t base = 0) const;
  // Closes `fd` and removes the temporary file (a capture that failed).
  void abandon(int fd, int rank, uint64_t number, uint64_t base = 0) const;
  // The highest complete image number of `rank`, or 0 if there is none.
  uint64_t latest(int rank) const;
  // Removes every image and temporary file of the job (the normal end of a
  // job that does not keep its images); the directory stays.
  Error remove_job() const;

 private:
  std::string temp_path(int rank, uint64_t number, uint64_t base) const;
  bool holds(int rank, uint64_t number) const;  // its whole image `number`
  // With kSpare: the older image of that kind image `number` may be written
  // over ("" if none).
  std::string spare(int rank, uint64_t number, bool delta) const;
  // The rank's complete images numbered below `number`, newest first.
  std::vector<ckpt_files::ImageFile> older_images(int rank, uint64_t number) const;
  std::string dir_, job_;
  Reuse reuse_;
};

}  // namespace ftmpi::ckpt
