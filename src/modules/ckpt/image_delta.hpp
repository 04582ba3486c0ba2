// Incremental images (spec/checkpoint-image.md §4a). A process that writes
// its own images (the memory store: no forked copy, so the kernel's marks on
// its pages are its own) keeps one tracker across checkpoints. When it writes
// a whole image, the tracker write-protects its large anonymous regions
// through a userfaultfd in asynchronous mode: the kernel resolves each first
// write itself (no handler thread) and clears the page's protection bit,
// which /proc/self/pagemap shows (bit 57). A later image then holds only the
// pages whose bit is clear and names the whole image for the others. The
// tracker decides whether a delta pays and remembers the base; the writer
// (image_capture.cpp) reads the bits as it reaches each page.
//
// Why not the soft-dirty bit: the kernels of our machines are built without
// it (../shared/MACHINE-NOTES.md). The asynchronous write protection needs
// Linux 6.7; where it is missing every image is whole.
#pragma once
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "modules/ckpt/image.hpp"
#include "modules/ckpt/image_layout.hpp"

namespace ftmpi::ckpt {

class DeltaTracker {
 public:
  DeltaTracker() = default;
  ~DeltaTracker();
  DeltaTracker(const DeltaTracker&) = delete;
  DeltaTracker& operator=(const DeltaTracker&) = delete;

  // The store's number of the whole image a delta would build on; 0: none.
  uint64_t base_number() const { return base_number_; }
  // Before a capture: the next image is a delta on the base (which the
  // store holds at `base_path`) when tracking works and the delta would be
  // at most a quarter of a whole image: the anonymous resident pages less
  // those still as the base has them. Otherwise the capture writes a whole image
  // and tracks from there.
  bool plan_delta(const std::string& base_path);
  // The store holds the image the last capture wrote, as `number`.
  void stored(uint64_t number);
  // It does not (write or commit failed): the next image is whole.
  void not_stored();
  // Why there are no deltas in this process ("" while tracking works).
  const std::string& unavailable() const { return off_; }

  // ---- for capture_self (image_capture.cpp) ----
  bool planned() const { return planned_; }
  const std::string& base_path() const { return base_path_; }
  uint64_t base_chain() const { return base_chain_; }
  // Write-protects the tracked regions among `maps` (before a whole image
  // is written: a page written after this call is in the next delta).
  void arm(const std::vector<MapsLine>& maps);
  // The ranges arm() protected: a page in them that exists and still
  // carries the protection is as the base has it.
  const PageRuns& armed() const { return armed_; }
  // After the image's trailer: its chain value, and whether it was whole.
  void captured(uint64_t chain, bool whole);
  // In a process restored from an image: the descriptor number the image
  // remembers is not this process's, and nothing is protected.
  void forget();

 private:
  void close_fd();
  int uffd_ = -1;
  std::string off_;
  PageRuns armed_;
  uint64_t base_number_ = 0, base_chain_ = 0;
  std::string base_path_;
  bool planned_ = false;
  bool last_whole_ = false;  // what the last capture wrote
  uint64_t last_chain_ = 0;
};

}  // namespace ftmpi::ckpt
