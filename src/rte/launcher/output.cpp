#include "rte/launcher/output.hpp"

namespace ftmpi::rte {

void OutputRouter::data(int32_t slot, uint8_t stream, const std::string& bytes) {
  std::string& part = partial_[{slot, stream}];
  size_t last_nl = bytes.rfind('\n');
  if (last_nl == std::string::npos) {
    part += bytes;
    return;
  }
  std::string lines = part + bytes.substr(0, last_nl + 1);
  part = bytes.substr(last_nl + 1);
  if (!tag_) {
    writer_(stream, lines);
    return;
  }
  std::string prefix = "[" + std::to_string(slot) + "] ", tagged;
  for (size_t start = 0, nl; (nl = lines.find('\n', start)) != std::string::npos; start = nl + 1)
    tagged += prefix + lines.substr(start, nl + 1 - start);
  writer_(stream, tagged);
}

void OutputRouter::finish(int32_t slot, uint8_t stream, const std::string& part) {
  if (part.empty()) return;
  if (tag_)
    writer_(stream, "[" + std::to_string(slot) + "] " + part + "\n");
  else
    writer_(stream, part);
}

void OutputRouter::eof(int32_t slot, uint8_t stream) {
  auto it = partial_.find({slot, stream});
  if (it == partial_.end()) return;
  finish(slot, stream, it->second);
  partial_.erase(it);
}

void OutputRouter::flush_all() {
  for (auto& [key, part] : partial_) finish(key.first, key.second, part);
  partial_.clear();
}

void OutputRouter::flush_partial() {
  if (tag_) return;
  for (auto& [key, part] : partial_) {
    if (!part.empty()) writer_(key.second, part);
    part.clear();
  }
}

bool OutputRouter::has_partial() const {
  for (const auto& [key, part] : partial_)
    if (!part.empty()) return true;
  return false;
}

void OutputOnce::restart(int32_t slot) {
  for (uint8_t stream : {uint8_t{1}, uint8_t{2}}) counts_[{slot, stream}].seen = 0;
}

void OutputOnce::mark(int32_t slot, uint64_t number) {
  // Kept for every checkpoint (a few bytes each): a store may hand back an
  // older image than the latest.
  marks_[{slot, number}] = At{counts_[{slot, 1}].seen, counts_[{slot, 2}].seen};
}

bool OutputOnce::resume_at(int32_t slot, uint64_t number) {
  auto it = marks_.find({slot, number});
  if (it == marks_.end()) return false;
  counts_[{slot, 1}].seen = it->second.out;
  counts_[{slot, 2}].seen = it->second.err;
  return true;
}

std::string OutputOnce::filter(int32_t slot, uint8_t stream, const std::string& bytes) {
  Count& c = counts_[{slot, stream}];
  uint64_t start = c.seen;
  c.seen += bytes.size();
  if (c.seen <= c.printed) return {};
  size_t skip = start < c.printed ? static_cast<size_t>(c.printed - start) : 0;
  c.printed = c.seen;
  return bytes.substr(skip);
}

}  // namespace ftmpi::rte
