#include "modules/logging/channels.hpp"

namespace ftmpi::logging {

InChannels::Verdict InChannels::arrive_other(int32_t src, uint64_t seq, uint64_t checksum) {
  if (src < 0) return Verdict::kDuplicate;  // no such channel: never accept
  if (static_cast<size_t>(src) >= chans_.size()) chans_.resize(static_cast<size_t>(src) + 1);
  Channel& c = chans_[static_cast<size_t>(src)];
  const uint64_t top = c.base + c.sums.size();
  if (seq <= top) return Verdict::kDuplicate;
  if (seq - 1 > top) c.sums.resize(c.sums.size() + (seq - 1 - top), 0);  // skipped numbers: withdrawn messages
  c.sums.push_back(checksum);
  return Verdict::kAccept;
}

const InChannels::Channel* InChannels::channel(int32_t src) const {
  return src >= 0 && static_cast<size_t>(src) < chans_.size() ? &chans_[static_cast<size_t>(src)] : nullptr;
}

uint64_t InChannels::received(int32_t src) const {
  const Channel* c = channel(src);
  return c ? c->base + c->sums.size() : 0;
}

uint64_t InChannels::checksum(int32_t src, uint64_t seq) const {
  const Channel* c = channel(src);
  return c && seq > c->base && seq <= c->base + c->sums.size() ? c->sums[seq - c->base - 1] : 0;
}

bool InChannels::duplicate_differs(int32_t src, uint64_t seq, uint64_t sum) const {
  const uint64_t had = checksum(src, seq);
  return had != 0 && had != sum;
}

void InChannels::forget_through(int32_t src, uint64_t seq) {
  if (src < 0 || static_cast<size_t>(src) >= chans_.size()) return;
  Channel& c = chans_[static_cast<size_t>(src)];
  while (c.base < seq && !c.sums.empty()) {
    c.sums.pop_front();
    ++c.base;
  }
}

size_t InChannels::held(int32_t src) const {
  const Channel* c = channel(src);
  return c ? c->sums.size() : 0;
}

}  // namespace ftmpi::logging
