#include "rte/launcher/ckpt_report.hpp"

#include <algorithm>
#include <cstdio>

namespace ftmpi::rte {
namespace {

std::string mib(uint64_t bytes) {
  char b[32];
  std::snprintf(b, sizeof b, "%.1f MiB", static_cast<double>(bytes) / (1 << 20));
  return b;
}

std::string ms(uint64_t ns) {
  char b[32];
  std::snprintf(b, sizeof b, "%.1f ms", static_cast<double>(ns) / 1e6);
  return b;
}

// Pause per GiB of resident memory: the figure of merit for fork.
std::string per_gib(uint64_t pause_ns, uint64_t resident) {
  if (resident == 0) return "";
  char b[48];
  std::snprintf(b, sizeof b, " (%.0f ms/GiB)", static_cast<double>(pause_ns) / 1e6 / (static_cast<double>(resident) / (1 << 30)));
  return b;
}

}  // namespace

std::string ckpt_line(const ProcId& who, const proto::CkptFacts& f) {
  std::string head = "ftmpirun: checkpoint " + std::to_string(f.number) + " of rank " + std::to_string(who.slot);
  if (!f.ok) return head + " not taken: " + (f.why.empty() ? std::string("no reason given") : f.why);
  return head + ": " + mib(f.resident) + " resident, pause " + ms(f.pause_ns) + per_gib(f.pause_ns, f.resident) +
         ", local image pid " + std::to_string(f.image_pid);
}

void CkptTally::on_checkpoint(const proto::CkptFacts& f) {
  if (!f.ok) {
    ++failed_;
    return;
  }
  ++taken_;
  pause_sum_ns_ += f.pause_ns;
  pause_max_ns_ = std::max(pause_max_ns_, f.pause_ns);
  resident_sum_ += f.resident;
}

void CkptTally::on_log(int32_t slot, const proto::LogFigures& f) {
  if (slot < 0 || static_cast<size_t>(slot) >= log_.size()) return;
  log_[static_cast<size_t>(slot)] = Log{f.log_bytes, f.reclaimed};
  if (f.log_bytes > log_peak_) {
    log_peak_ = f.log_bytes;
    log_peak_slot_ = slot;
  }
}

uint64_t CkptTally::log_now(int32_t slot) const {
  return slot >= 0 && static_cast<size_t>(slot) < log_.size() ? log_[static_cast<size_t>(slot)].bytes : 0;
}

uint64_t CkptTally::reclaimed() const {
  uint64_t n = 0;
  for (const Log& l : log_) n += l.reclaimed;
  return n;
}

std::string CkptTally::summary_line() const {
  std::string s = "ftmpirun: checkpoints: " + std::to_string(taken_) + " taken, " + std::to_string(failed_) + " not";
  if (taken_ > 0)
    s += "; pause " + ms(pause_sum_ns_ / static_cast<uint64_t>(taken_)) + " mean, " + ms(pause_max_ns_) + " max" +
         per_gib(pause_sum_ns_, resident_sum_);
  s += "; sender logs peaked at " + mib(log_peak_);
  if (log_peak_slot_ >= 0) s += " (rank " + std::to_string(log_peak_slot_) + ")";
  s += ", " + mib(reclaimed()) + " reclaimed";
  return s;
}

}  // namespace ftmpi::rte
