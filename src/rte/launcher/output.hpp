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

// Transparent mode: every byte a slot writes is printed once, whichever
// incarnation writes it. A restarted incarnation replays the program from its
// start and writes the same bytes again (piecewise determinism); what an
// earlier incarnation's output already delivered here is dropped. One woken
// from a checkpoint image continues from the stream's position at the fork. Counted in
// the launcher, where output is printed, so that nothing is lost or doubled
// when a whole host (and its daemon) is lost.
class OutputOnce {
 public:
  // Slot `slot`'s next incarnation starts writing from its first byte again.
  void restart(int32_t slot);
  // Checkpoint `number` of `slot` was taken now: everything its current
  // incarnation wrote before the fork has passed filter().
  void mark(int32_t slot, uint64_t number);
  // Slot `slot`'s next incarnation is the image of checkpoint `number`: it
  // writes from where the stream was at that fork (after restart()).
  // False if that checkpoint was never marked (it starts from 0 then).
  bool resume_at(int32_t slot, uint64_t number);
  // The part of `bytes` (stream 1 or 2 of `slot`) not printed yet.
  std::string filter(int32_t slot, uint8_t stream, const std::string& bytes);

 private:
  struct Count {
    uint64_t printed = 0;  // by every incarnation so far
    uint64_t seen = 0;     // written by the current incarnation
  };
  std::map<std::pair<int32_t, uint8_t>, Count> counts_;
  struct At {
    uint64_t out = 0, err = 0;
  };
  std::map<std::pair<int32_t, uint64_t>, At> marks_;  // by (slot, checkpoint)
};

}  // namespace ftmpi::rte
