// Sequence numbers on the two ends of every channel (spec/transparent-mode.md §2).
//
// InChannels, on a receiver: the messages accepted from each sender slot,
// with the checksum of each, so that a copy a restarted sender sends again
// is recognised, and caught if it differs.
// Numbers only grow on a channel; one may be skipped (a message its sender
// withdrew before it left). A number not above the highest accepted is a
// duplicate.
#pragma once
#include <cstddef>
#include <cstdint>
#include <deque>
#include <string>
#include <vector>

namespace ftmpi::logging {

class InChannels {
 public:
  enum class Verdict : uint8_t { kAccept, kDuplicate };
  Verdict arrive(int32_t src, uint64_t seq, uint64_t checksum) {
    // The common case inline: the channel's next number.
    if (src >= 0 && static_cast<size_t>(src) < sums_.size()) {
      auto& v = sums_[static_cast<size_t>(src)];
      if (seq == v.size() + 1) {
        v.push_back(checksum);
        return Verdict::kAccept;
      }
    }
    return arrive_other(src, seq, checksum);
  }
  // Highest sequence number accepted from src (0: none).
  uint64_t received(int32_t src) const;
  // Checksum of message `seq` from src (0: skipped or not received).
  uint64_t checksum(int32_t src, uint64_t seq) const;
  const std::deque<uint64_t>& checksums(int32_t src) const;
  // A duplicate whose checksum differs from the accepted one's.
  bool duplicate_differs(int32_t src, uint64_t seq, uint64_t checksum) const;

 private:
  Verdict arrive_other(int32_t src, uint64_t seq, uint64_t checksum);
  // Per slot, index seq-1. A deque grows by small blocks without copying:
  // 8 bytes of fresh memory per message where a vector's doublings (each a
  // new mapping) touch about 16, and on VMs whose host takes freed pages
  // back every fresh page is a host fault.
  std::vector<std::deque<uint64_t>> sums_;
  static const std::deque<uint64_t> kNone;
};

}  // namespace ftmpi::logging
