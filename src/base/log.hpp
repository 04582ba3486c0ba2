// Diagnostics to stderr, switched on per run with FTMPI_DEBUG=<level> (0-3).
// Messages meant for users go through the launcher, not through here.
#pragma once
#include <cstdarg>

namespace ftmpi::log {

enum Level { kError = 0, kWarn = 1, kInfo = 2, kDebug = 3 };

int level();
// Identifies this process in every line, e.g. "rank 3" or "ftmpid@h1".
void set_identity(const char* who);
void emit(Level lvl, const char* subsys, const char* fmt, ...) __attribute__((format(printf, 3, 4)));

}  // namespace ftmpi::log

#define FTMPI_LOG(lvl, subsys, ...)                                           \
  do {                                                                        \
    if (::ftmpi::log::level() >= ::ftmpi::log::lvl) ::ftmpi::log::emit(::ftmpi::log::lvl, subsys, __VA_ARGS__); \
  } while (0)
