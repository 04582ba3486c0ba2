// Starts the daemons of a job inside a Slurm allocation with one `srun` job
// step: one task per node, on exactly the job's nodes, not ended when one
// task dies (--kill-on-bad-exit=0 --no-kill), so a lost node is a lost host
// as with our own launch and every FT mode works. The same command line runs
// on every node: each daemon finds its host index by looking its node name
// (SLURMD_NODENAME) up in --host-by-node. srun gives the secret line on its
// stdin to every task (--input=all).
#pragma once
#include <string>
#include <vector>

#include "rte/launcher/launch_agent.hpp"

namespace ftmpi::rte {

class SrunAgent : public LaunchAgent {
 public:
  SrunAgent(std::string srun_path, std::string daemon_path)
      : srun_(std::move(srun_path)), daemon_path_(std::move(daemon_path)) {}
  pid_t start(const DaemonLaunch& d, std::string& err) override;
  bool starts_all_at_once() const override { return true; }
  pid_t start_all(const std::vector<DaemonLaunch>& all, std::string& err) override;

 private:
  std::string srun_;
  std::string daemon_path_;
};

// The srun command line for these daemons (pure; unit-tested).
std::vector<std::string> srun_daemon_argv(const std::string& srun_path, const std::string& daemon_path,
                                          const std::vector<DaemonLaunch>& all);
// $FTMPI_SRUN, else the first srun on PATH; "" when there is none.
std::string find_srun();

}  // namespace ftmpi::rte
