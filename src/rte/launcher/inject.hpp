// Fault injection specs (`ftmpirun --inject SPEC`), parsed by a pure
// function so that every rule is unit-tested:
//
//   kill rank=R [at=T] [every=P count=N]   SIGKILL whatever process holds slot R
//   kill random [at=T] [every=P] [count=N] a live rank chosen at random each time
//   kill host=NAME [at=T]                  the daemon of that host and all its ranks
//
// Times are seconds after every rank finished MPI_Init (the card exchange):
// "2.5", "2.5s" or "2500ms". The first kill is at `at` (default: `every`, or
// 0 without it), then every `every` until `count` kills (default 1) were made.
// count > 1 needs every. Random choices come from a seeded generator
// (--inject-seed) and only ever pick live ranks, never the last live one.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace ftmpi::rte {

struct InjectSpec {
  enum class Target { kRank, kRandom, kHost };
  Target target = Target::kRank;
  int32_t rank = -1;  // kRank
  std::string host;   // kHost: the name as given to --host / --hostfile
  uint64_t at_ms = 0;
  uint64_t every_ms = 0;  // 0: a single kill
  int count = 1;
  std::string text;  // the spec as written, for messages and the timeline
  friend bool operator==(const InjectSpec&, const InjectSpec&) = default;
};

// False with `err` (one line, without the program name) on anything it does not accept.
bool parse_inject(const std::string& spec, InjectSpec& out, std::string& err);

// Time of the k-th kill (k from 0) of `s`, in ms after MPI_Init finished everywhere.
inline uint64_t inject_time_ms(const InjectSpec& s, int k) {
  return s.at_ms + static_cast<uint64_t>(k) * s.every_ms;
}

// Deterministic choices for `kill random`: a 64-bit xorshift generator, so a
// seed gives the same picks with every compiler and library.
class InjectRandom {
 public:
  explicit InjectRandom(uint64_t seed) : state_(seed ? seed : 0x9e3779b97f4a7c15ull) {}
  uint64_t next();
  // A slot from `live` (ascending), or -1 when fewer than two are live: a
  // random kill never takes the last live process.
  int32_t pick(const std::vector<int32_t>& live);

 private:
  uint64_t state_;
};

}  // namespace ftmpi::rte
