// Bookkeeping of failure episodes (spec/ft-semantics.md §4.5): which
// processes failed since the previous recovery, and the error codes that
// FTMPI_ERROR_FAILURE hands out. Codes are FTMPI's own range above every MPI
// error class; their class is MPI_ERR_OTHER and their text names the ranks.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "base/proc_id.hpp"

namespace ftmpi::ft {

inline constexpr int kFailureCodeBase = 1000;

class Episodes {
 public:
  // A failure notice (duplicates of the same process are counted once).
  void on_failure(ProcId who);
  // A recovery handled the current episode; `failed` is the runtime's list
  // (the authority: it includes failures this process may not have seen yet).
  void on_recovered(const std::vector<ProcId>& failed);

  bool pending() const { return pending_; }  // failures not yet recovered
  int num_failed() const { return static_cast<int>(current_.size()); }
  // The code to publish in FTMPI_ERROR_FAILURE (0 = MPI_SUCCESS before any failure).
  int error_code() const { return current_.empty() ? 0 : kFailureCodeBase + static_cast<int>(history_.size()); }
  const std::vector<ProcId>& current() const { return current_; }

  static bool is_failure_code(int code) { return code > kFailureCodeBase; }
  // "process failure: ranks 3 5 of MPI_COMM_WORLD"; empty if unknown code.
  std::string describe(int code) const;

 private:
  void snapshot();
  std::vector<ProcId> current_;
  bool pending_ = false;
  bool fresh_ = true;  // next failure starts a new episode
  std::vector<std::vector<ProcId>> history_;  // history_[i] = episode of code base+i+1
};

}  // namespace ftmpi::ft
