// Test program for the runtime, using only rte::Client (no MPI library).
//   rte_probe <scenario> [args...] [--marker X]
// Scenarios (every rank runs the same one; all of them init and exchange cards first):
//   cards                 check BootInfo and the card table, print one "ok" line, finalize
//   modes                 print the FT modes from BOOT, finalize
//   output N              print N stdout lines and 1 stderr line, then a partial line, finalize
//   stdin                 rank 0 prints what it reads from stdin until EOF, finalize
//   exit R CODE WHEN      rank R exits with CODE "before" or "after" finalize
//   selfkill R            rank R SIGKILLs itself after the exchange; others finalize
//   abort R CODE          rank R calls abort(CODE); others finalize
//   sleep                 wait until the runtime ends the job
//   stubborn              like sleep, but ignoring SIGTERM (the runtime must SIGKILL)
//   nap MS                sleep MS milliseconds, then finalize
//   notices R1,R2,..      ranks R* SIGKILL themselves; survivors wait for one notice per
//                         victim, print them in order, finalize
//   suspect               rank 0 reports rank 1 as suspect (alive): nothing may happen
// Exit status 3 means the probe itself found something wrong.
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "rte/client/client.hpp"

using ftmpi::ProcId;
using namespace ftmpi::rte;

namespace {

int g_rank = -1;

[[noreturn]] void die(const char* what) {
  std::printf("rank %d: PROBE ERROR: %s\n", g_rank, what);
  std::fflush(stdout);
  std::exit(3);
}

void check(bool cond, const char* what) {
  if (!cond) die(what);
}

struct Recorder : EventSink {
  std::vector<std::pair<ProcId, uint64_t>> failures;
  int aborted = -1;
  void on_proc_failed(ProcId who, uint64_t seq) override { failures.emplace_back(who, seq); }
  void on_job_abort(int code) override { aborted = code; }
  std::vector<RecoveryResult> rounds;
  void on_recovery_done(const RecoveryResult& r) override { rounds.push_back(r); }
};

bool fd_is_eventfd(int fd) {
  char path[64], target[128] = {};
  std::snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
  return readlink(path, target, sizeof target - 1) > 0 && std::strstr(target, "eventfd");
}

void check_boot(const BootInfo& b) {
  check(!b.singleton, "singleton under ftmpirun");
  check(b.self.slot >= 0 && b.self.slot < b.world_size, "slot out of range");
  check(static_cast<size_t>(b.local_index) < b.local_slots.size(), "local_index out of range");
  check(b.local_slots[static_cast<size_t>(b.local_index)] == b.self.slot, "local_slots[local_index] != slot");
  check(b.doorbell_fds.size() == b.local_slots.size(), "one doorbell per local rank");
  for (int d : b.doorbell_fds) check(fd_is_eventfd(d), "doorbell is not an eventfd");
  struct stat st {};
  check(b.shm_fd >= 0 && fstat(b.shm_fd, &st) == 0, "no shm fd");
  check(static_cast<uint64_t>(st.st_size) == b.shm_size, "shm size differs from BOOT");
  check(b.tcp_bind_addr.rfind("127.", 0) == 0, "tcp bind address not loopback");
  check(std::getenv("FTMPI_CTRL_FD") == nullptr, "FTMPI_CTRL_FD still set after init");
  bool nonzero = false;
  for (auto x : b.secret) nonzero |= x != 0;
  check(nonzero, "empty secret");
}

void check_cards(const BootInfo& b, const std::vector<Card>& cards) {
  check(cards.size() == static_cast<size_t>(b.world_size), "card table size != world size");
  std::set<int> pids;
  for (size_t i = 0; i < cards.size(); ++i) {
    check(cards[i].id.slot == static_cast<int>(i), "cards not indexed by slot");
    check(cards[i].host >= 0, "a live rank has no card");
    check(cards[i].tcp_port == 10000 + i, "card carries a wrong port");
    pids.insert(cards[i].pid);
  }
  check(pids.size() == cards.size(), "pids in the card table are not distinct");
  check(cards[static_cast<size_t>(b.self.slot)].pid == getpid(), "my card has the wrong pid");
}

std::vector<int> parse_list(const std::string& s) {
  std::vector<int> v;
  std::stringstream ss(s);
  std::string tok;
  while (std::getline(ss, tok, ',')) v.push_back(std::atoi(tok.c_str()));
  return v;
}

void wait_for_notices(Client& c, Recorder& rec, size_t want) {
  for (int i = 0; i < 2000 && rec.failures.size() < want; ++i) {
    if (!c.has_pending_events()) {
      pollfd p{c.fd(), POLLIN, 0};
      ::poll(&p, 1, 10);
    }
    c.poll(rec);
  }
  check(rec.failures.size() == want, "did not get the expected failure notices");
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> args;
  for (int i = 1; i < argc; ++i) {
    if (std::string(argv[i]) == "--marker" && i + 1 < argc) {
      ++i;  // only there to be found with pgrep
      continue;
    }
    args.push_back(argv[i]);
  }
  if (args.empty()) die("no scenario");
  const std::string& sc = args[0];
  auto arg = [&](size_t i) -> const std::string& {
    if (i >= args.size()) die("missing argument");
    return args[i];
  };

  Client client;
  BootInfo boot;
  check(client.init(boot) == ftmpi::Err::kOk, "init failed");
  g_rank = boot.self.slot;
  check_boot(boot);
  Card mine;
  mine.tcp_addr = boot.tcp_bind_addr;
  mine.tcp_port = static_cast<uint16_t>(10000 + g_rank);
  std::vector<Card> cards;
  check(client.exchange_cards(mine, cards) == ftmpi::Err::kOk, "exchange failed");
  Recorder rec;

  if (sc == "cards") {
    check_cards(boot, cards);
    std::printf("rank %d of %d: %zu cards ok, %zu local\n", g_rank, boot.world_size, cards.size(),
                boot.local_slots.size());
  } else if (sc == "modes") {
    std::printf("rank %d modes comm=%s msg=%s coll=%s recovery=%s\n", g_rank, mode_name(boot.modes.comm),
                mode_name(boot.modes.msg), mode_name(boot.modes.coll), mode_name(boot.modes.recovery));
  } else if (sc == "output") {
    int n = std::atoi(arg(1).c_str());
    for (int i = 0; i < n; ++i) std::printf("rank %d line %d\n", g_rank, i);
    std::fprintf(stderr, "rank %d to stderr\n", g_rank);
    std::printf("rank %d tail", g_rank);  // no newline: the launcher completes it
  } else if (sc == "stdin") {
    if (g_rank == 0) {
      std::string all;
      char buf[4096];
      ssize_t r;
      while ((r = read(0, buf, sizeof buf)) > 0) all.append(buf, static_cast<size_t>(r));
      unsigned long sum = 0;
      for (unsigned char ch : all) sum = sum * 31 + ch;
      if (all.size() <= 200)
        std::printf("rank 0 read %zu bytes: [%s]\n", all.size(), all.c_str());
      else
        std::printf("rank 0 read %zu bytes, hash %lu\n", all.size(), sum);
    }
  } else if (sc == "exit") {
    int who = std::atoi(arg(1).c_str()), code = std::atoi(arg(2).c_str());
    bool before = arg(3) == "before";
    if (g_rank == who && before) {
      std::fflush(stdout);
      std::_Exit(code);
    }
    check(client.finalize() == ftmpi::Err::kOk, "finalize failed");
    std::fflush(stdout);
    return g_rank == who ? code : 0;
  } else if (sc == "selfkill") {
    if (g_rank == std::atoi(arg(1).c_str())) raise(SIGKILL);
  } else if (sc == "abort") {
    if (g_rank == std::atoi(arg(1).c_str())) client.abort(std::atoi(arg(2).c_str()), "probe abort");
  } else if (sc == "stubborn") {
    signal(SIGTERM, SIG_IGN);
    std::printf("rank %d sleeping\n", g_rank);
    std::fflush(stdout);
    for (;;) pause();
  } else if (sc == "sleep") {
    std::printf("rank %d sleeping\n", g_rank);
    std::fflush(stdout);
    for (;;) pause();
  } else if (sc == "nap") {
    usleep(static_cast<useconds_t>(std::atoi(arg(1).c_str())) * 1000);
  } else if (sc == "notices") {
    std::vector<int> victims = parse_list(arg(1));
    for (int v : victims)
      if (v == g_rank) raise(SIGKILL);
    wait_for_notices(client, rec, victims.size());
    std::string line = "rank " + std::to_string(g_rank) + " saw";
    for (auto& [who, seq] : rec.failures)
      line += " " + std::to_string(seq) + ":" + std::to_string(who.slot) + "." + std::to_string(who.incarnation);
    std::printf("%s\n", line.c_str());
    check(cards.size() == static_cast<size_t>(boot.world_size), "card table size");
  } else if (sc == "suspect") {
    if (g_rank == 0 && boot.world_size > 1) client.report_suspect(ProcId{1, 0});
  } else {
    die("unknown scenario");
  }
  check(client.finalize() == ftmpi::Err::kOk, "finalize failed");
  client.poll(rec);
  if (sc != "notices") check(rec.failures.empty(), "unexpected failure notice");
  std::fflush(stdout);
  return 0;
}
