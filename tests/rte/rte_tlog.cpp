// A fake transparent-mode process for the runtime tests, using only
// rte::Client (no MPI library, no logging module): it logs determinant
// batches to the event logger, kills itself at chosen points, and each
// restarted incarnation checks that the event logger gives it back exactly
// the batches its predecessors had acknowledged.
//
//   rte_tlog [batches=N] [victims=R,R..] [after=K] [times=T] [gap=MS] [trace=FILE]
//            [check=exact|prefix] [replay_kill=I] [exit=S] [fence_kill=1] [linger=MS] [--marker X]
//
//   batches  records (one batch each) every slot logs over all its incarnations
//   victims  slots whose incarnations 0..T-1 SIGKILL themselves once K*(i+1)
//            records are acknowledged (and nothing else is outstanding)
//   replay_kill  incarnation I of a victim SIGKILLs itself in its replay
//            (after printing half of the fetched records); it logs nothing, so
//            the incarnations after it fetch what it fetched
//   fence_kill  victims log all their records, print their final line and
//            SIGKILL themselves right after entering the finalize fence
//            (incarnation 0 only); the next incarnation fetches everything
//   linger   non-victims serve this many ms before entering the fence
//   exit     victims exit with status S at their quota instead of SIGKILL
//   gap      ms between two records (survivors keep running meanwhile)
//   check    exact (default): a restarted incarnation fetches exactly the
//            records its self-killed predecessors had acknowledged; prefix:
//            (kills from outside) records 1..M for some M, replayed and continued
//   trace    every incarnation appends "slot inc fetched|acked|died|final ..." lines
//            (final: records, failures and restarts heard of, batches staged)
//            (acked: with check=prefix, each record once acknowledged)
//            (not to stdout: what incarnations print there must be the same
//            bytes, or the launcher's output-once filter cuts them wrongly)
//
// Record g (1-based) of slot s is "s:g:" followed by (g*37 % 200) + 1 bytes
// of the letter 'a' + g % 26: its content is a function of (s, g) only, as
// a deterministic program's determinants are. A process prints
// "rank R rec G" once record G is acknowledged; a restarted incarnation
// first prints the lines of the records it fetched (its "replay": the same
// bytes its predecessor printed, which the launcher must not print twice).
// It then reports its replay (start / caught up) and goes on from there.
//
// Other checks: the card table a restarted incarnation gets at once,
// PROC_FAILED before PROC_RESTARTED for every restart a process hears of,
// acknowledgements in batch order, and address randomisation off.
// Exit status 3 with "APP ERROR" on stdout: a check failed.
#include <poll.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "base/clock.hpp"
#include "rte/client/client.hpp"

using ftmpi::ProcId;
using namespace ftmpi::rte;

namespace {

int g_rank = -1;
std::string g_trace;

void trace(const std::string& line) {
  if (g_trace.empty()) return;
  FILE* f = std::fopen(g_trace.c_str(), "a");
  if (!f) return;
  std::fprintf(f, "%s\n", line.c_str());
  std::fclose(f);
}

[[noreturn]] void die(const std::string& what) {
  std::printf("rank %d: APP ERROR: %s\n", g_rank, what.c_str());
  std::fflush(stdout);
  std::exit(3);
}

void check(bool cond, const std::string& what) {
  if (!cond) die(what);
}

std::string record(int slot, int g) {
  return std::to_string(slot) + ":" + std::to_string(g) + ":" +
         std::string(static_cast<size_t>(g * 37 % 200 + 1), static_cast<char>('a' + g % 26));
}

struct Sink : EventSink {
  uint64_t acked = 0;
  std::map<int, uint32_t> failed;  // slot -> last failed incarnation
  // Slots restarting when this process joined: host -1 and their new id in
  // the table it got (their failure came before it), PROC_RESTARTED follows.
  std::map<int, uint32_t> restarting;
  int failures = 0, restarts = 0;
  void on_proc_failed(ProcId who, uint64_t) override {
    failed[who.slot] = who.incarnation;
    ++failures;
  }
  void on_job_abort(int code) override { die("job aborted with " + std::to_string(code)); }
  void on_recovery_done(const RecoveryResult&) override { die("a recovery round in transparent mode"); }
  void on_proc_restarted(ProcId id, const Card& card) override {
    auto it = failed.find(id.slot);
    auto r = restarting.find(id.slot);
    bool expected_restart = r != restarting.end() && r->second == id.incarnation;
    if (expected_restart) restarting.erase(r);
    check(expected_restart || (it != failed.end() && it->second + 1 == id.incarnation),
          "restart of " + std::to_string(id.slot) + "." + std::to_string(id.incarnation) +
              " without the failure of its previous incarnation");
    check(card.id == id && card.host >= 0 && card.pid > 0, "restart card");
    ++restarts;
  }
  void on_determinants_acked(uint64_t batch) override {
    check(batch == acked + 1, "ack " + std::to_string(batch) + " after " + std::to_string(acked));
    acked = batch;
  }
};

bool aslr_off() {
  std::ifstream f("/proc/self/personality");
  unsigned long p = 0;
  f >> std::hex >> p;
  return (p & 0x0040000ul) != 0;  // ADDR_NO_RANDOMIZE
}

}  // namespace

