#include "base/log.hpp"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace ftmpi::log {
namespace {
char g_identity[64] = "ftmpi";
int g_level = -1;
}  // namespace

int level() {
  if (g_level < 0) {
    const char* v = std::getenv("FTMPI_DEBUG");
    g_level = v ? std::atoi(v) : 0;
  }
  return g_level;
}

void set_identity(const char* who) {
  std::snprintf(g_identity, sizeof g_identity, "%s", who);
}

void emit(Level lvl, const char* subsys, const char* fmt, ...) {
  static const char* const names[] = {"error", "warn", "info", "debug"};
  char line[1024];
  int n = std::snprintf(line, sizeof line, "[%s %s %s] ", g_identity, names[lvl], subsys);
  va_list ap;
  va_start(ap, fmt);
  if (n >= 0 && n < static_cast<int>(sizeof line)) n += std::vsnprintf(line + n, sizeof line - n, fmt, ap);
  va_end(ap);
  if (n < 0) return;
  if (n > static_cast<int>(sizeof line) - 2) n = sizeof line - 2;
  line[n++] = '\n';
  // One write per line so lines of concurrent processes do not interleave.
  ssize_t ignored = ::write(STDERR_FILENO, line, static_cast<size_t>(n));
  (void)ignored;
}

}  // namespace ftmpi::log
