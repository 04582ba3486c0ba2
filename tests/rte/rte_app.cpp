// A fake fault-tolerant application for the runtime tests, using only
// rte::Client (no MPI library): it asks for recovery rounds when notified
// and checks every RecoveryResult it gets.
//
//   rte_app [victims=R1,R2,..] [delay=MS] [late=R,..] [ask=first|all] [refail=SLOT:N]
//           [expect=N] [linger=MS] [--marker X]
//
//   victims   ranks whose first incarnation SIGKILLs itself after MPI_Init;
//             the i-th victim (from 0) waits i * delay ms first
//   late      ranks whose first incarnation SIGKILLs itself after its first
//             completed round (a second episode)
//   ask       first: ask for recovery as soon as a notice arrives (later
//             failures then happen during the round); all: only once notices
//             up to event `expect` arrived
//   refail    respawned incarnations 1..N-1 of SLOT SIGKILL themselves at
//             once (before their card exchange): repeated failures of a slot
//   linger    after the last round, keep serving notices this many ms before
//             finalizing (gives injections time to fire)
//   expect    failures the job will see in all (default: victims + late
//             + N-1 for refail); every process runs rounds until a round
//             has covered event `expect`, then finalizes
//
// Each process prints "rank R ready inc I restarted B" after joining and, at
// the end, "rank R final inc I epoch E rounds K covered C restarted B table T"
// where T lists every slot as slot.incarnation, or slot.x when dead. Exit
// status 3: a check failed (the line before says which).
#include <poll.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "base/clock.hpp"
#include "rte/client/client.hpp"

using ftmpi::ProcId;
using namespace ftmpi::rte;

namespace {

int g_rank = -1;

[[noreturn]] void die(const std::string& what) {
  std::printf("rank %d: APP ERROR: %s\n", g_rank, what.c_str());
  std::fflush(stdout);
  std::exit(3);
}

void check(bool cond, const std::string& what) {
  if (!cond) die(what);
}

std::vector<int> parse_list(const std::string& s) {
  std::vector<int> v;
  std::stringstream ss(s);
  std::string tok;
  while (std::getline(ss, tok, ',')) v.push_back(std::atoi(tok.c_str()));
  return v;
}

std::string id_str(const ProcId& p) { return std::to_string(p.slot) + "." + std::to_string(p.incarnation); }

struct Sink : EventSink {
  std::vector<std::pair<ProcId, uint64_t>> notices;
  std::vector<RecoveryResult> rounds;
  void on_proc_failed(ProcId who, uint64_t seq) override { notices.emplace_back(who, seq); }
  void on_job_abort(int code) override { die("job aborted with " + std::to_string(code)); }
  void on_recovery_done(const RecoveryResult& r) override { rounds.push_back(r); }
};

struct App {
  BootInfo boot;
  std::vector<Card> initial;  // the first card table this process saw
  uint32_t epoch = 0;
  uint64_t covered = 0;  // highest event a completed round included
  uint64_t max_seen = 0;
  size_t notices_checked = 0;
  int rounds = 0;
  std::vector<Card> table;

  // One RecoveryResult: epoch + 1, failures = the notices since the last round
  // in order (unless we joined through it), and a consistent card table.
  void check_round(const RecoveryResult& r, const std::vector<std::pair<ProcId, uint64_t>>& notices, bool joined) {
    check(r.cards.size() == static_cast<size_t>(boot.world_size), "card table size");
    check(r.last_event_seq >= covered, "round covers fewer events than the previous one");
    if (!joined) {
      check(r.epoch == epoch + 1, "epoch " + std::to_string(r.epoch) + " after " + std::to_string(epoch));
      std::vector<ProcId> expected;
      for (; notices_checked < notices.size() && notices[notices_checked].second <= r.last_event_seq;
           ++notices_checked)
        expected.push_back(notices[notices_checked].first);
      check(r.failed == expected, "failed list differs from the notices");
      check(r.failed.size() == r.last_event_seq - covered, "failed list has gaps");
    }
    const Card& me = r.cards[static_cast<size_t>(boot.self.slot)];
    check(me.id == boot.self && me.pid == getpid() && me.host == boot.host, "my own card");
    for (const ProcId& f : r.failed) {
      const Card& c = r.cards[static_cast<size_t>(f.slot)];
      check(!(c.id == f) || c.host < 0, "a failed process is listed alive: " + id_str(f));
      if (boot.modes.comm == CommMode::kRebuild)
        check(c.host >= 0 && c.id.incarnation > f.incarnation, "rebuild: slot " + std::to_string(f.slot) + " not back");
      else
        check(c.host < 0, "blank/shrink: slot " + std::to_string(f.slot) + " alive again");
    }
    // Processes that never failed keep their card (same process, same pid).
    for (const Card& c : initial) {
      bool failed = false;
      for (const ProcId& f : r.failed) failed |= f.slot == c.id.slot;
      if (!failed && c.host >= 0 && r.cards[static_cast<size_t>(c.id.slot)].host >= 0 &&
          r.cards[static_cast<size_t>(c.id.slot)].id == c.id)
        check(r.cards[static_cast<size_t>(c.id.slot)].pid == c.pid, "a survivor's card changed");
    }
    epoch = r.epoch;
    covered = r.last_event_seq;
    table = r.cards;
    ++rounds;
  }
};

}  // namespace

