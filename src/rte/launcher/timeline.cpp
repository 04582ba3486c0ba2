#include "rte/launcher/timeline.hpp"

#include <cerrno>
#include <cstring>

namespace ftmpi::rte {
namespace {

std::string seconds(uint64_t ns, int64_t offset_ns) {
  char buf[48];
  int64_t d = static_cast<int64_t>(ns) - offset_ns;
  const char* sign = d < 0 ? "-" : "";
  uint64_t a = static_cast<uint64_t>(d < 0 ? -d : d);
  std::snprintf(buf, sizeof buf, "%s%llu.%06llu", sign, static_cast<unsigned long long>(a / 1000000000ull),
                static_cast<unsigned long long>((a % 1000000000ull) / 1000));
  return buf;
}

}  // namespace

std::string json_quote(const std::string& s) {
  std::string out = "\"";
  for (unsigned char c : s) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\t': out += "\\t"; break;
      case '\r': out += "\\r"; break;
      default:
        if (c < 0x20) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\u%04x", c);
          out += buf;
        } else {
          out += static_cast<char>(c);
        }
    }
  }
  return out + "\"";
}

TimelineEvent& TimelineEvent::add(const char* key, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.6f", v);
  return put(key, buf);
}

TimelineEvent& TimelineEvent::add(const char* key, const std::string& v) { return put(key, json_quote(v)); }

TimelineEvent& TimelineEvent::add(const char* key, const std::vector<int64_t>& v) {
  std::string out = "[";
  for (size_t i = 0; i < v.size(); ++i) out += (i ? "," : "") + std::to_string(v[i]);
  return put(key, out + "]");
}

std::string TimelineEvent::format(uint64_t wall_ns, uint64_t start_wall_ns) const {
  std::string out = "{\"t\":" + seconds(wall_ns, static_cast<int64_t>(start_wall_ns)) +
                    ",\"wall\":" + seconds(wall_ns, 0) + ",\"event\":" + json_quote(name_);
  for (const auto& [key, json] : fields_) out += "," + json_quote(key) + ":" + json;
  return out + "}";
}

Timeline::~Timeline() {
  if (file_) std::fclose(file_);
}

bool Timeline::open(const std::string& path, uint64_t start_wall_ns, std::string& err) {
  file_ = std::fopen(path.c_str(), "we");
  if (!file_) {
    err = "cannot write the timeline '" + path + "': " + std::strerror(errno);
    return false;
  }
  start_wall_ns_ = start_wall_ns;
  return true;
}

void Timeline::write(const TimelineEvent& e, uint64_t wall_ns) {
  if (!file_) return;
  std::string line = e.format(wall_ns, start_wall_ns_) + "\n";
  std::fwrite(line.data(), 1, line.size(), file_);
  std::fflush(file_);
}

}  // namespace ftmpi::rte
