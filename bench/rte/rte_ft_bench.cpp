// Runtime-level fault-tolerance timings, with rte::Client only (no MPI):
// how long after a SIGKILL every survivor has its notice, and how long until
// every survivor has the result of the recovery round.
//
//   ftmpirun -np N --ft-comm-mode=MODE bench_rte_ft VICTIMS
//
// Rank 0 waits until everybody sleeps on its control channel, then SIGKILLs
// the highest VICTIMS ranks back to back and prints the CLOCK_MONOTONIC time
// of the first kill. Every survivor sleeps in poll() on the control channel
// (as a blocked MPI call does), records when the last expected notice
// arrived, asks for recovery at once (as in recovery mode auto) and records
// when the round's result arrived; a respawned process records when its
// card exchange (= its round) returned. Lines on stdout:
//   kill T_NS
//   survivor R notified T_NS recovered T_NS epoch E
//   respawned R joined T_NS epoch E
// run_rte_bench.py turns them into latencies.
#include <poll.h>
#include <signal.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <vector>

#include "base/clock.hpp"
#include "rte/client/client.hpp"

using ftmpi::ProcId;
using ftmpi::now_ns;
using namespace ftmpi::rte;

namespace {

struct Sink : EventSink {
  int failures = 0;
  uint64_t last_notice_ns = 0;
  uint64_t last_seq = 0;
  bool recovered = false;
  uint64_t recovered_ns = 0;
  uint32_t epoch = 0;
  void on_proc_failed(ProcId, uint64_t seq) override {
    ++failures;
    last_seq = seq;
    last_notice_ns = now_ns();
  }
  void on_job_abort(int) override { std::exit(2); }
  void on_recovery_done(const RecoveryResult& r) override {
    recovered = true;
    recovered_ns = now_ns();
    epoch = r.epoch;
  }
};

}  // namespace

int main(int argc, char** argv) {
  int victims = argc > 1 ? std::atoi(argv[1]) : 1;
  Client client;
  BootInfo boot;
  if (client.init(boot) != ftmpi::Err::kOk) return 3;
  Card mine;
  mine.tcp_addr = boot.tcp_bind_addr;
  std::vector<Card> cards;
  if (client.exchange_cards(mine, cards) != ftmpi::Err::kOk) return 3;
  int rank = boot.self.slot, n = boot.world_size;
  if (boot.restarted) {
    std::printf("respawned %d joined %llu epoch %u\n", rank, static_cast<unsigned long long>(now_ns()),
                client.restart_result().epoch);
  } else if (rank == 0) {
    usleep(200000);  // everybody is asleep in poll() by then
    uint64_t t0 = now_ns();
    for (int v = n - victims; v < n; ++v) kill(cards[static_cast<size_t>(v)].pid, SIGKILL);
    std::printf("kill %llu\n", static_cast<unsigned long long>(t0));
  } else if (rank >= n - victims) {
    for (;;) pause();  // a victim
  }
  std::fflush(stdout);
  if (!boot.restarted) {
    Sink sink;
    while (!sink.recovered || sink.failures < victims) {
      if (!client.has_pending_events()) {
        pollfd p{client.fd(), POLLIN, 0};
        ::poll(&p, 1, 10000);
      }
      client.poll(sink);
      if (sink.failures >= victims && !client.recovery_requested() && !sink.recovered)
        if (client.request_recovery(sink.last_seq) != ftmpi::Err::kOk) return 3;
    }
    std::printf("survivor %d notified %llu recovered %llu epoch %u\n", rank,
                static_cast<unsigned long long>(sink.last_notice_ns),
                static_cast<unsigned long long>(sink.recovered_ns), sink.epoch);
    std::fflush(stdout);
  }
  return client.finalize() == ftmpi::Err::kOk ? 0 : 3;
}
