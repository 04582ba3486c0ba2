// The module seam (src/p2p/module_seam.hpp) sees what it promises: every
// send with its channel sequence number, every arrival and match, one
// delivery per request on every completion path (blocking calls included),
// every unsuccessful poll; and a module can force a wildcard receive's
// source and a poll's outcome (replay). The program installs a counting
// module right after MPI_Init (it links the library statically to reach the
// engine) and checks the counts after each step. Needs 3 ranks or more;
// ranks above 2 only take part in the collective at the end.
#include <mpi.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <map>
#include <vector>

#include "api/runtime.hpp"
#include "check.h"
#include "p2p/module_seam.hpp"

namespace {

using ftmpi::p2p::PollKind;

struct Counter final : ftmpi::p2p::ModuleSeam {
  int sends = 0, arrivals = 0, matches = 0, wildcard_matches = 0, probe_matches = 0, deliveries = 0;
  int requestless = 0;  // deliveries of blocking calls that used no request
  int polls[8] = {}, failed_polls[8] = {};
  int seq_errors = 0, payload_errors = 0;
  int sum_errors = 0;     // arrivals without the sum every send was given
  int computed_sums = 0;  // sums the receiving side computed (short frames)
  std::map<int32_t, uint64_t> sent_seq, got_seq;  // per peer slot
  uint8_t first_byte = 0;                          // of the last send, read through the seam
  // Replay controls.
  int32_t force_slot = -1;
  int force_polls = -1;  // >= 0: the next polls report 0 until this many, then success

