// `ftmpirun --timeline FILE`: every runtime event as one JSON object per line,
//   {"t":1.234567,"wall":1718000000.123456,"event":"death","rank":3,...}
// t: seconds since the launcher started; wall: seconds since the Unix epoch
// (CLOCK_REALTIME, taken where the event happened: a daemon's traces carry
// their own stamp). The formatting is pure and unit-tested; Timeline only
// adds the file.
#pragma once
#include <cstdint>
#include <cstdio>
#include <string>
#include <utility>
#include <vector>

namespace ftmpi::rte {

class TimelineEvent {
 public:
  explicit TimelineEvent(std::string name) : name_(std::move(name)) {}
  TimelineEvent& add(const char* key, int64_t v) { return put(key, std::to_string(v)); }
  TimelineEvent& add(const char* key, int32_t v) { return put(key, std::to_string(v)); }
  TimelineEvent& add(const char* key, uint32_t v) { return put(key, std::to_string(v)); }
  TimelineEvent& add(const char* key, uint64_t v) { return put(key, std::to_string(v)); }
  TimelineEvent& add(const char* key, double v);
  TimelineEvent& add(const char* key, const std::string& v);
  TimelineEvent& add(const char* key, const char* v) { return add(key, std::string(v)); }
  TimelineEvent& add(const char* key, const std::vector<int64_t>& v);
  // One line, without the newline. `start_wall_ns`: the job's t = 0.
  std::string format(uint64_t wall_ns, uint64_t start_wall_ns) const;
  const std::string& name() const { return name_; }

 private:
  TimelineEvent& put(const char* key, std::string json) {
    fields_.emplace_back(key, std::move(json));
    return *this;
  }
  std::string name_;
  std::vector<std::pair<std::string, std::string>> fields_;  // key, value as JSON text
};

// JSON string escaping (quotes, backslash, control characters).
std::string json_quote(const std::string& s);

class Timeline {
 public:
  Timeline() = default;
  ~Timeline();
  Timeline(const Timeline&) = delete;
  Timeline& operator=(const Timeline&) = delete;
  // Creates/truncates `path`; false with `err` if it cannot.
  bool open(const std::string& path, uint64_t start_wall_ns, std::string& err);
  bool enabled() const { return file_ != nullptr; }
  // Writes one line, flushed at once (the file is useful while the job runs).
  void write(const TimelineEvent& e, uint64_t wall_ns);

 private:
  FILE* file_ = nullptr;
  uint64_t start_wall_ns_ = 0;
};

}  // namespace ftmpi::rte
