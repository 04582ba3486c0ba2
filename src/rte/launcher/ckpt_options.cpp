#include "rte/launcher/ckpt_options.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cmath>
#include <cstdlib>
#include <cstring>

#include "rte/common/shown.hpp"
#include "rte/proto/ckpt_messages.hpp"

namespace ftmpi::rte {
namespace {

// A decimal number followed by one of `units` (longest first); false on
// anything else, or past `max`.
bool parse_scaled(const std::string& v, std::initializer_list<std::pair<const char*, double>> units, double bare,
                  double max, uint64_t& out) {
  std::string num = v;
  double scale = bare;
  for (const auto& [suffix, s] : units) {
    std::string u = suffix;
    if (num.size() > u.size() && num.compare(num.size() - u.size(), u.size(), u) == 0) {
      num.resize(num.size() - u.size());
      scale = s;
      break;
    }
  }
  if (num.empty() || num.find_first_not_of("0123456789.") != std::string::npos) return false;
  char* end = nullptr;
  double x = std::strtod(num.c_str(), &end);
  if (*end != '\0' || !std::isfinite(x) || x < 0 || x * scale > max) return false;
  out = static_cast<uint64_t>(std::llround(x * scale));
  return true;
}

// Creates `dir` and its parents as needed (like mkdir -p).
bool make_dirs(const std::string& dir) {
  for (size_t at = 1; at <= dir.size(); ++at) {
    if (at != dir.size() && dir[at] != '/') continue;
    std::string part = dir.substr(0, at);
    if (::mkdir(part.c_str(), 0777) != 0 && errno != EEXIST) return false;
  }
  return true;
}

}  // namespace

std::string prepare_disk_dir(std::string& dir, const std::string& option) {
  const std::string& shown_dir = option;
  if (dir[0] != '/') {
    // Daemons and ranks run elsewhere (other hosts, other working directories).
    char cwd[PATH_MAX];
    if (!::getcwd(cwd, sizeof cwd)) return shown_dir + ": cannot resolve a relative directory: " + std::strerror(errno);
    dir = std::string(cwd) + "/" + dir;
  }
  while (dir.size() > 1 && dir.back() == '/') dir.pop_back();
  if (!make_dirs(dir)) return shown_dir + ": cannot create the directory: " + std::strerror(errno);
  struct stat st {};
  if (::stat(dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) return shown_dir + ": not a directory";
  if (::access(dir.c_str(), W_OK | X_OK) != 0) return shown_dir + ": not writable: " + std::strerror(errno);
  return "";
}

std::string memory_store_dir() { return std::string(kMemoryStoreDir) + "-" + std::to_string(::getuid()); }

bool parse_ckpt_duration(const std::string& v, uint64_t& ns) {
  return parse_scaled(v, {{"ms", 1e6}, {"s", 1e9}, {"m", 60e9}, {"h", 3600e9}, {"d", 86400e9}}, 1e9, 1e18, ns);
}

bool parse_ckpt_bytes(const std::string& v, uint64_t& bytes) {
  return parse_scaled(v, {{"k", 1024.0}, {"m", 1048576.0}, {"g", 1073741824.0}, {"K", 1024.0}, {"M", 1048576.0},
                          {"G", 1073741824.0}},
                      1.0, 1e15, bytes);
}

bool take_ckpt_option(const std::string& a, const std::string* next, CkptOptions& o, bool& used_next,
                      std::string& err) {
  static const char* const kNames[] = {"--ckpt-interval", "--ckpt-store",          "--ckpt-policy",
                                       "--ckpt-log-trigger", "--ckpt-max-concurrent", "--ckpt-gc",
                                       "--mtbf"};
  std::string name, v;
  used_next = false;
  if (a == "--ckpt-keep") {
    o.given = true;
    o.keep = true;
    if (o.first_given.empty()) o.first_given = a;
    return true;
  }
  for (const char* n : kNames) {
    std::string s = n;
    if (a == s) {
      name = s;
      if (!next) {
        err = s + " needs a value";
        return true;
      }
      v = *next;
      used_next = true;
      break;
    }
    if (a.compare(0, s.size() + 1, s + "=") == 0) {
      name = s;
      v = a.substr(s.size() + 1);
      break;
    }
  }
  if (name.empty()) return false;
  o.given = true;
  if (o.first_given.empty()) o.first_given = name;
  if (name == "--ckpt-interval") {
    if (v == "auto") {
      o.interval_auto = true;
    } else if (!parse_ckpt_duration(v, o.interval_ns) || o.interval_ns < 1'000'000) {
      err = "--ckpt-interval=" + shown(v, false) + " is not an interval; expected e.g. 30s, 500ms, 2m or auto";
    }
  } else if (name == "--ckpt-store") {
    if (v == "local") {
      o.store = CkptStore::kLocal;
    } else if (v == "buddy") {
      o.store = CkptStore::kBuddy;
    } else if (v == "memory") {
      o.store = CkptStore::kMemory;
      o.disk_dir = memory_store_dir();
    } else if (v.rfind("disk:", 0) == 0 && v.size() > 5) {
      o.store = CkptStore::kDisk;
      o.disk_dir = v.substr(5);
    } else {
      err = "--ckpt-store=" + shown(v, false) + " is not a store; expected local, memory, buddy or disk:DIR";
    }
  } else if (name == "--ckpt-policy") {
    if (v == "round-robin") {
      o.policy = CkptPolicy::kRoundRobin;
    } else if (v == "adaptive") {
      o.policy = CkptPolicy::kAdaptive;
    } else {
      err = "--ckpt-policy=" + shown(v, false) + " is not a policy; expected round-robin or adaptive";
    }
  } else if (name == "--ckpt-log-trigger") {
    if (!parse_ckpt_bytes(v, o.log_trigger) || o.log_trigger == 0)
      err = "--ckpt-log-trigger=" + shown(v, false) + " is not a size; expected e.g. 64m or 1g";
  } else if (name == "--ckpt-max-concurrent") {
    uint64_t n = 0;
    if (v.empty() || v.size() > 6 || v.find_first_not_of("0123456789") != std::string::npos ||
        (n = std::strtoull(v.c_str(), nullptr, 10)) == 0)
      err = "--ckpt-max-concurrent needs a positive number";
    o.max_concurrent = static_cast<int>(n);
  } else if (name == "--ckpt-gc") {
    if (v == "on" || v == "off")
      o.gc = v == "on";
    else
      err = "--ckpt-gc=" + shown(v, false) + " is not on or off";
  } else {  // --mtbf
    if (!parse_ckpt_duration(v, o.mtbf_ns) || o.mtbf_ns < 1'000'000'000)
      err = "--mtbf=" + shown(v, false) + " is not a duration of at least 1s; expected e.g. 2h, 45m or 90s";
  }
  return true;
}

std::string check_ckpt_options(CkptOptions& o, bool transparent) {
  if (!o.given) return "";
  if (!transparent) return o.first_given + " needs --ft-transparent (checkpoints serve transparent mode)";
  if (o.interval_auto && o.mtbf_ns == 0) return "--ckpt-interval=auto needs --mtbf (the mean time between failures)";
  if (o.keep && o.store != CkptStore::kDisk) return "--ckpt-keep needs --ckpt-store=disk:DIR (only disk images outlive the job)";
  o.on = o.interval_auto || o.interval_ns > 0 || o.log_trigger > 0;
  if (!o.on && o.mtbf_ns == 0)
    return o.first_given + " needs --ckpt-interval or --ckpt-log-trigger (when to checkpoint)";
  if (!o.on) return "--mtbf needs --ckpt-interval=auto";
  if (o.store == CkptStore::kDisk) return prepare_disk_dir(o.disk_dir, "--ckpt-store=disk:" + shown(o.disk_dir, false));
  if (o.store == CkptStore::kMemory) return prepare_disk_dir(o.disk_dir, "--ckpt-store=memory (" + o.disk_dir + ")");
  return "";
}

std::string ckpt_tunables(const CkptOptions& o, const char* current, bool opt_out) {
  if (!o.on || opt_out || o.store == CkptStore::kMemory) return "";
  std::string cur = current ? current : "";
  if (cur.find("glibc.malloc.hugetlb") != std::string::npos) return "";
  return "GLIBC_TUNABLES=" + (cur.empty() ? std::string() : cur + ":") + "glibc.malloc.hugetlb=1";
}

std::string ckpt_store_env(const CkptOptions& o) {
  if (!o.on) return "";
  switch (o.store) {
    case CkptStore::kBuddy:
      return std::string(proto::kCkptStoreEnv) + "=buddy";
    case CkptStore::kDisk:
      return std::string(proto::kCkptStoreEnv) + "=disk:" + o.disk_dir;
    case CkptStore::kMemory:
      return std::string(proto::kCkptStoreEnv) + "=memory:" + o.disk_dir;
    default:
      return "";
  }
}

CkptScheduleConfig schedule_config(const CkptOptions& o) {
  CkptScheduleConfig c;
  c.policy = o.policy;
  c.interval_auto = o.interval_auto;
  c.interval_ns = o.interval_ns;
  c.mtbf_ns = o.mtbf_ns;
  c.log_trigger = o.log_trigger;
  c.max_concurrent = o.max_concurrent;
  return c;
}

}  // namespace ftmpi::rte
