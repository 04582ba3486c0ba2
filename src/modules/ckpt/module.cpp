#include "modules/ckpt/module.hpp"

#include <signal.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <utility>
#include <vector>

#include "base/clock.hpp"
#include "base/log.hpp"
#include "base/params.hpp"
#include "modules/ckpt/image.hpp"
#include "modules/ckpt/local_image.hpp"
#include "modules/ckpt/resume.hpp"

namespace ftmpi::ckpt {
namespace {
// Sender-log figures go to the runtime at most this often, and only when
// the log changed.
constexpr uint64_t kFiguresEveryNs = 200'000'000;

uint64_t resident_bytes() {
  FILE* f = std::fopen("/proc/self/statm", "re");
  if (!f) return 0;
  unsigned long size = 0, rss = 0;
  int n = std::fscanf(f, "%lu %lu", &size, &rss);
  std::fclose(f);
  return n == 2 ? static_cast<uint64_t>(rss) * static_cast<uint64_t>(sysconf(_SC_PAGESIZE)) : 0;
}
}  // namespace

Module::Module(p2p::Engine& engine, rte::Client& client, logging::Module& logging)
    : engine_(engine), client_(client), logging_(logging) {
  logging_.set_checkpoint_hook(this);
  if (engine_.self().incarnation == 0) kill_at_ckpt_ = kill_point(engine_.self().slot);
  store_ = store_from_environment();
  store_.slot = engine_.self().slot;
  if (params::get_bool("FTMPI_CKPT_DELTA", true)) store_.delta = &delta_;
}

// Tests: FTMPI_INJECT_CKPT_KILL=slot:n makes the first incarnation of `slot`
// SIGKILL itself right after the fork of its n-th checkpoint, before the
// report: a failure in the middle of a checkpoint.
uint64_t Module::kill_point(int32_t slot) {
  std::string spec = params::get_str("FTMPI_INJECT_CKPT_KILL", "");
  for (size_t at = 0; at < spec.size();) {
    size_t end = spec.find(',', at);
    if (end == std::string::npos) end = spec.size();
    int s = -1;
    unsigned long long n = 0;
    char tail = 0;
    if (std::sscanf(spec.substr(at, end - at).c_str(), "%d:%llu%c", &s, &n, &tail) != 2 || n == 0)
      FTMPI_LOG(kWarn, "ckpt", "FTMPI_INJECT_CKPT_KILL: cannot parse '%s' (expected slot:n)",
                spec.substr(at, end - at).c_str());
    else if (s == slot)
      return n;
    at = end + 1;
  }
  return 0;
}

Module::~Module() { logging_.set_checkpoint_hook(nullptr); }

void Module::on_progress() {
  if ((++tick_ & 255) == 0) report_figures(now_ns());
  if (client_.checkpoint_kept() != kept_) collect(client_.checkpoint_kept());
  const uint64_t number = client_.checkpoint_wanted();
  if (number == 0) return;
  if (!engine_.quiescent() || !logging_.ready_for_checkpoint()) return;
  take(number);
}

void Module::take(uint64_t number) {
  const logging::Logger& lg = logging_.logger();
  rte::proto::CkptFacts f;
  f.number = number;
  f.resident = resident_bytes();
  f.dets_acked = client_.determinants_acked();
  f.log_bytes = lg.log().bytes();
  f.received.resize(static_cast<size_t>(engine_.world_size()));
  for (int s = 0; s < engine_.world_size(); ++s) {
    // A large message taken in by its RTS only is counted as received, but
    // its data is still the sender's: the image needs it sent again, so the
    // sender must keep it in its log (garbage collection stops before it).
    uint64_t got = lg.inbound().received(s);
    if (const uint64_t first = engine_.first_unpulled(s); first > 0 && first <= got) got = first - 1;
    f.received[static_cast<size_t>(s)] = got;
  }
  // What the image had sent to each slot: it never sends those again.
  std::vector<uint64_t> sent(f.received.size());
  for (size_t s = 0; s < sent.size(); ++s) sent[s] = lg.log().next_seq(static_cast<int32_t>(s)) - 1;
  store_.number = number;
  // The local store writes no image (the frozen copy is one).
  if (store_.kind != rte::proto::CkptFacts::kStoreLocal) lg.log().unused_pages(unused_);
  store_.unused = &unused_;
  store_.daemon_pid = static_cast<int>(::getppid());
  store_.secret = client_.job_secret();
  store_.buddy_addr.clear();
  if (store_.kind == rte::proto::CkptFacts::kStoreBuddy && !set_buddy(store_, client_.checkpoint_buddy()))
    FTMPI_LOG(kWarn, "ckpt", "checkpoint %llu: no usable buddy address '%s'; the image stays local",
              static_cast<unsigned long long>(number), client_.checkpoint_buddy().c_str());
  const uint64_t t0 = now_ns();
  if (store_.kind == rte::proto::CkptFacts::kStoreMemory) {
    if (!write_own_image(f)) return;  // a restored process, now the next incarnation
  } else {
    Frozen img = freeze_local_image(number, store_, *this);
    if (img.resumed) return;  // a restored process, now the next incarnation
    if (img.woken) {
      wake_up(img.ctrl_fd);
      return;
    }
    f.ok = img.pid > 0 ? 1 : 0;
    f.image_pid = img.pid > 0 ? img.pid : 0;
    f.why = img.error;
  }
  if (!f.ok)
    FTMPI_LOG(kWarn, "ckpt", "checkpoint %llu not taken: %s", static_cast<unsigned long long>(number), f.why.c_str());
  if (f.ok && ++taken_ == kill_at_ckpt_) {
    FTMPI_LOG(kInfo, "ckpt", "FTMPI_INJECT_CKPT_KILL: dies in its checkpoint %llu",
              static_cast<unsigned long long>(number));
    raise(SIGKILL);
    pause();
  }
  f.pause_ns = now_ns() - t0;
  if (f.ok) {
    messages(sent_at_ckpt_, received_at_ckpt_);
    Counts& c = unkept_[number];
    c.received = f.received;
    c.sent = std::move(sent);
  }
  client_.report_checkpoint(f);
  FTMPI_LOG(kDebug, "ckpt", "checkpoint %llu: image pid %d, pause %.3f ms, %llu bytes resident",
            static_cast<unsigned long long>(number), static_cast<int>(f.image_pid),
            static_cast<double>(f.pause_ns) / 1e6, static_cast<unsigned long long>(f.resident));
}

bool Module::write_own_image(rte::proto::CkptFacts& f) {
  rte::proto::CkptStored m;
  // The transports' segment belongs to the live processes; a restored
  // process gets the host's segment anew (resume_as_next_incarnation).
  if (store_image(store_, kSegmentPath, m) == CopyOutcome::kResumed) {
    resume_restored();
    return false;
  }
  f.store = rte::proto::CkptFacts::kStoreMemory;
  if (!delta_.unavailable().empty() && !told_no_delta_) {
    told_no_delta_ = true;
    FTMPI_LOG(kInfo, "ckpt", "every image is whole: %s", delta_.unavailable().c_str());
  }
  f.ok = m.ok;
  f.why = m.ok ? "" : "the image was not written: " + m.error;
  f.stored_bytes = m.bytes;
  f.store_ns = m.ns;
  f.stored_at = m.where;
  return true;
}

void Module::wake_up(int ctrl_fd) {
  // This process is the image, woken as the slot's next incarnation: the
  // checkpoint it was taken for is the dead original's business.
  kill_at_ckpt_ = 0;
  resume_as_next_incarnation(engine_, client_, logging_, ctrl_fd);
  figures_at_ns_ = 0;
  figures_bytes_ = 0;
}

void Module::resume_restored() {
  // The image brought back the old process's environment: the restorer's
  // own names its control socket.
  int ctrl = -1;
  for (const std::string& e : restorer_environment())
    if (e.rfind("FTMPI_CTRL_FD=", 0) == 0) ctrl = std::atoi(e.c_str() + 14);
  FTMPI_LOG(kInfo, "ckpt", "restored from stored image %llu (control descriptor %d)",
            static_cast<unsigned long long>(store_.number), ctrl);
  if (ctrl < 0) {
    FTMPI_LOG(kError, "ckpt", "restored image %llu has no control descriptor; its daemon starts the slot again",
              static_cast<unsigned long long>(store_.number));
    ::_exit(kRestoredNotResumedExit);
  }
  // From here the restored process is what a woken local image is: the
  // copy's memory, with no runtime channel or transport of its own yet.
  wake_up(ctrl);
}

void Module::collect(uint64_t kept) {
  kept_ = kept;
  auto it = unkept_.find(kept);
  // Not ours (a number this incarnation did not take): nothing to tell.
  if (it != unkept_.end()) logging_.checkpoint_kept(it->second.received, it->second.sent);
  // Older images are gone now; their received numbers are below these.
  unkept_.erase(unkept_.begin(), unkept_.upper_bound(kept));
}

void Module::messages(uint64_t& sent, uint64_t& received) const {
  const logging::Logger& lg = logging_.logger();
  sent = received = 0;
  for (int s = 0; s < engine_.world_size(); ++s) {
    sent += lg.log().next_seq(s) - 1;
    received += lg.inbound().received(s);
  }
}

void Module::report_figures(uint64_t now) {
  const logging::SenderLog& log = logging_.logger().log();
  if (now - figures_at_ns_ < kFiguresEveryNs || log.bytes() == figures_bytes_) return;
  figures_at_ns_ = now;
  figures_bytes_ = log.bytes();
  rte::proto::LogFigures fig;
  fig.log_bytes = log.bytes();
  fig.reclaimed = logging_.logger().reclaimed();
  fig.held_for.resize(static_cast<size_t>(engine_.world_size()));
  for (int s = 0; s < engine_.world_size(); ++s) fig.held_for[static_cast<size_t>(s)] = log.bytes_for(s);
  // Messages, not bytes, since the last checkpoint: the adaptive policy's ratio.
  uint64_t sent = 0, received = 0;
  messages(sent, received);
  fig.sent = sent - sent_at_ckpt_;
  fig.received = received - received_at_ckpt_;
  client_.report_log(fig);
}

}  // namespace ftmpi::ckpt