int main(int argc, char** argv) {
  int batches = 20, after = 5, times = 1, gap_ms = 10;
  bool exact = true;
  int replay_kill = 0;
  int exit_status = -1;
  bool fence_kill = false;
  int linger_ms = 0;
  std::set<int> victims;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--marker") {
      ++i;
      continue;
    }
    auto eq = a.find('=');
    std::string k = a.substr(0, eq), v = eq == std::string::npos ? "" : a.substr(eq + 1);
    if (k == "batches") batches = std::atoi(v.c_str());
    else if (k == "after") after = std::atoi(v.c_str());
    else if (k == "times") times = std::atoi(v.c_str());
    else if (k == "gap") gap_ms = std::atoi(v.c_str());
    else if (k == "trace") g_trace = v;
    else if (k == "check") exact = v != "prefix";
    else if (k == "replay_kill") replay_kill = std::atoi(v.c_str());
    else if (k == "exit") exit_status = std::atoi(v.c_str());
    else if (k == "fence_kill") fence_kill = v == "1";
    else if (k == "linger") linger_ms = std::atoi(v.c_str());
    else if (k == "victims") {
      std::stringstream ss(v);
      std::string tok;
      while (std::getline(ss, tok, ',')) victims.insert(std::atoi(tok.c_str()));
    } else {
      std::fprintf(stderr, "rte_tlog: unknown argument %s\n", a.c_str());
      return 2;
    }
  }
  Client client;
  BootInfo boot;
  if (!ok(client.init(boot))) return 2;
  g_rank = boot.self.slot;
  check(boot.modes.transparent == Transparent::kPessimist, "not started in transparent mode");
  check(aslr_off(), "address randomisation is on");
  check(boot.restarted == (boot.self.incarnation > 0), "restarted flag");
  Card mine;
  mine.tcp_addr = "127.0.0.1";
  mine.tcp_port = static_cast<uint16_t>(10000 + boot.self.slot);
  std::vector<Card> table;
  check(ok(client.exchange_cards(mine, table)), "exchange_cards");
  check(table.size() == static_cast<size_t>(boot.world_size), "table size");
  check(table[static_cast<size_t>(g_rank)].id == boot.self && table[static_cast<size_t>(g_rank)].host == boot.host,
        "my own card in the table");
  Sink sink;
  for (const Card& c : table)
    if (c.host < 0) sink.restarting[c.id.slot] = c.id.incarnation;
  uint32_t inc = boot.self.incarnation;
  bool victim = victims.count(g_rank) > 0;
  // Incarnations that logged a quota before this one (a replay-killed one logs nothing).
  int logged_before = static_cast<int>(inc) - (victim && replay_kill > 0 && static_cast<int>(inc) > replay_kill ? 1 : 0);
  int done = 0;  // records this slot has, over all incarnations
  if (boot.restarted) {
    uint64_t t0 = ftmpi::now_ns();
    std::vector<uint8_t> bytes;
    check(ok(client.fetch_determinants(bytes)), "fetch_determinants");
    std::string got(bytes.begin(), bytes.end());
    // Exactly what the predecessors had acknowledged when they killed
    // themselves: K * inc records (a victim stops logging at its quota).
    int expected = victim ? (fence_kill ? batches : after * std::min(logged_before, times)) : 0;
    if (!exact) {
      // Records 1..M, whole and in order: the event logger lost or reordered nothing.
      size_t pos = 0;
      expected = 0;
      while (pos < got.size()) {
        std::string r = record(g_rank, expected + 1);
        check(got.compare(pos, r.size(), r) == 0, "fetched log is not records 1..M at record " +
                                                      std::to_string(expected + 1));
        pos += r.size();
        ++expected;
      }
    }
    std::string want;
    for (int g = 1; g <= expected; ++g) want += record(g_rank, g);
    check(got == want, "fetched " + std::to_string(got.size()) + " bytes, expected " + std::to_string(want.size()) +
                           " (records 1.." + std::to_string(expected) + ")");
    client.report_replay(ReplayPhase::kStart, ReplayStats{static_cast<uint64_t>(expected), 0, 0});
    bool killed_in_replay = victim && static_cast<int>(inc) == replay_kill;
    for (int g = 1; g <= expected; ++g) {
      if (killed_in_replay && g > expected / 2) {
        std::fflush(stdout);
        trace(std::to_string(g_rank) + " " + std::to_string(inc) + " fetched " + std::to_string(expected) + " 0");
        raise(SIGKILL);
      }
      std::printf("rank %d rec %d\n", g_rank, g);
    }
    std::fflush(stdout);
    done = expected;
    client.report_replay(ReplayPhase::kCaughtUp, ReplayStats{static_cast<uint64_t>(expected), 0, 0});
    char line[128];
    std::snprintf(line, sizeof line, "%d %u fetched %d %.1f", g_rank, inc, expected,
                  static_cast<double>(ftmpi::now_ns() - t0) / 1e6);
    trace(line);
  }
  int quota = victim && !fence_kill && logged_before < times ? after * (logged_before + 1) : batches;
  uint64_t first_batch = 0;  // this incarnation's batch numbers count from 1
  int staged = 0;            // batches of this incarnation that were stable as written
  auto serve = [&](int ms) {
    pollfd p{client.fd(), POLLIN, 0};
    if (client.has_pending_events() || ::poll(&p, 1, ms) > 0) client.poll(sink);
  };
  while (done < quota) {
    ++done;
    std::string r = record(g_rank, done);
    bool stable = false;
    uint64_t b = client.log_determinants(r.data(), r.size(), stable);
    check(b == ++first_batch, "batch number " + std::to_string(b));
    if (stable) {  // staged in the daemon's memory: acknowledged as written
      sink.acked = b;
      ++staged;
    }
    while (sink.acked < b) serve(1000);
    if (!exact) trace(std::to_string(g_rank) + " " + std::to_string(inc) + " acked " + std::to_string(done));
    std::printf("rank %d rec %d\n", g_rank, done);
    std::fflush(stdout);
    uint64_t until = ftmpi::now_ns() + static_cast<uint64_t>(gap_ms) * 1000000ull;
    while (ftmpi::now_ns() < until) serve(gap_ms);
  }
  if (done < batches) {
    // A victim at its quota: everything it logged is acknowledged.
    trace(std::to_string(g_rank) + " " + std::to_string(inc) + " died " + std::to_string(done));
    if (exit_status >= 0) std::exit(exit_status);
    raise(SIGKILL);
  }
  std::printf("rank %d final records %d\n", g_rank, done);
  std::fflush(stdout);
  if (victim && fence_kill && inc == 0) {
    check(ok(client.finalize_begin()), "finalize_begin");
    trace(std::to_string(g_rank) + " " + std::to_string(inc) + " died " + std::to_string(done));
    raise(SIGKILL);
  }
  if (!victim) {
    uint64_t until = ftmpi::now_ns() + static_cast<uint64_t>(linger_ms) * 1000000ull;
    while (ftmpi::now_ns() < until) serve(linger_ms);
  }
  // The fence without blocking: a process in MPI_Finalize keeps hearing of
  // (and, with a logging library, serving) restarted peers.
  check(ok(client.finalize_begin()), "finalize_begin");
  while (!client.fence_done()) serve(1000);
  check(ok(client.finalize()), "finalize");
  trace(std::to_string(g_rank) + " " + std::to_string(inc) + " final " + std::to_string(done) + " " +
        std::to_string(sink.failures) + " " + std::to_string(sink.restarts) + " " + std::to_string(staged));
  return 0;
}