  ftmpi::p2p::SendVerdict on_send(ftmpi::p2p::Envelope& e, ftmpi::p2p::TypedBuffer& data) override {
    ++sends;
    // (MPI_Init's own traffic came before the module: the first number seen is the base.)
    if (sent_seq.count(e.dst_slot) && e.seq != sent_seq[e.dst_slot] + 1) ++seq_errors;
    sent_seq[e.dst_slot] = e.seq;
    if (e.len != data.bytes()) ++payload_errors;
    if (e.len) data.pack(0, &first_byte, 1);
    // A sum of the bytes as they leave, as a logging module gives: the
    // short frames of small sends carry none and the receiver computes it.
    std::vector<uint8_t> bytes(static_cast<size_t>(e.len));
    if (e.len) data.pack(0, bytes.data(), bytes.size());
    e.sum = sum_of(e, bytes.data());
    e.sum_of_bytes = true;
    return ftmpi::p2p::SendVerdict::kGo;
  }
  static uint64_t sum_of(const ftmpi::p2p::Envelope& e, const uint8_t* p) {
    uint64_t h = 1469598103934665603ull ^ e.ctx ^ (static_cast<uint64_t>(static_cast<uint32_t>(e.tag)) << 32);
    for (uint64_t i = 0; i < e.len; ++i) h = (h ^ p[i]) * 1099511628211ull;
    return h | 1;
  }
  uint64_t checksum(const ftmpi::p2p::Envelope& e, const uint8_t* payload) override {
    ++computed_sums;
    return sum_of(e, payload);
  }
  ftmpi::p2p::ArrivalVerdict on_arrival(const ftmpi::p2p::Envelope& e) override {
    ++arrivals;
    if (e.sum == 0) ++sum_errors;
    if (got_seq.count(e.src_slot) && e.seq != got_seq[e.src_slot] + 1) ++seq_errors;
    got_seq[e.src_slot] = e.seq;
    return ftmpi::p2p::ArrivalVerdict::kAccept;
  }
  bool force_source(uint64_t, int, bool, int32_t* slot, uint64_t* seq) override {
    if (force_slot < 0) return false;
    *slot = force_slot;
    *seq = 0;
    return true;
  }
  void on_matched(const ftmpi::p2p::Envelope&, const ftmpi::p2p::Request* r, bool probe) override {
    if (probe) {
      ++probe_matches;
      return;
    }
    ++matches;
    if (r && r->peer_rank == MPI_ANY_SOURCE) ++wildcard_matches;
  }
  void on_delivered(const ftmpi::p2p::Request* r) override {
    ++deliveries;
    if (!r) ++requestless;
  }
  // Every send goes: the blocking calls may take their path without a request.
  bool sends_go() const override { return true; }
  void on_poll(PollKind kind, uint8_t* pick, size_t n) override {
    int k = static_cast<int>(kind);
    ++polls[k];
    if (force_polls > 0) {
      --force_polls;
      std::memset(pick, 0, n);
    } else if (force_polls == 0) {
      force_polls = -1;
      pick[0] = 1;
    }
    bool any = false;
    for (size_t i = 0; i < n; ++i) any = any || pick[i];
    if (!any) ++failed_polls[k];
  }
  ftmpi::p2p::FailurePolicy on_failure(ftmpi::ProcId) override { return ftmpi::p2p::FailurePolicy::kFail; }
  void on_peer_back(ftmpi::ProcId) override {}
};

Counter seam;
int rank, size;

// Counts of one step: what the seam must have seen, checked exactly.
// (Arrivals are not: a message may arrive during an earlier step. They are
// checked by sequence number: every one exactly once, see main.)
struct Seen {
  int sends, matches, deliveries;
};
Seen snap() { return Seen{seam.sends, seam.matches, seam.deliveries}; }
void expect(const char* step, const Seen& before, int sends, int matches, int deliveries) {
  Seen now = snap();
  CHECK(now.sends - before.sends == sends && now.matches - before.matches == matches &&
            now.deliveries - before.deliveries == deliveries,
        "%s: saw sends %d matches %d deliveries %d, want %d %d %d", step, now.sends - before.sends,
        now.matches - before.matches, now.deliveries - before.deliveries, sends, matches, deliveries);
  CHECK(seam.seq_errors == 0 && seam.payload_errors == 0 && seam.sum_errors == 0,
        "%s: %d sequence / %d payload / %d checksum errors", step, seam.seq_errors, seam.payload_errors,
        seam.sum_errors);
}

// Rank 0 and 1 only: both sides' counts are checked for each step.
void pair_steps() {
  const int peer = 1 - rank;
  int v = 0, w = 0;
  MPI_Status st;
  MPI_Request rq[3];

  Seen s = snap();  // blocking send and receive: one delivery each
  if (rank == 0) {
    v = 41;
    CHECK_MPI(MPI_Send(&v, 1, MPI_INT, peer, 1, MPI_COMM_WORLD));
    expect("MPI_Send", s, 1, 0, 1);
    CHECK(seam.requestless == 1, "the small blocking send went without a request: %d", seam.requestless);
    CHECK(seam.first_byte == 41, "payload read through the seam: %d", seam.first_byte);
  } else {
    CHECK_MPI(MPI_Recv(&v, 1, MPI_INT, peer, 1, MPI_COMM_WORLD, &st));
    CHECK(v == 41, "got %d", v);
    expect("MPI_Recv", s, 0, 1, 1);
    // (It may have arrived before this step: counted since the start.)
    CHECK(seam.computed_sums >= 1, "the 4-byte message came with its sum: none computed here");
    CHECK(seam.requestless == 1, "the small blocking receive went without a request: %d", seam.requestless);
  }

  s = snap();  // Isend/Irecv + Wait; Ssend (ACK), Rsend, Bsend
  if (rank == 0) {
    std::vector<char> buf(1 << 12);
    CHECK_MPI(MPI_Buffer_attach(buf.data(), static_cast<int>(buf.size())));
    CHECK_MPI(MPI_Isend(&v, 1, MPI_INT, peer, 2, MPI_COMM_WORLD, &rq[0]));
    CHECK_MPI(MPI_Wait(&rq[0], &st));
    CHECK_MPI(MPI_Ssend(&v, 1, MPI_INT, peer, 3, MPI_COMM_WORLD));
    CHECK_MPI(MPI_Recv(&w, 1, MPI_INT, peer, 4, MPI_COMM_WORLD, &st));  // peer's receive is posted
    CHECK_MPI(MPI_Rsend(&v, 1, MPI_INT, peer, 5, MPI_COMM_WORLD));
    CHECK_MPI(MPI_Bsend(&v, 1, MPI_INT, peer, 6, MPI_COMM_WORLD));
    void* p;
    int n;
    CHECK_MPI(MPI_Buffer_detach(&p, &n));
    expect("Isend/Ssend/Rsend/Bsend", s, 4, 1, 5);
  } else {
    CHECK_MPI(MPI_Irecv(&w, 1, MPI_INT, peer, 2, MPI_COMM_WORLD, &rq[0]));
    CHECK_MPI(MPI_Wait(&rq[0], &st));
    CHECK_MPI(MPI_Recv(&w, 1, MPI_INT, peer, 3, MPI_COMM_WORLD, &st));
    CHECK_MPI(MPI_Irecv(&w, 1, MPI_INT, peer, 5, MPI_COMM_WORLD, &rq[0]));
    CHECK_MPI(MPI_Send(&v, 1, MPI_INT, peer, 4, MPI_COMM_WORLD));
    CHECK_MPI(MPI_Wait(&rq[0], &st));
    CHECK_MPI(MPI_Recv(&w, 1, MPI_INT, peer, 6, MPI_COMM_WORLD, &st));
    expect("Irecv/Recv", s, 1, 4, 5);
  }

  s = snap();  // unsuccessful Test polls, then success; Iprobe likewise
  if (rank == 1) {
    CHECK_MPI(MPI_Irecv(&w, 1, MPI_INT, peer, 7, MPI_COMM_WORLD, &rq[0]));
    int flag = 1, misses = 0;
    CHECK_MPI(MPI_Test(&rq[0], &flag, &st));  // rank 0 sends only after the go below
    CHECK(!flag, "Test before the send succeeded");
    ++misses;
    int before = seam.failed_polls[static_cast<int>(PollKind::kTest)];
    CHECK_MPI(MPI_Send(&v, 1, MPI_INT, peer, 8, MPI_COMM_WORLD));
    while (!flag) {
      CHECK_MPI(MPI_Test(&rq[0], &flag, &st));
      if (!flag) ++misses;
    }
    CHECK(seam.failed_polls[static_cast<int>(PollKind::kTest)] - before == misses - 1,
          "seam saw %d unsuccessful Tests, the program %d", seam.failed_polls[static_cast<int>(PollKind::kTest)] - before + 1,
          misses);
    int iprobe_misses = 0;
    flag = 0;
    int fp = seam.failed_polls[static_cast<int>(PollKind::kIprobe)];
    CHECK_MPI(MPI_Iprobe(MPI_ANY_SOURCE, 9, MPI_COMM_WORLD, &flag, &st));
    CHECK(!flag, "Iprobe before the send succeeded");
    ++iprobe_misses;
    CHECK_MPI(MPI_Send(&v, 1, MPI_INT, peer, 8, MPI_COMM_WORLD));
    int probes = seam.probe_matches;
    while (!flag) {
      CHECK_MPI(MPI_Iprobe(MPI_ANY_SOURCE, 9, MPI_COMM_WORLD, &flag, &st));
      if (!flag) ++iprobe_misses;
    }
    CHECK(seam.failed_polls[static_cast<int>(PollKind::kIprobe)] - fp == iprobe_misses,
          "seam saw %d unsuccessful Iprobes, the program %d", seam.failed_polls[static_cast<int>(PollKind::kIprobe)] - fp,
          iprobe_misses);
    CHECK(seam.probe_matches == probes + 1, "wildcard probe match not seen");
    int wild = seam.wildcard_matches;
    CHECK_MPI(MPI_Recv(&w, 1, MPI_INT, MPI_ANY_SOURCE, 9, MPI_COMM_WORLD, &st));
    CHECK(seam.wildcard_matches == wild + 1 && st.MPI_SOURCE == 0, "wildcard receive not seen as one");
    expect("Test/Iprobe", s, 2, 2, 4);
  } else {
    CHECK_MPI(MPI_Recv(&w, 1, MPI_INT, peer, 8, MPI_COMM_WORLD, &st));
    CHECK_MPI(MPI_Send(&v, 1, MPI_INT, peer, 7, MPI_COMM_WORLD));
    CHECK_MPI(MPI_Recv(&w, 1, MPI_INT, peer, 8, MPI_COMM_WORLD, &st));
    CHECK_MPI(MPI_Send(&v, 1, MPI_INT, peer, 9, MPI_COMM_WORLD));
    expect("Send for Test/Iprobe", s, 2, 2, 4);
  }

  s = snap();  // the multiple-completion calls, a large (rendezvous) message, Sendrecv(_replace), self
  std::vector<int> big(1 << 15, rank);
  if (rank == 0) {
    for (int i = 0; i < 3; ++i) CHECK_MPI(MPI_Isend(&v, 1, MPI_INT, peer, 10 + i, MPI_COMM_WORLD, &rq[i]));
    CHECK_MPI(MPI_Waitall(3, rq, MPI_STATUSES_IGNORE));
    CHECK_MPI(MPI_Send(big.data(), static_cast<int>(big.size()), MPI_INT, peer, 13, MPI_COMM_WORLD));
  } else {
    int a[3], idx = -1, out = 0, flag = 0, idxs[3];
    for (int i = 0; i < 3; ++i) CHECK_MPI(MPI_Irecv(&a[i], 1, MPI_INT, peer, 10 + i, MPI_COMM_WORLD, &rq[i]));
    CHECK_MPI(MPI_Waitany(3, rq, &idx, &st));
    do CHECK_MPI(MPI_Testany(3, rq, &idx, &flag, &st)); while (!flag);
    do CHECK_MPI(MPI_Testsome(3, rq, &out, idxs, MPI_STATUSES_IGNORE)); while (out == 0);
    CHECK(out == 1, "Testsome: %d", out);
    CHECK(rq[0] == MPI_REQUEST_NULL && rq[1] == MPI_REQUEST_NULL && rq[2] == MPI_REQUEST_NULL, "requests left");
    CHECK_MPI(MPI_Irecv(big.data(), static_cast<int>(big.size()), MPI_INT, peer, 13, MPI_COMM_WORLD, &rq[0]));
    CHECK_MPI(MPI_Waitsome(1, rq, &out, idxs, MPI_STATUSES_IGNORE));
    CHECK(big[100] == 0, "large message");
  }
  CHECK_MPI(MPI_Sendrecv(&v, 1, MPI_INT, peer, 14, &w, 1, MPI_INT, peer, 14, MPI_COMM_WORLD, &st));
  CHECK_MPI(MPI_Sendrecv_replace(&v, 1, MPI_INT, peer, 15, peer, 15, MPI_COMM_WORLD, &st));
  CHECK_MPI(MPI_Isend(&v, 1, MPI_INT, rank, 16, MPI_COMM_WORLD, &rq[0]));  // to self
  CHECK_MPI(MPI_Recv(&w, 1, MPI_INT, rank, 16, MPI_COMM_WORLD, &st));
  CHECK_MPI(MPI_Wait(&rq[0], &st));
  CHECK_MPI(MPI_Testall(1, rq, &v, MPI_STATUSES_IGNORE));  // a null request: no delivery
  // Sendrecv and Sendrecv_replace: one send, one arrival and match, two
  // deliveries each; the self message: a send and a match, no arrival.
  if (rank == 0) expect("Waitall/large/Sendrecv/self", s, 4 + 2 + 1, 2 + 1, 4 + 4 + 2);
  else expect("Waitany/Testany/Testsome/Waitsome/Sendrecv/self", s, 2 + 1, 4 + 2 + 1, 4 + 4 + 2);

  // Persistent requests: each Start/Wait delivers once.
  s = snap();
  MPI_Request pr;
  if (rank == 0) CHECK_MPI(MPI_Send_init(&v, 1, MPI_INT, peer, 17, MPI_COMM_WORLD, &pr));
  else CHECK_MPI(MPI_Recv_init(&w, 1, MPI_INT, peer, 17, MPI_COMM_WORLD, &pr));
  for (int i = 0; i < 3; ++i) {
    CHECK_MPI(MPI_Start(&pr));
    CHECK_MPI(MPI_Wait(&pr, &st));
  }
  CHECK_MPI(MPI_Request_free(&pr));
  if (rank == 0) expect("persistent send", s, 3, 0, 3);
  else expect("persistent recv", s, 0, 3, 3);
}

// Replay controls: a forced wildcard source and forced poll outcomes.
void replay_steps() {
  int v = rank, w = -1;
  MPI_Status st;
  MPI_Request rq;
  if (rank == 0) {
    CHECK_MPI(MPI_Send(&v, 1, MPI_INT, 1, 20, MPI_COMM_WORLD));
    CHECK_MPI(MPI_Send(&v, 1, MPI_INT, 2, 21, MPI_COMM_WORLD));  // rank 2 sends only after this
  } else if (rank == 2) {
    CHECK_MPI(MPI_Recv(&w, 1, MPI_INT, 0, 21, MPI_COMM_WORLD, &st));
    CHECK_MPI(MPI_Send(&v, 1, MPI_INT, 1, 20, MPI_COMM_WORLD));
  } else if (rank == 1) {
    // Rank 0's message is (or will be) here first; the "log" says rank 2's matched.
    CHECK_MPI(MPI_Probe(0, 20, MPI_COMM_WORLD, &st));
    seam.force_slot = 2;
    CHECK_MPI(MPI_Recv(&w, 1, MPI_INT, MPI_ANY_SOURCE, 20, MPI_COMM_WORLD, &st));
    seam.force_slot = -1;
    CHECK(w == 2 && st.MPI_SOURCE == 2, "forced wildcard matched %d from %d", w, st.MPI_SOURCE);
    CHECK_MPI(MPI_Recv(&w, 1, MPI_INT, MPI_ANY_SOURCE, 20, MPI_COMM_WORLD, &st));
    CHECK(w == 0 && st.MPI_SOURCE == 0, "then %d from %d", w, st.MPI_SOURCE);
    // A poll forced to fail on a complete request, then forced to succeed.
    CHECK_MPI(MPI_Isend(&v, 1, MPI_INT, 1, 22, MPI_COMM_WORLD, &rq));
    CHECK_MPI(MPI_Recv(&w, 1, MPI_INT, 1, 22, MPI_COMM_WORLD, &st));
    seam.force_polls = 2;
    int flag = 1;
    CHECK_MPI(MPI_Test(&rq, &flag, &st));
    CHECK(!flag && rq != MPI_REQUEST_NULL, "forced unsuccessful Test");
    CHECK_MPI(MPI_Test(&rq, &flag, &st));
    CHECK(!flag, "second forced unsuccessful Test");
    CHECK_MPI(MPI_Test(&rq, &flag, &st));
    CHECK(flag && rq == MPI_REQUEST_NULL, "forced successful Test");
  }
}

}  // namespace

