// Where ranks' stdout/stderr end up: the launcher's own stdout/stderr.
// Output is kept per rank and stream until a newline arrives, so lines of
// different ranks never mix even though a rank's stdio flushes a pipe in
// blocks that cut lines. With tagging every line becomes "[rank] line".
// A last line without newline is written when its stream ends (tagged: with
// a newline added) or at flush_all(); untagged, flush_partial() also writes
// it earlier (the launcher calls it when output pauses, so prompts show).
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
  // Untagged only: writes held partial lines as they are.
  void flush_partial();
  bool has_partial() const;

 private:
  void finish(int32_t slot, uint8_t stream, const std::string& part);
  bool tag_;
  Writer writer_;
  std::map<std::pair<int32_t, uint8_t>, std::string> partial_;
};

}  // namespace ftmpi::rte
