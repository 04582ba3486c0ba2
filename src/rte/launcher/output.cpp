#include "rte/launcher/output.hpp"

namespace ftmpi::rte {

void OutputRouter::emit_line(int32_t slot, uint8_t stream, const std::string& line) {
  writer_(stream, "[" + std::to_string(slot) + "] " + line + "\n");
}

void OutputRouter::data(int32_t slot, uint8_t stream, const std::string& bytes) {
  if (!tag_) {
    writer_(stream, bytes);
    return;
  }
  std::string& part = partial_[{slot, stream}];
  size_t start = 0;
  for (size_t nl; (nl = bytes.find('\n', start)) != std::string::npos; start = nl + 1) {
    part.append(bytes, start, nl - start);
    emit_line(slot, stream, part);
    part.clear();
  }
  part.append(bytes, start, std::string::npos);
}

void OutputRouter::eof(int32_t slot, uint8_t stream) {
  auto it = partial_.find({slot, stream});
  if (it == partial_.end()) return;
  if (!it->second.empty()) emit_line(slot, stream, it->second);
  partial_.erase(it);
}

void OutputRouter::flush_all() {
  for (auto& [key, part] : partial_)
    if (!part.empty()) emit_line(key.first, key.second, part);
  partial_.clear();
}

}  // namespace ftmpi::rte