int main(int argc, char** argv) {
  CHECK_MPI(MPI_Init(&argc, &argv));
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  CHECK(size >= 3, "needs 3 ranks");
  ftmpi::api::rt()->engine.set_module(&seam);
  if (rank < 2) pair_steps();
  replay_steps();
  // Collective traffic goes through the seam too; none is delivered to the
  // application as a request.
  Seen s = snap();
  int one = 1, sum = 0;
  CHECK_MPI(MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
  CHECK(sum == size, "allreduce %d", sum);
  CHECK(seam.sends > s.sends && seam.deliveries == s.deliveries, "collective: %d sends, %d deliveries",
        seam.sends - s.sends, seam.deliveries - s.deliveries);
  CHECK(seam.seq_errors == 0, "sequence errors");
  // Every message of the pair 0 <-> 1 was seen arriving once, in order: the
  // receiver's last number is the one of the message telling the sender's.
  if (rank < 2) {
    long long mine = static_cast<long long>(seam.sent_seq[1 - rank]), theirs = -1;
    CHECK_MPI(MPI_Sendrecv(&mine, 1, MPI_LONG_LONG, 1 - rank, 30, &theirs, 1, MPI_LONG_LONG, 1 - rank, 30,
                           MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    CHECK(static_cast<long long>(seam.got_seq[1 - rank]) == theirs + 1, "last arrival %llu, peer sent %lld + 1",
          static_cast<unsigned long long>(seam.got_seq[1 - rank]), theirs);
    CHECK(seam.arrivals >= (rank == 0 ? 6 : 20), "arrivals %d", seam.arrivals);
  }
  CHECK(seam.seq_errors == 0, "sequence errors");
  ftmpi::api::rt()->engine.set_module(nullptr);
  CHECK_MPI(MPI_Finalize());
  if (rank == 0) std::printf("seam_counts: ok\n");
  return 0;
}
