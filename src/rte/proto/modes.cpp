#include "rte/proto/modes.hpp"

#include <array>
#include <utility>

namespace ftmpi::rte {
namespace {

template <typename E, size_t N>
using NameTable = std::array<std::pair<E, const char*>, N>;

constexpr NameTable<CommMode, 4> kComm{{{CommMode::kAbort, "abort"},
                                        {CommMode::kRebuild, "rebuild"},
                                        {CommMode::kBlank, "blank"},
                                        {CommMode::kShrink, "shrink"}}};
constexpr NameTable<MsgMode, 2> kMsg{{{MsgMode::kReset, "reset"}, {MsgMode::kCont, "cont"}}};
constexpr NameTable<CollMode, 2> kColl{
    {{CollMode::kNonAtomic, "nonatomic"}, {CollMode::kAtomic, "atomic"}}};
constexpr NameTable<RecoveryMode, 3> kRecovery{{{RecoveryMode::kManual, "manual"},
                                                {RecoveryMode::kAuto, "auto"},
                                                {RecoveryMode::kIgnore, "ignore"}}};

template <typename E, size_t N>
const char* lookup_name(const NameTable<E, N>& t, E v) {
  for (const auto& [e, n] : t)
    if (e == v) return n;
  return "?";
}

template <typename E, size_t N>
bool lookup_value(const NameTable<E, N>& t, std::string_view s, E& out) {
  for (const auto& [e, n] : t) {
    if (s == n) {
      out = e;
      return true;
    }
  }
  return false;
}

constexpr NameTable<Transparent, 2> kTransparent{
    {{Transparent::kNone, "none"}, {Transparent::kPessimist, "pessimist"}}};

}  // namespace

const char* mode_name(CommMode m) { return lookup_name(kComm, m); }
const char* mode_name(MsgMode m) { return lookup_name(kMsg, m); }
const char* mode_name(CollMode m) { return lookup_name(kColl, m); }
const char* mode_name(RecoveryMode m) { return lookup_name(kRecovery, m); }
bool parse_mode(std::string_view s, CommMode& out) { return lookup_value(kComm, s, out); }
bool parse_mode(std::string_view s, MsgMode& out) { return lookup_value(kMsg, s, out); }
bool parse_mode(std::string_view s, CollMode& out) { return lookup_value(kColl, s, out); }
bool parse_mode(std::string_view s, RecoveryMode& out) { return lookup_value(kRecovery, s, out); }
const char* mode_name(Transparent m) { return lookup_name(kTransparent, m); }
bool parse_mode(std::string_view s, Transparent& out) {
  if (s == "1") {
    out = Transparent::kPessimist;
    return true;
  }
  return s != "none" && lookup_value(kTransparent, s, out);
}

bool modes_from_wire(const uint8_t raw[kModesWireSize], Modes& out) {
  if (raw[0] > 3 || raw[1] > 1 || raw[2] > 1 || raw[3] > 2 || raw[4] > 1) return false;
  out.comm = static_cast<CommMode>(raw[0]);
  out.msg = static_cast<MsgMode>(raw[1]);
  out.coll = static_cast<CollMode>(raw[2]);
  out.recovery = static_cast<RecoveryMode>(raw[3]);
  out.transparent = static_cast<Transparent>(raw[4]);
  return true;
}

}  // namespace ftmpi::rte
