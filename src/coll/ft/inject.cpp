#include "coll/ft/inject.hpp"

#include <signal.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "base/log.hpp"
#include "coll/state.hpp"

namespace ftmpi::coll::ft {
namespace {

bool parse_phase(const char* s, size_t n, Phase* out) {
  static const struct {
    const char* name;
    Phase p;
  } kNames[] = {{"start", Phase::kStart},
                {"data", Phase::kData},
                {"vote", Phase::kVote},
                {"coord", Phase::kCoord},
                {"commit", Phase::kCommit}};
  for (const auto& k : kNames)
    if (std::strlen(k.name) == n && std::strncmp(k.name, s, n) == 0) {
      *out = k.p;
      return true;
    }
  return false;
}

std::vector<InjectPoint> parse(const char* spec) {
  std::vector<InjectPoint> pts;
  const char* s = spec;
  while (*s) {
    const char* end = std::strchr(s, ',');
    if (!end) end = s + std::strlen(s);
    const char* colon = static_cast<const char*>(std::memchr(s, ':', static_cast<size_t>(end - s)));
    InjectPoint p{};
    int rank = -1;
    unsigned call = 0, epoch = 0;
    const std::string fields(colon ? colon + 1 : s, static_cast<size_t>(end - (colon ? colon + 1 : s)));
    if (colon && parse_phase(s, static_cast<size_t>(colon - s), &p.phase) &&
        std::sscanf(fields.c_str(), "%d:%u:%u", &rank, &call, &epoch) >= 2) {
      p.rank = rank;
      p.call = call;
      p.epoch = epoch;
      pts.push_back(p);
    } else {
      FTMPI_LOG(kWarn, "coll", "FTMPI_INJECT_AGREE: cannot parse '%.*s'", static_cast<int>(end - s), s);
    }
    s = *end ? end + 1 : end;
  }
  return pts;
}

}  // namespace

std::vector<InjectPoint> inject_points_from_env() {
  const char* spec = std::getenv("FTMPI_INJECT_AGREE");
  return spec && *spec ? parse(spec) : std::vector<InjectPoint>{};
}

void maybe_die(Phase p, const Team& t) {
  const std::vector<InjectPoint>& pts = t.state().inject_points();
  if (pts.empty()) return;
  for (const InjectPoint& pt : pts) {
    // The epoch is part of the point: call numbers restart at 0 in every
    // epoch, so without it a point would fire again after each recovery (a
    // REBUILD victim's new incarnation, or in SHRINK the process that took
    // the victim's rank, would die at the same call of the new epoch).
    if (pt.phase == p && pt.rank == t.comm().rank() && pt.call == t.call_seq() && pt.epoch == t.engine().epoch()) {
      FTMPI_LOG(kInfo, "coll", "FTMPI_INJECT_AGREE: rank %d dies in phase %d of call %u, epoch %u", pt.rank,
                static_cast<int>(p), pt.call, pt.epoch);
      raise(SIGKILL);
      pause();
    }
  }
}

}  // namespace ftmpi::coll::ft
