// Where ranks' stdout/stderr end up: the launcher's own stdout/stderr.
// Untagged, bytes pass through in the order they arrive (a rank's writes of
// up to PIPE_BUF bytes arrive whole). Tagged, every line becomes
// "[rank] line", kept per rank and stream until its newline arrives, so lines
// of different ranks never mix; a partial last line is completed when that
// stream ends or at flush_all().
#pragma once
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <utility>

namespace ftmpi::rte {

class OutputRouter {
 public:
  // stream: 1 stdout, 2 stderr
  using Writer = std::function<void(int stream, const std::string& bytes)>;
  OutputRouter(bool tag, Writer writer) : tag_(tag), writer_(std::move(writer)) {}
  void data(int32_t slot, uint8_t stream, const std::string& bytes);
  void eof(int32_t slot, uint8_t stream);
  void flush_all();

 private:
  void emit_line(int32_t slot, uint8_t stream, const std::string& line);
  bool tag_;
  Writer writer_;
  std::map<std::pair<int32_t, uint8_t>, std::string> partial_;
};

}  // namespace ftmpi::rte
