#include "modules/logging/channels.hpp"

namespace ftmpi::logging {

const std::deque<uint64_t> InChannels::kNone;

InChannels::Verdict InChannels::arrive_other(int32_t src, uint64_t seq, uint64_t checksum) {
  if (src < 0) return Verdict::kDuplicate;  // no such channel: never accept
  if (static_cast<size_t>(src) >= sums_.size()) sums_.resize(static_cast<size_t>(src) + 1);
  auto& v = sums_[static_cast<size_t>(src)];
  if (seq <= v.size()) return Verdict::kDuplicate;
  if (seq - 1 > v.size()) v.resize(seq - 1, 0);  // skipped numbers: withdrawn messages
  v.push_back(checksum);
  return Verdict::kAccept;
}

uint64_t InChannels::received(int32_t src) const { return checksums(src).size(); }

const std::deque<uint64_t>& InChannels::checksums(int32_t src) const {
  return src >= 0 && static_cast<size_t>(src) < sums_.size() ? sums_[static_cast<size_t>(src)] : kNone;
}

uint64_t InChannels::checksum(int32_t src, uint64_t seq) const {
  const auto& v = checksums(src);
  return seq >= 1 && seq <= v.size() ? v[seq - 1] : 0;
}

bool InChannels::duplicate_differs(int32_t src, uint64_t seq, uint64_t sum) const {
  const auto& v = checksums(src);
  return seq >= 1 && seq <= v.size() && v[seq - 1] != 0 && v[seq - 1] != sum;
}

}  // namespace ftmpi::logging
