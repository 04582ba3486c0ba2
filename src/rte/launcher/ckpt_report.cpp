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

// Transfer rate of a stored image, MiB/s.
std::string rate(uint64_t bytes, uint64_t ns) {
  if (ns == 0) return "";
  char b[48];
  std::snprintf(b, sizeof b, " (%.0f MiB/s)", static_cast<double>(bytes) / (1 << 20) / (static_cast<double>(ns) / 1e9));
  return b;
}

}  // namespace

namespace {
std::string stored(const proto::CkptFacts& f) {
  if (f.store == proto::CkptFacts::kStoreLocal) return "";
  std::string s = std::string(", ") + ckpt_store_name(f.store);
  if (!f.store_error.empty()) return s + ": not stored: " + f.store_error;
  if (f.store == proto::CkptFacts::kStoreBuddy) s += " " + f.stored_at;
  return s + ": " + mib(f.stored_bytes) + " in " + ms(f.store_ns) + rate(f.stored_bytes, f.store_ns);
}
}  // namespace

const char* ckpt_store_name(uint8_t store) {
  switch (store) {
    case proto::CkptFacts::kStoreBuddy:
      return "buddy";
    case proto::CkptFacts::kStoreDisk:
      return "disk";
    case proto::CkptFacts::kStoreMemory:
      return "memory";
    default:
      return "local";
  }
}

std::string ckpt_line(const ProcId& who, const proto::CkptFacts& f) {
  std::string head = "ftmpirun: checkpoint " + std::to_string(f.number) + " of rank " + std::to_string(who.slot);
  if (!f.ok) return head + " not taken: " + (f.why.empty() ? std::string("no reason given") : f.why);
  const std::string local = f.image_pid > 0 ? ", local image pid " + std::to_string(f.image_pid) : "";
  return head + ": " + mib(f.resident) + " resident, pause " + ms(f.pause_ns) + per_gib(f.pause_ns, f.resident) +
         local + stored(f);
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
  if (f.store == proto::CkptFacts::kStoreLocal) return;
  if (!f.store_error.empty()) {
    ++store_failed_;
    return;
  }
  ++stored_;
  stored_bytes_ += f.stored_bytes;
  store_ns_ += f.store_ns;
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
  if (stored_ > 0 || store_failed_ > 0)
    s += "; " + std::to_string(stored_) + " stored (" + mib(stored_bytes_) + " in " + ms(store_ns_) +
         rate(stored_bytes_, store_ns_) + "), " + std::to_string(store_failed_) + " not";
  s += "; sender logs peaked at " + mib(log_peak_);
  if (log_peak_slot_ >= 0) s += " (rank " + std::to_string(log_peak_slot_) + ")";
  s += ", " + mib(reclaimed()) + " reclaimed";
  return s;
}

}  // namespace ftmpi::rte