int main(int argc, char** argv) {
  std::map<std::string, std::string> opt;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--marker" && i + 1 < argc) {
      ++i;
      continue;
    }
    size_t eq = a.find('=');
    if (eq == std::string::npos) die("bad argument " + a);
    opt[a.substr(0, eq)] = a.substr(eq + 1);
  }
  std::vector<int> victims = parse_list(opt["victims"]);
  std::vector<int> late = parse_list(opt["late"]);
  int delay_ms = std::atoi(opt["delay"].c_str());
  bool ask_first = opt["ask"] != "all";
  int refail_slot = -1, refail_n = 0;
  if (!opt["refail"].empty() && std::sscanf(opt["refail"].c_str(), "%d:%d", &refail_slot, &refail_n) != 2)
    die("refail takes SLOT:N");
  uint64_t expect = opt.count("expect") ? std::strtoull(opt["expect"].c_str(), nullptr, 10)
                                         : victims.size() + late.size() + (refail_n > 0 ? refail_n - 1 : 0);
  bool late_victim = false;

  Client client;
  App app;
  check(client.init(app.boot) == ftmpi::Err::kOk, "init failed");
  const BootInfo& b = app.boot;
  g_rank = b.self.slot;
  check(b.restarted == (b.self.incarnation > 0), "restarted flag does not match the incarnation");
  if (b.self.slot == refail_slot && b.self.incarnation > 0 && static_cast<int>(b.self.incarnation) < refail_n)
    raise(SIGKILL);
  Card mine;
  mine.tcp_addr = b.tcp_bind_addr;
  mine.tcp_port = static_cast<uint16_t>(20000 + g_rank);
  std::vector<Card> cards;
  check(client.exchange_cards(mine, cards) == ftmpi::Err::kOk, "exchange failed");
  Sink sink;
  app.epoch = b.epoch;
  if (b.restarted) {
    const RecoveryResult& r = client.restart_result();
    check(r.cards == cards, "restart_result and the exchanged cards differ");
    ProcId last_of_mine;
    for (const ProcId& f : r.failed)
      if (f.slot == g_rank) last_of_mine = f;
    check(last_of_mine.valid() && last_of_mine.incarnation + 1 == b.self.incarnation,
          "my previous incarnation is not among the failures of my round");
    check(r.epoch >= 1, "a respawned process joins in epoch >= 1");
    app.check_round(r, sink.notices, /*joined=*/true);
  } else {
    check(client.restart_result().cards.empty(), "restart_result for a process that was not respawned");
    app.initial = cards;
    app.table = cards;
  }
  std::printf("rank %d ready inc %u restarted %d\n", g_rank, b.self.incarnation, b.restarted ? 1 : 0);
  std::fflush(stdout);

  if (b.self.incarnation == 0) {
    for (int v : late) late_victim |= v == g_rank;
    for (size_t i = 0; i < victims.size(); ++i) {
      if (victims[i] != g_rank) continue;
      usleep(static_cast<useconds_t>(i * static_cast<size_t>(delay_ms)) * 1000);
      raise(SIGKILL);
    }
  }

  uint64_t deadline = ftmpi::now_ns() + 60ull * 1000000000ull;
  size_t rounds_seen = 0;
  while (app.covered < expect) {
    check(ftmpi::now_ns() < deadline, "no recovery in 60 s (covered " + std::to_string(app.covered) + ")");
    if (!client.has_pending_events()) {
      pollfd p{client.fd(), POLLIN, 0};
      ::poll(&p, 1, 100);
    }
    client.poll(sink);
    for (const auto& [who, seq] : sink.notices) app.max_seen = std::max(app.max_seen, seq);
    for (; rounds_seen < sink.rounds.size(); ++rounds_seen) app.check_round(sink.rounds[rounds_seen], sink.notices, false);
    if (late_victim && app.rounds > 0) raise(SIGKILL);
    bool uncovered = app.max_seen > app.covered;
    if (uncovered && !client.recovery_requested() && (ask_first || app.max_seen >= expect))
      check(client.request_recovery(app.max_seen) == ftmpi::Err::kOk, "request_recovery failed");
  }
  for (uint64_t until = ftmpi::now_ns() + std::strtoull(opt["linger"].c_str(), nullptr, 10) * 1000000ull;
       ftmpi::now_ns() < until;) {
    pollfd p{client.fd(), POLLIN, 0};
    ::poll(&p, 1, 20);
    client.poll(sink);
  }
  check(sink.notices.size() == app.notices_checked || b.restarted, "a failure after the last round");
  check(!client.recovery_requested(), "a request is still outstanding");
  std::string t;
  for (const Card& c : app.table)
    t += (t.empty() ? "" : ",") + std::to_string(c.id.slot) + "." +
         (c.host < 0 ? std::string("x") : std::to_string(c.id.incarnation));
  std::printf("rank %d final inc %u epoch %u rounds %d covered %llu restarted %d table %s\n", g_rank,
              b.self.incarnation, app.epoch, app.rounds, static_cast<unsigned long long>(app.covered),
              b.restarted ? 1 : 0, t.c_str());
  std::fflush(stdout);
  check(client.finalize() == ftmpi::Err::kOk, "finalize failed");
  return 0;
}
