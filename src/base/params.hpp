// Run-time parameters. Each is read from the environment (FTMPI_<NAME>), which
// is how the launcher passes options down to daemons and ranks.
#pragma once
#include <cstdint>
#include <string>

namespace ftmpi::params {

int64_t get_int(const char* env_name, int64_t dflt);
bool get_bool(const char* env_name, bool dflt);
std::string get_str(const char* env_name, const char* dflt);
// Sizes accept k/m/g suffixes (powers of 1024).
uint64_t get_size(const char* env_name, uint64_t dflt);
bool parse_size(const std::string& s, uint64_t& out);

}  // namespace ftmpi::params
