// Fault-tolerance modes chosen at launch (DESIGN §7). They travel from the
// launcher through the daemons to every rank (BOOT), so they live here in the
// protocol layer; rte/client/client.hpp re-exports them to the library.
// The numeric values are wire values: never renumber.
#pragma once
#include <cstdint>
#include <string_view>

namespace ftmpi::rte {

enum class CommMode : uint8_t { kAbort = 0, kRebuild = 1, kBlank = 2, kShrink = 3 };
enum class MsgMode : uint8_t { kReset = 0, kCont = 1 };
enum class CollMode : uint8_t { kNonAtomic = 0, kAtomic = 1 };
enum class RecoveryMode : uint8_t { kManual = 0, kAuto = 1, kIgnore = 2 };

struct Modes {
  CommMode comm = CommMode::kAbort;
  MsgMode msg = MsgMode::kReset;
  CollMode coll = CollMode::kNonAtomic;
  RecoveryMode recovery = RecoveryMode::kManual;
  friend bool operator==(const Modes&, const Modes&) = default;
};

// Names as users write them on the command line ("abort", "cont", ...).
const char* mode_name(CommMode m);
const char* mode_name(MsgMode m);
const char* mode_name(CollMode m);
const char* mode_name(RecoveryMode m);
bool parse_mode(std::string_view s, CommMode& out);
bool parse_mode(std::string_view s, MsgMode& out);
bool parse_mode(std::string_view s, CollMode& out);
bool parse_mode(std::string_view s, RecoveryMode& out);
// Checks raw wire bytes before they are cast to the enums.
bool modes_from_wire(const uint8_t raw[4], Modes& out);

}  // namespace ftmpi::rte
