// Fault-tolerance modes chosen at launch (DESIGN §7). They travel from the
// launcher through the daemons to every rank (BOOT), so they live here in the
// protocol layer; rte/client/client.hpp re-exports them to the library.
// The numeric values are wire values: never renumber.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string_view>

namespace ftmpi::rte {

enum class CommMode : uint8_t { kAbort = 0, kRebuild = 1, kBlank = 2, kShrink = 3 };
enum class MsgMode : uint8_t { kReset = 0, kCont = 1 };
enum class CollMode : uint8_t { kNonAtomic = 0, kAtomic = 1 };
enum class RecoveryMode : uint8_t { kManual = 0, kAuto = 1, kIgnore = 2 };
// Transparent mode (DESIGN §8): the runtime restarts dead processes and the
// logging module replays them; an alternative to the FT-MPI modes above.
enum class Transparent : uint8_t { kNone = 0, kPessimist = 1 };

struct Modes {
  CommMode comm = CommMode::kAbort;
  MsgMode msg = MsgMode::kReset;
  CollMode coll = CollMode::kNonAtomic;
  RecoveryMode recovery = RecoveryMode::kManual;
  Transparent transparent = Transparent::kNone;
  bool transparent_mode() const { return transparent != Transparent::kNone; }
  friend bool operator==(const Modes&, const Modes&) = default;
};

// Names as users write them on the command line ("abort", "cont", ...).
const char* mode_name(CommMode m);
const char* mode_name(MsgMode m);
const char* mode_name(CollMode m);
const char* mode_name(RecoveryMode m);
const char* mode_name(Transparent m);
bool parse_mode(std::string_view s, CommMode& out);
bool parse_mode(std::string_view s, MsgMode& out);
bool parse_mode(std::string_view s, CollMode& out);
bool parse_mode(std::string_view s, RecoveryMode& out);
// "pessimist", or "1" for the default protocol (FTMPI_TRANSPARENT=1).
bool parse_mode(std::string_view s, Transparent& out);
// Wire form (spec/wire-control.md, Modes): comm, msg, coll, recovery, transparent.
inline constexpr size_t kModesWireSize = 5;
// Checks raw wire bytes before they are cast to the enums.
bool modes_from_wire(const uint8_t raw[kModesWireSize], Modes& out);

}  // namespace ftmpi::rte
