#include "rte/launcher/inject.hpp"

#include <cmath>
#include <cstdlib>
#include <sstream>

#include "rte/common/shown.hpp"

namespace ftmpi::rte {
namespace {

// "2.5", "2.5s", "250ms" -> milliseconds; false on anything else.
bool parse_duration(const std::string& v, uint64_t& ms) {
  std::string num = v;
  double scale = 1000.0;
  if (num.size() > 2 && num.compare(num.size() - 2, 2, "ms") == 0) {
    num.resize(num.size() - 2);
    scale = 1.0;
  } else if (num.size() > 1 && num.back() == 's') {
    num.pop_back();
  }
  if (num.empty() || num.find_first_not_of("0123456789.") != std::string::npos) return false;
  char* end = nullptr;
  double x = std::strtod(num.c_str(), &end);
  if (*end != '\0' || !std::isfinite(x) || x < 0 || x * scale > 1e12) return false;
  ms = static_cast<uint64_t>(std::llround(x * scale));
  return true;
}

bool parse_count(const std::string& v, int& out) {
  if (v.empty() || v.size() > 6 || v.find_first_not_of("0123456789") != std::string::npos) return false;
  out = std::atoi(v.c_str());
  return true;
}

}  // namespace

bool parse_inject(const std::string& spec, InjectSpec& out, std::string& err) {
  out = InjectSpec{};
  out.text = spec;
  std::istringstream in(spec);
  std::vector<std::string> words;
  for (std::string w; in >> w;) words.push_back(w);
  auto fail = [&](const std::string& why) {
    err = "--inject " + shown(spec) + ": " + why;
    return false;
  };
  if (words.empty() || words[0] != "kill") return fail("must start with 'kill'");
  bool have_target = false, have_at = false, have_every = false, have_count = false;
  for (size_t i = 1; i < words.size(); ++i) {
    const std::string& w = words[i];
    if (w == "random") {
      if (have_target) return fail("more than one target");
      have_target = true;
      out.target = InjectSpec::Target::kRandom;
      continue;
    }
    size_t eq = w.find('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == w.size())
      return fail("expected key=value, 'random', got " + shown(w));
    std::string key = w.substr(0, eq), v = w.substr(eq + 1);
    if (key == "rank" || key == "host") {
      if (have_target) return fail("more than one target");
      have_target = true;
      if (key == "rank") {
        int r;
        if (!parse_count(v, r)) return fail("rank must be a number, not " + shown(v));
        out.target = InjectSpec::Target::kRank;
        out.rank = r;
      } else {
        out.target = InjectSpec::Target::kHost;
        out.host = v;
      }
    } else if (key == "at") {
      if (have_at) return fail("'at' given twice");
      if (!parse_duration(v, out.at_ms)) return fail("bad time " + shown(v) + " (e.g. 2.5s or 300ms)");
      have_at = true;
    } else if (key == "every") {
      if (have_every) return fail("'every' given twice");
      if (!parse_duration(v, out.every_ms) || out.every_ms == 0)
        return fail("bad period " + shown(v) + " (e.g. 1s or 500ms, not 0)");
      have_every = true;
    } else if (key == "count") {
      if (have_count) return fail("'count' given twice");
      if (!parse_count(v, out.count) || out.count < 1) return fail("count must be a positive number, not " + shown(v));
      have_count = true;
    } else {
      return fail("unknown key " + shown(key));
    }
  }
  if (!have_target) return fail("no target: give rank=R, random or host=NAME");
  if (out.count > 1 && !have_every) return fail("count=" + std::to_string(out.count) + " needs every=PERIOD");
  if (out.target == InjectSpec::Target::kHost && (out.count > 1 || have_every))
    return fail("a host can be killed only once");
  if (!have_at) out.at_ms = out.every_ms;
  return true;
}

uint64_t InjectRandom::next() {
  state_ ^= state_ << 13;
  state_ ^= state_ >> 7;
  state_ ^= state_ << 17;
  return state_;
}

int32_t InjectRandom::pick(const std::vector<int32_t>& live) {
  if (live.size() < 2) return -1;
  return live[static_cast<size_t>(next() % live.size())];
}

}  // namespace ftmpi::rte
