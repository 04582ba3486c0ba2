#include "rte/daemon/leader.hpp"

#include "base/log.hpp"
#include "rte/common/process.hpp"

namespace ftmpi::rte {

using proto::MsgType;

Leader::Leader(JobState& state, LeaderOutput& out)
    : state_(state),
      out_(out),
      cards_(static_cast<size_t>(state.world_size())),
      fenced_(static_cast<size_t>(state.world_size()), false) {}

bool Leader::on_frame(int32_t from_host, const proto::Frame& f) {
  using proto::with_parsed;
  switch (static_cast<MsgType>(f.type)) {
    case MsgType::kCardsUp:
      return with_parsed<proto::CardsUp>(f, [&](auto& m) { on_cards(from_host, m); });
    case MsgType::kFenceUp:
      return with_parsed<proto::FenceUp>(f, [&](auto& m) { on_fence(from_host, m); });
    case MsgType::kProcExit:
      return with_parsed<proto::ProcExit>(f, [&](auto& m) { on_proc_exit(from_host, m); });
    case MsgType::kAbortUp:
      return with_parsed<proto::AbortUp>(f, [&](auto& m) { on_abort(from_host, m); });
    case MsgType::kSuspectUp:
      return with_parsed<proto::SuspectUp>(f, [&](auto& m) { on_suspect(m); });
    default:
      FTMPI_LOG(kWarn, "leader", "unexpected %s from host %d", proto::msg_name(f.type), from_host);
      return false;
  }
}

void Leader::on_cards(int32_t from_host, const proto::CardsUp& m) {
  for (const Card& c : m.cards) {
    // A daemon may only speak for the current incarnations of its own slots.
    if (!state_.current(c.id) || state_.proc(c.id.slot).host != from_host) {
      FTMPI_LOG(kWarn, "leader", "host %d sent a card for slot %d it does not own", from_host, c.id.slot);
      continue;
    }
    cards_[static_cast<size_t>(c.id.slot)] = c;
    state_.proc(c.id.slot).pid = c.pid;
  }
  check_cards();
}

void Leader::on_fence(int32_t from_host, const proto::FenceUp& m) {
  for (const ProcId& p : m.procs) {
    if (!state_.current(p) || state_.proc(p.slot).host != from_host) continue;
    fenced_[static_cast<size_t>(p.slot)] = true;
  }
  check_fence();
}

void Leader::on_proc_exit(int32_t from_host, const proto::ProcExit& m) {
  if (!state_.current(m.who) || state_.proc(m.who.slot).host != from_host) return;
  ProcEntry& p = state_.proc(m.who.slot);
  if (p.state != ProcState::kAlive) return;
  p.pid = m.pid;
  switch (m.end) {
    case proto::EndKind::kNormal: p.state = ProcState::kFinished; break;
    case proto::EndKind::kTerminated: p.state = ProcState::kDead; break;
    case proto::EndKind::kFailure: fail(m.who, m.pid, m.exit); break;
  }
  // One fewer participant may complete a gather the others are waiting in.
  check_cards();
  check_fence();
}

void Leader::fail(const ProcId& who, int32_t pid, const proto::ExitInfo& exit) {
  if (ending_) {
    state_.proc(who.slot).state = ProcState::kDead;
    return;
  }
  proto::ProcFailure f;
  f.seq = state_.next_seq();
  f.who = who;
  f.host = state_.proc(who.slot).host;
  f.pid = pid;
  f.exit = exit;
  state_.apply_failure(f);
  bool continues = state_.modes().comm != CommMode::kAbort;
  FTMPI_LOG(kInfo, "leader", "event %llu: rank %d failed (%s)%s", static_cast<unsigned long long>(f.seq),
            who.slot, describe_exit(exit).c_str(), continues ? "" : "; ending the job");
  out_.to_launcher(proto::make_frame(proto::FailureReport{f, continues}));
  if (continues)
    out_.to_all_daemons(proto::make_frame(proto::EventDown{proto::EventDown::kProcFailed, f}));
  else
    end_job(failure_exit_code(exit));
}

void Leader::on_abort(int32_t from_host, const proto::AbortUp& m) {
  if (ending_ || !state_.current(m.who) || state_.proc(m.who.slot).host != from_host) return;
  proto::AbortReport r;
  r.who = m.who;
  r.host = from_host;
  r.pid = m.pid;
  r.code = m.code;
  r.message = m.message;
  out_.to_launcher(proto::make_frame(r));
  end_job(m.code);
}

void Leader::on_suspect(const proto::SuspectUp& m) {
  if (!state_.current(m.suspect) || !state_.alive(m.suspect.slot)) return;
  FTMPI_LOG(kInfo, "leader", "rank %d suspects rank %d; asking host %d to check", m.reporter.slot,
            m.suspect.slot, state_.proc(m.suspect.slot).host);
  out_.to_daemon(state_.proc(m.suspect.slot).host, proto::make_frame(proto::CheckProc{m.suspect}));
}

void Leader::on_daemon_lost(int32_t host) {
  for (int32_t s = 0; s < state_.world_size(); ++s) {
    const ProcEntry& p = state_.proc(s);
    if (p.host == host && p.state == ProcState::kAlive)
      fail(p.id, p.pid, proto::ExitInfo{proto::ExitInfo::kLost, 0});
  }
  check_cards();
  check_fence();
}

void Leader::end_job(int32_t exit_code) {
  if (ending_) return;
  ending_ = true;
  out_.to_all_daemons(proto::make_frame(proto::EndJob{exit_code}));
}

void Leader::check_cards() {
  if (cards_done_ || ending_) return;
  for (int32_t s = 0; s < state_.world_size(); ++s)
    if (state_.alive(s) && !cards_[static_cast<size_t>(s)]) return;
  cards_done_ = true;
  proto::CardTableDown table;
  table.cards.resize(static_cast<size_t>(state_.world_size()));
  for (int32_t s = 0; s < state_.world_size(); ++s) {
    Card& c = table.cards[static_cast<size_t>(s)];
    if (state_.alive(s) && cards_[static_cast<size_t>(s)]) {
      c = *cards_[static_cast<size_t>(s)];
    } else {
      c = Card{};
      c.id = state_.proc(s).id;  // host stays -1: nobody to reach there
    }
  }
  out_.to_all_daemons(proto::make_frame(table));
}

void Leader::check_fence() {
  if (fence_done_ || ending_) return;
  bool any = false;
  for (int32_t s = 0; s < state_.world_size(); ++s) {
    if (!state_.alive(s)) continue;
    if (!fenced_[static_cast<size_t>(s)]) return;
    any = true;
  }
  if (!any) return;  // everybody ended without a fence: nobody to release
  fence_done_ = true;
  out_.to_all_daemons(proto::make_frame(proto::FenceDown{}));
}

}  // namespace ftmpi::rte
