// A checkpoint image becomes the slot's next incarnation (resume.hpp,
// spec/checkpoint-protocol.md §5). The order matters: the runtime channel
// first (BOOT says who we are now), then the transports and the card table,
// then the determinants (fetched before any peer traffic is processed, so
// nothing is decided live that the dead incarnation decided), and last the
// sender log queued again for every live peer.
#include "modules/ckpt/resume.hpp"

#include <unistd.h>

#include <cstdio>

#include "base/log.hpp"

namespace ftmpi::ckpt {

void resume_as_next_incarnation(p2p::Engine& engine, rte::Client& client, logging::Module& logging, int ctrl_fd) {
  rte::BootInfo boot;
  if (Err e = client.resume(ctrl_fd, boot); !ok(e)) {
    FTMPI_LOG(kError, "ckpt", "image cannot resume: no BOOT for its next incarnation (%s)", err_name(e));
    ::_exit(kResumeFailedExit);
  }
  char who[64];
  std::snprintf(who, sizeof who, "rank %d", boot.self.slot);
  log::set_identity(who);
  std::vector<ProcId> up;
  if (Err e = engine.resume(boot, up); !ok(e)) {
    FTMPI_LOG(kError, "ckpt", "image cannot resume: transports (%s)", err_name(e));
    ::_exit(kResumeFailedExit);
  }
  logging.resume_replay();
  for (const ProcId& p : up) {
    logging.resume_peer(p);
    engine.ask_cancels_again(p.slot);
  }
  FTMPI_LOG(kInfo, "ckpt", "resumed from a checkpoint image as incarnation %u (pid %d)", boot.self.incarnation,
            static_cast<int>(::getpid()));
}

}  // namespace ftmpi::ckpt
