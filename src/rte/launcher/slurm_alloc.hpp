// Inside a Slurm allocation (SLURM_JOB_ID set), ftmpirun takes its hosts and
// slots from the allocation: the node list (SLURM_JOB_NODELIST, a compressed
// host list such as "n[01-03,7],gpu5") and the tasks per node
// (SLURM_TASKS_PER_NODE "2(x3),1" when the allocation asked for tasks, else
// SLURM_JOB_CPUS_PER_NODE in the same format). Pure functions over an
// environment lookup, so every rule is unit-tested.
#pragma once
#include <string>
#include <vector>

#include "rte/launcher/options.hpp"

namespace ftmpi::rte {

// "n[01-03,7],gpu5" -> n01 n02 n03 n7 gpu5 (zero padding kept; one bracket
// group per name, as Slurm prints node lists). False with err on bad input.
bool expand_slurm_hostlist(const std::string& list, std::vector<std::string>& out, std::string& err);
// "2(x3),1" -> 2 2 2 1
bool expand_slurm_counts(const std::string& counts, std::vector<int>& out, std::string& err);

struct SlurmAllocation {
  bool inside = false;    // SLURM_JOB_ID is set
  std::string job_id;
  std::vector<HostSpec> hosts;  // node names with their slots, in Slurm's order
};

// inside=false when SLURM_JOB_ID is unset; false with err when it is set but
// the node list or counts cannot be read.
bool read_slurm_allocation(const EnvLookup& env, SlurmAllocation& out, std::string& err);

}  // namespace ftmpi::rte
