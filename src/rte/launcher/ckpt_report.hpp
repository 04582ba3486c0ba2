// What ftmpirun says about checkpoints (pure, unit-tested): one line per
// checkpoint as it completes, the sender-log figures, and the summary line.
//   ftmpirun: checkpoint 3 of rank 1: 52.4 MiB resident, pause 4.1 ms (78 ms/GiB), local image pid 4242
//   ftmpirun: checkpoint 3 of rank 1: ..., local image pid 4242, buddy node2: 52.6 MiB in 95.0 ms (553 MiB/s)
//   ftmpirun: checkpoint 3 of rank 1: ..., local image pid 4242, disk: not stored: REASON
//   ftmpirun: checkpoint 3 of rank 1 not taken: in MPI_Finalize
//   ftmpirun: checkpoints: 24 taken, 1 not; pause 3.9 ms mean, 6.0 ms max (75 ms/GiB);
//             sender logs peaked at 12.0 MiB (rank 2), 40.5 MiB reclaimed
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "base/proc_id.hpp"
#include "rte/proto/ckpt_messages.hpp"

namespace ftmpi::rte {

std::string ckpt_line(const ProcId& who, const proto::CkptFacts& f);
// "local", "buddy" or "disk".
const char* ckpt_store_name(uint8_t store);

class CkptTally {
 public:
  explicit CkptTally(int world_size) : log_(static_cast<size_t>(world_size)) {}
  void on_checkpoint(const proto::CkptFacts& f);
  void on_log(int32_t slot, const proto::LogFigures& f);
  int taken() const { return taken_; }
  int failed() const { return failed_; }
  // Largest sender log any rank reported, and which rank.
  uint64_t log_peak() const { return log_peak_; }
  int32_t log_peak_slot() const { return log_peak_slot_; }
  // Each rank's latest figure (the test of bounded memory reads the summary).
  uint64_t log_now(int32_t slot) const;
  uint64_t reclaimed() const;
  std::string summary_line() const;

 private:
  int taken_ = 0;
  int failed_ = 0;
  uint64_t pause_sum_ns_ = 0;
  uint64_t pause_max_ns_ = 0;
  uint64_t resident_sum_ = 0;
  int stored_ = 0;  // images the buddy or disk store confirmed
  int store_failed_ = 0;
  uint64_t stored_bytes_ = 0;
  uint64_t store_ns_ = 0;
  uint64_t log_peak_ = 0;
  int32_t log_peak_slot_ = -1;
  struct Log {
    uint64_t bytes = 0;
    uint64_t reclaimed = 0;
  };
  std::vector<Log> log_;
};

}  // namespace ftmpi::rte
