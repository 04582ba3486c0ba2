// Sequence numbers on the two ends of every channel (spec/transparent-mode.md §2).
//
// InChannels, on a receiver: the messages accepted from each sender slot,
// with the checksum of each, so that a restarted sender can be told what
// this process already has (and a re-sent copy that differs is caught).
// A message whose sequence number is not the next one is a duplicate (old)
// or a gap (a protocol error: channels are FIFO).
//
// PeerHoldings, on a restarted process: for each peer, the checksums of
// the messages of ours it already received from our dead incarnations. The
// replay's sends with those sequence numbers are suppressed after their
// checksum has been compared: a difference means the replay diverged.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace ftmpi::logging {

class InChannels {
 public:
  enum class Verdict : uint8_t { kAccept, kDuplicate, kGap };
  Verdict arrive(int32_t src, uint64_t seq, uint64_t checksum);
  // Highest sequence number accepted from src (0: none).
  uint64_t received(int32_t src) const;
  // Checksum of message `seq` from src (1 <= seq <= received(src)).
  uint64_t checksum(int32_t src, uint64_t seq) const;
  const std::vector<uint64_t>& checksums(int32_t src) const;
  // A duplicate whose checksum differs from the accepted one's.
  bool duplicate_differs(int32_t src, uint64_t seq, uint64_t checksum) const;

 private:
  std::vector<std::vector<uint64_t>> sums_;  // per slot, index seq-1
  static const std::vector<uint64_t> kNone;
};

class PeerHoldings {
 public:
  enum class Verdict : uint8_t { kTransmit, kSuppress, kDiverged };
  // Peer `dst` has our messages 1..sums.size() (appended in pieces).
  void add(int32_t dst, const uint64_t* sums, size_t n);
  void set_complete(int32_t dst) { at(dst).complete = true; }
  // Forgets what dst had (it died: its next incarnation has nothing).
  void reset(int32_t dst) { at(dst) = Peer{}; }
  bool complete(int32_t dst) const;
  Verdict on_send(int32_t dst, uint64_t seq, uint64_t checksum) const;
  uint64_t held(int32_t dst) const;
  // Our replay has sent past everything every peer had.
  bool passed_all(const std::vector<uint64_t>& next_seq_by_slot) const;
  uint64_t suppressed() const { return suppressed_; }
  void count_suppressed() { ++suppressed_; }

 private:
  struct Peer {
    std::vector<uint64_t> sums;
    bool complete = false;
  };
  Peer& at(int32_t dst);
  std::vector<Peer> peers_;
  uint64_t suppressed_ = 0;
};

}  // namespace ftmpi::logging
