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
    if (src >= 0 && static_cast<size_t>(src) < chans_.size()) {
      Channel& c = chans_[static_cast<size_t>(src)];
      if (seq == c.base + c.sums.size() + 1) {
        c.sums.push_back(checksum);
        return Verdict::kAccept;
      }
    }
    return arrive_other(src, seq, checksum);
  }
  // Highest sequence number accepted from src (0: none).
  uint64_t received(int32_t src) const;
  // Checksum of message `seq` from src (0: skipped, not received, or forgotten).
  uint64_t checksum(int32_t src, uint64_t seq) const;
  // A duplicate whose checksum differs from the accepted one's.
  bool duplicate_differs(int32_t src, uint64_t seq, uint64_t checksum) const;
  // src's checkpoint (held by the runtime, garbage collected) had sent us
  // messages up to `seq`: src never executes those sends again, so their
  // checksums are not needed (a copy re-sent from its log is a duplicate).
  void forget_through(int32_t src, uint64_t seq);
  // Checksums held for src (what forget_through bounds).
  size_t held(int32_t src) const;

 private:
  Verdict arrive_other(int32_t src, uint64_t seq, uint64_t checksum);
  struct Channel {
    uint64_t base = 0;  // numbers up to base are forgotten
    // sums[i]: checksum of message base+i+1. A deque grows by small blocks
    // without copying: 8 bytes of fresh memory per message where a vector's
    // doublings (each a new mapping) touch about 16, and on VMs whose host
    // takes freed pages back every fresh page is a host fault.
    std::deque<uint64_t> sums;
  };
  const Channel* channel(int32_t src) const;
  std::vector<Channel> chans_;  // per slot
};

}  // namespace ftmpi::logging
