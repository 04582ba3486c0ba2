// Another way for a rank to boot than the daemon's control channel: when a
// resource manager started the process directly (Slurm's `srun --mpi=pmix`),
// there is no ftmpid, and this backend serves what rte::Client serves
// (who am I, the host's shared memory and doorbells, the card exchange, the
// finalize fence, abort) through the manager's interface. Client forwards to
// it when open_external_boot() found one; the daemon path stays untouched.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "base/err.hpp"
#include "base/proc_id.hpp"
#include "rte/proto/card.hpp"

namespace ftmpi::rte {

struct BootInfo;
class EventSink;

class BootBackend {
 public:
  virtual ~BootBackend() = default;
  virtual Err init(BootInfo& out) = 0;
  // Readable when poll() has something to do.
  virtual int fd() const = 0;
  virtual Err exchange_cards(const Card& mine, std::vector<Card>& all) = 0;
  virtual void poll(EventSink& sink) = 0;
  virtual bool has_pending_events() const = 0;
  virtual Err finalize() = 0;
  [[noreturn]] virtual void abort(int code, const std::string& msg) = 0;
  virtual void report_suspect(ProcId who) = 0;
};

// Looks at the environment: no resource-manager launch -> `out` empty (the
// caller boots as a singleton); a PMIx launch -> the PMIx backend. A PMIx
// launch in a library built without PMIx exits after a one-line message
// (rank 0 prints it): running as N singletons would be a silent wrong answer.
Err open_external_boot(std::unique_ptr<BootBackend>& out);

}  // namespace ftmpi::rte
