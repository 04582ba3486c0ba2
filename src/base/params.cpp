#include "base/params.hpp"

#include <cstdlib>
#include <cstring>

namespace ftmpi::params {

int64_t get_int(const char* env_name, int64_t dflt) {
  const char* v = std::getenv(env_name);
  if (!v || !*v) return dflt;
  char* end = nullptr;
  long long x = std::strtoll(v, &end, 0);
  return (end && *end == '\0') ? x : dflt;
}

bool get_bool(const char* env_name, bool dflt) {
  const char* v = std::getenv(env_name);
  if (!v || !*v) return dflt;
  if (!std::strcmp(v, "1") || !strcasecmp(v, "yes") || !strcasecmp(v, "true") || !strcasecmp(v, "on"))
    return true;
  if (!std::strcmp(v, "0") || !strcasecmp(v, "no") || !strcasecmp(v, "false") || !strcasecmp(v, "off"))
    return false;
  return dflt;
}

std::string get_str(const char* env_name, const char* dflt) {
  const char* v = std::getenv(env_name);
  return (v && *v) ? std::string(v) : std::string(dflt ? dflt : "");
}

bool parse_size(const std::string& s, uint64_t& out) {
  if (s.empty()) return false;
  char* end = nullptr;
  unsigned long long x = std::strtoull(s.c_str(), &end, 10);
  if (end == s.c_str()) return false;
  uint64_t mul = 1;
  if (*end == 'k' || *end == 'K') mul = 1ull << 10, ++end;
  else if (*end == 'm' || *end == 'M') mul = 1ull << 20, ++end;
  else if (*end == 'g' || *end == 'G') mul = 1ull << 30, ++end;
  if (*end == 'b' || *end == 'B') ++end;
  if (*end != '\0') return false;
  out = x * mul;
  return true;
}

uint64_t get_size(const char* env_name, uint64_t dflt) {
  const char* v = std::getenv(env_name);
  uint64_t out;
  return (v && parse_size(v, out)) ? out : dflt;
}

}  // namespace ftmpi::params
