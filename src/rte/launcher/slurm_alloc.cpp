#include "rte/launcher/slurm_alloc.hpp"

#include <cctype>

namespace ftmpi::rte {
namespace {

bool all_digits(const std::string& s) {
  if (s.empty() || s.size() > 9) return false;
  for (char c : s)
    if (!std::isdigit(static_cast<unsigned char>(c))) return false;
  return true;
}

// Splits at commas that are not inside brackets.
std::vector<std::string> split_top(const std::string& s) {
  std::vector<std::string> parts;
  std::string cur;
  int depth = 0;
  for (char c : s) {
    if (c == '[') ++depth;
    if (c == ']') --depth;
    if (c == ',' && depth == 0) {
      parts.push_back(cur);
      cur.clear();
    } else {
      cur.push_back(c);
    }
  }
  parts.push_back(cur);
  return parts;
}

// "01-03" or "7" inside brackets, appended with the prefix and suffix.
bool expand_range(const std::string& prefix, const std::string& range, const std::string& suffix,
                  std::vector<std::string>& out) {
  size_t dash = range.find('-');
  std::string lo = range.substr(0, dash), hi = dash == std::string::npos ? lo : range.substr(dash + 1);
  if (!all_digits(lo) || !all_digits(hi)) return false;
  long a = std::stol(lo), b = std::stol(hi);
  if (b < a || b - a > 100000) return false;
  size_t width = lo.size();
  for (long i = a; i <= b; ++i) {
    std::string n = std::to_string(i);
    if (n.size() < width) n.insert(0, width - n.size(), '0');
    out.push_back(prefix + n + suffix);
  }
  return true;
}

}  // namespace

bool expand_slurm_hostlist(const std::string& list, std::vector<std::string>& out, std::string& err) {
  out.clear();
  for (const std::string& part : split_top(list)) {
    if (part.empty()) continue;
    size_t open = part.find('[');
    if (open == std::string::npos) {
      if (part.find(']') != std::string::npos) {
        err = "cannot read the node list '" + list + "'";
        return false;
      }
      out.push_back(part);
      continue;
    }
    size_t close = part.find(']', open);
    if (close == std::string::npos || part.find('[', open + 1) < close) {
      err = "cannot read the node list '" + list + "'";
      return false;
    }
    std::string prefix = part.substr(0, open), suffix = part.substr(close + 1);
    if (suffix.find_first_of("[]") != std::string::npos) {
      err = "cannot read the node list '" + list + "' (more than one bracket group in a name)";
      return false;
    }
    std::string inner = part.substr(open + 1, close - open - 1);
    size_t start = 0;
    for (;;) {
      size_t comma = inner.find(',', start);
      if (!expand_range(prefix, inner.substr(start, comma - start), suffix, out)) {
        err = "cannot read the node list '" + list + "'";
        return false;
      }
      if (comma == std::string::npos) break;
      start = comma + 1;
    }
  }
  if (out.empty()) {
    err = "empty node list '" + list + "'";
    return false;
  }
  return true;
}

bool expand_slurm_counts(const std::string& counts, std::vector<int>& out, std::string& err) {
  out.clear();
  size_t start = 0;
  for (;;) {
    size_t comma = counts.find(',', start);
    std::string item = counts.substr(start, comma - start);
    std::string n = item, rep = "1";
    size_t paren = item.find("(x");
    if (paren != std::string::npos) {
      if (item.back() != ')') break;
      n = item.substr(0, paren);
      rep = item.substr(paren + 2, item.size() - paren - 3);
    }
    if (!all_digits(n) || !all_digits(rep) || std::stol(n) < 1 || std::stol(rep) < 1 ||
        out.size() + static_cast<size_t>(std::stol(rep)) > 100000) {
      err = "cannot read the task counts '" + counts + "'";
      return false;
    }
    out.insert(out.end(), static_cast<size_t>(std::stol(rep)), static_cast<int>(std::stol(n)));
    if (comma == std::string::npos) return true;
    start = comma + 1;
  }
  err = "cannot read the task counts '" + counts + "'";
  return false;
}

bool read_slurm_allocation(const EnvLookup& env, SlurmAllocation& out, std::string& err) {
  out = SlurmAllocation{};
  const char* id = env("SLURM_JOB_ID");
  if (!id || !*id) return true;
  out.inside = true;
  out.job_id = id;
  const char* nodes = env("SLURM_JOB_NODELIST");
  if (!nodes || !*nodes) nodes = env("SLURM_NODELIST");
  if (!nodes || !*nodes) {
    err = "inside Slurm job " + out.job_id + " but SLURM_JOB_NODELIST is not set";
    return false;
  }
  std::vector<std::string> names;
  if (!expand_slurm_hostlist(nodes, names, err)) return false;
  // Tasks per node when the allocation asked for tasks (salloc -n), else its CPUs.
  const char* per = env("SLURM_TASKS_PER_NODE");
  if (!per || !*per) per = env("SLURM_JOB_CPUS_PER_NODE");
  std::vector<int> slots;
  if (per && *per) {
    if (!expand_slurm_counts(per, slots, err)) return false;
    if (slots.size() != names.size()) {
      err = "Slurm gives " + std::to_string(names.size()) + " nodes but " + std::to_string(slots.size()) +
            " task counts ('" + per + "')";
      return false;
    }
  } else {
    slots.assign(names.size(), 1);
  }
  for (size_t i = 0; i < names.size(); ++i) out.hosts.push_back(HostSpec{names[i], slots[i]});
  return true;
}

}  // namespace ftmpi::rte
