#include "modules/logging/channels.hpp"

namespace ftmpi::logging {

const std::vector<uint64_t> InChannels::kNone;

InChannels::Verdict InChannels::arrive(int32_t src, uint64_t seq, uint64_t checksum) {
  if (src < 0) return Verdict::kGap;
  if (static_cast<size_t>(src) >= sums_.size()) sums_.resize(static_cast<size_t>(src) + 1);
  auto& v = sums_[static_cast<size_t>(src)];
  if (seq == v.size() + 1) {
    v.push_back(checksum);
    return Verdict::kAccept;
  }
  return seq <= v.size() ? Verdict::kDuplicate : Verdict::kGap;
}

uint64_t InChannels::received(int32_t src) const { return checksums(src).size(); }

const std::vector<uint64_t>& InChannels::checksums(int32_t src) const {
  return src >= 0 && static_cast<size_t>(src) < sums_.size() ? sums_[static_cast<size_t>(src)] : kNone;
}

uint64_t InChannels::checksum(int32_t src, uint64_t seq) const {
  const auto& v = checksums(src);
  return seq >= 1 && seq <= v.size() ? v[seq - 1] : 0;
}

bool InChannels::duplicate_differs(int32_t src, uint64_t seq, uint64_t sum) const {
  const auto& v = checksums(src);
  return seq >= 1 && seq <= v.size() && v[seq - 1] != sum;
}

PeerHoldings::Peer& PeerHoldings::at(int32_t dst) {
  if (static_cast<size_t>(dst) >= peers_.size()) peers_.resize(static_cast<size_t>(dst) + 1);
  return peers_[static_cast<size_t>(dst)];
}

void PeerHoldings::add(int32_t dst, const uint64_t* sums, size_t n) {
  if (dst < 0) return;
  auto& v = at(dst).sums;
  v.insert(v.end(), sums, sums + n);
}

bool PeerHoldings::complete(int32_t dst) const {
  return dst >= 0 && static_cast<size_t>(dst) < peers_.size() && peers_[static_cast<size_t>(dst)].complete;
}

uint64_t PeerHoldings::held(int32_t dst) const {
  return dst >= 0 && static_cast<size_t>(dst) < peers_.size() ? peers_[static_cast<size_t>(dst)].sums.size() : 0;
}

PeerHoldings::Verdict PeerHoldings::on_send(int32_t dst, uint64_t seq, uint64_t checksum) const {
  if (dst < 0 || static_cast<size_t>(dst) >= peers_.size()) return Verdict::kTransmit;
  const auto& v = peers_[static_cast<size_t>(dst)].sums;
  if (seq == 0 || seq > v.size()) return Verdict::kTransmit;
  return v[seq - 1] == checksum ? Verdict::kSuppress : Verdict::kDiverged;
}

bool PeerHoldings::passed_all(const std::vector<uint64_t>& next_seq_by_slot) const {
  for (size_t s = 0; s < peers_.size(); ++s) {
    uint64_t next = s < next_seq_by_slot.size() ? next_seq_by_slot[s] : 1;
    if (next <= peers_[s].sums.size()) return false;
  }
  return true;
}

}  // namespace ftmpi::logging
