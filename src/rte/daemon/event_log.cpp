#include "rte/daemon/event_log.hpp"

#include <algorithm>

namespace ftmpi::rte {
namespace {

bool before(const proto::DetBatch& a, const proto::DetBatch& b) {
  return a.incarnation != b.incarnation ? a.incarnation < b.incarnation : a.batch < b.batch;
}

const std::vector<proto::DetBatch> kNone;

}  // namespace

bool EventLog::add(int32_t slot, proto::DetBatch b) {
  if (auto f = floors_.find(slot); f != floors_.end() && !before(proto::DetBatch{f->second.incarnation, f->second.batch, {}}, b))
    return false;
  std::vector<proto::DetBatch>& v = slots_[slot];
  // Almost always appended: batches arrive in order.
  if (v.empty() || before(v.back(), b)) {
    bytes_ += b.data.size();
    v.push_back(std::move(b));
    return true;
  }
  auto it = std::lower_bound(v.begin(), v.end(), b, before);
  if (it != v.end() && !before(b, *it)) return false;
  bytes_ += b.data.size();
  v.insert(it, std::move(b));
  return true;
}

const std::vector<proto::DetBatch>& EventLog::batches(int32_t slot) const {
  auto it = slots_.find(slot);
  return it == slots_.end() ? kNone : it->second;
}

std::string EventLog::concatenated(int32_t slot) const {
  std::string out;
  for (const proto::DetBatch& b : batches(slot)) out += b.data;
  return out;
}

uint64_t EventLog::last_batch(int32_t slot, uint32_t incarnation) const {
  // From the back: the newest incarnation's batches are last.
  const std::vector<proto::DetBatch>& v = batches(slot);
  for (auto it = v.rbegin(); it != v.rend(); ++it) {
    if (it->incarnation == incarnation) return it->batch;
    if (it->incarnation < incarnation) break;
  }
  auto f = floors_.find(slot);
  return f != floors_.end() && f->second.incarnation == incarnation ? f->second.batch : 0;
}

size_t EventLog::drop_through(int32_t slot, uint32_t incarnation, uint64_t batch) {
  const proto::DetBatch last{incarnation, batch, {}};
  Floor& f = floors_[slot];
  if (before(last, proto::DetBatch{f.incarnation, f.batch, {}})) return 0;  // an older checkpoint's word
  f = Floor{incarnation, batch};
  auto it = slots_.find(slot);
  if (it == slots_.end()) return 0;
  std::vector<proto::DetBatch>& v = it->second;
  auto end = std::upper_bound(v.begin(), v.end(), last, before);
  size_t dropped = 0;
  for (auto b = v.begin(); b != end; ++b) dropped += b->data.size();
  v.erase(v.begin(), end);
  bytes_ -= dropped;
  return dropped;
}

std::vector<int32_t> EventLog::slots() const {
  std::vector<int32_t> out;
  for (const auto& [s, v] : slots_) out.push_back(s);
  return out;
}

std::vector<std::vector<proto::DetBatch>> cut_batches(const std::vector<proto::DetBatch>& v, size_t max_bytes) {
  std::vector<std::vector<proto::DetBatch>> out;
  size_t in_piece = 0;
  for (const proto::DetBatch& b : v) {
    if (out.empty() || (in_piece > 0 && in_piece + b.data.size() > max_bytes)) {
      out.emplace_back();
      in_piece = 0;
    }
    out.back().push_back(b);
    in_piece += b.data.size();
  }
  return out;
}

}  // namespace ftmpi::rte
