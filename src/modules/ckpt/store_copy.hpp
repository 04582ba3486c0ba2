// The buddy and disk stores, library side (spec/checkpoint-protocol.md §2a):
// the frozen copy, right after it dropped the runtime's descriptors, writes
// its image with capture_self to the buddy daemon's checkpoint server or to
// the disk store, tells its daemon how that went (one CKPT_STORED datagram),
// and then stays frozen as the local image. The same call returns a second
// time, in a process a restorer built from that image.
//
// The memory store (§2b) writes the same disk image, into the host's shared
// memory, from the rank itself: no fork, so none of the copy-on-write faults
// that a frozen copy costs the rank afterwards; and, since the pages are the
// rank's own, incremental images (image_delta.hpp).
#pragma once
#include <cstdint>
#include <string>

#include "base/auth.hpp"
#include "modules/ckpt/image_delta.hpp"
#include "rte/proto/ckpt_messages.hpp"

namespace ftmpi::ckpt {

// The transports' shared segment, as /proc/self/maps and /proc/self/fd name
// it: the live processes' pages, never part of an image.
inline constexpr const char* kSegmentPath = "/memfd:ftmpi-shm";

struct StoreTarget {
  uint8_t kind = 0;  // rte::proto::CkptFacts::kStore*: local (nothing to do), buddy, disk, memory
  std::string buddy_addr;
  uint16_t buddy_port = 0;
  auth::Secret secret{};
  std::string dir, job;  // disk, memory: DIR/JOB.rSLOT.cNUMBER.img
  int32_t slot = 0;
  uint64_t number = 0;
  int daemon_pid = 0;    // whose datagram socket hears the outcome
  DeltaTracker* delta = nullptr;  // memory store: the rank's tracker across its images
  const PageRuns* unused = nullptr;  // pages the image leaves out (capture_self)
};

// The store the job uses: FTMPI_CKPT_STORE (buddy, disk:DIR, memory:DIR) and
// FTMPI_CKPT_JOB from the environment. Kind local when unset. Read once, at
// MPI_Init; the buddy address comes with each order.
StoreTarget store_from_environment();
// "ADDR:PORT" -> the target's buddy fields; false if malformed.
bool set_buddy(StoreTarget& t, const std::string& addr_port);

// Exit status of a restored process that could not become the next
// incarnation (the daemon then restarts the slot otherwise).
inline constexpr int kRestoredNotResumedExit = 124;

enum class CopyOutcome { kStored, kResumed };
// Writes the image of this process to the target's store (buddy, disk or
// memory), leaving out what `leave_out` names (image.hpp); `m` says how it
// went. kResumed: this is a restored process, at that point.
CopyOutcome store_image(const StoreTarget& t, const std::string& leave_out, rte::proto::CkptStored& m);
// Runs in the frozen copy (single-threaded, runtime descriptors closed):
// writes the image, then reports to the daemon. kStored also when the store
// failed (the report says why; the local image still serves). kResumed: this
// is a restored process, at the point where the copy wrote its image.
CopyOutcome store_in_copy(const StoreTarget& t);

}  // namespace ftmpi::ckpt
