// User input echoed in a one-line message (a bad option, host, program):
// quoted, cut to kShownMax bytes and with control characters replaced, so a
// 100 KB argument still gives a short line that cannot forge other lines.
#pragma once
#include <cstddef>
#include <string>

namespace ftmpi::rte {

inline constexpr size_t kShownMax = 64;

inline std::string shown(const std::string& s, bool quoted = true) {
  std::string out = quoted ? "'" : "";
  for (size_t i = 0; i < s.size() && i < kShownMax; ++i) {
    unsigned char c = static_cast<unsigned char>(s[i]);
    out += c < 0x20 || c == 0x7f ? '?' : s[i];
  }
  if (quoted) out += "'";
  if (s.size() > kShownMax) out += " (cut; " + std::to_string(s.size()) + " bytes)";
  return out;
}

}  // namespace ftmpi::rte
