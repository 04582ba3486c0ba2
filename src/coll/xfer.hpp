// Xfer: the point-to-point side of one collective algorithm run. It posts
// sends and receives to team indices on the communicator's collective
// context, waits for a batch, and owns the algorithm's temporary buffers.
//
// Errors come in two kinds:
// - hard: a request failed (a peer died: kOther) or the team's Watch gave
//   up. wait() returns the error at once, even with requests of the batch
//   still pending, so a collective never waits for a dead peer. Pending
//   receives are withdrawn; what cannot be withdrawn (matched transfers,
//   sends) is left to the engine, which releases it when it completes, and
//   the temporary buffers those requests use are kept alive until then.
// - soft: a receive got a different number of bytes than the algorithm
//   expected (type signatures that do not match across processes). The
//   algorithm runs to its end, so no peer is left waiting, and result()
//   reports kTruncate.
//
// Tags: call sequence, algorithm id and step (tags.hpp), so every round of
// every call has its own tag; within one, matching relies on per-pair FIFO
// order, which the engine guarantees.
//
// After a hard error, receives that have not matched yet are replaced by
// zero-byte "drain" receives with the same source and tag: a live peer that
// still sends its part finds a receive, so its send completes (and its
// MPI_Finalize does not wait for it forever), while no data lands anywhere.
#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "base/err.hpp"
#include "coll/tags.hpp"
#include "coll/team.hpp"
#include "dtype/datatype.hpp"

namespace ftmpi::coll {

struct XferState;

// A hard error: the run stopped (anything but kOk and kTruncate).
inline bool is_hard(Err e) { return !ok(e) && e != Err::kTruncate; }

class Xfer {
 public:
  Xfer(const Team& team, AlgoId algo);
  ~Xfer();
  Xfer(const Xfer&) = delete;
  Xfer& operator=(const Xfer&) = delete;

  const Team& team() const { return team_; }

  void send(int peer, const void* buf, size_t count, const dtype::TypeRef& type, int step);
  void recv(int peer, void* buf, size_t count, const dtype::TypeRef& type, int step);
  void send_bytes(int peer, const void* buf, size_t n, int step);
  void recv_bytes(int peer, void* buf, size_t n, int step);

  // Sends of `bytes`-sized messages from now on go through the shared-memory
  // rings (p2p::Engine::isend) where that is faster: one large message at a
  // time between few ranks with big rings (a broadcast's sends, not an
  // all-to-all's). Measured, bcast of 1 MiB: np 2 91 -> 65 us, np 4 263-281
  // -> 200-219 us; np 8 (64 KiB rings) 385-441 -> 586-633, so not there.
  void prefer_rings(size_t bytes);

  // Waits for everything posted since the last wait(). kOk or a hard error.
  [[nodiscard]] Err wait();
  // The soft error of the whole run (kOk or kTruncate); call at the end.
  [[nodiscard]] Err result() const { return soft_; }

  // Uninitialised temporary memory that lives as long as this run. Blocks
  // come from a per-process pool (XferState) and go back to it, so repeated
  // collectives reuse memory that is already mapped (a fresh megabyte costs
  // hundreds of page faults).
  uint8_t* scratch(size_t bytes);

  struct Block {
    size_t size = 0;
    std::unique_ptr<uint8_t[]> mem;
  };

  struct Posted {
    p2p::Request* req;
    uint64_t expect;  // receive: bytes the algorithm expects
    bool is_recv;
  };

 private:
  void abandon();

  const Team& team_;
  p2p::Engine& eng_;
  XferState& mem_;
  uint64_t ctx_;
  AlgoId algo_;
  std::vector<Posted>& posted_;  // borrowed from XferState::lists: no allocation per run
  std::vector<Block> scratch_;
  Err soft_ = Err::kOk;
  bool waited_ = false;
  bool through_rings_ = false;
};

// What Xfer and TempArea keep per process (part of coll::State).
struct XferState {
  // Temporary buffers of abandoned runs, kept until the engine has released
  // every request that may still read or write them; swept whenever a new
  // run starts.
  struct Orphans {
    std::vector<uint64_t> request_ids;
    std::vector<Xfer::Block> buffers;
  };
  std::vector<Orphans> graveyard;
  // Ids of requests abandoned while a TempArea is open: the area's memory
  // may be what they still write into.
  std::vector<uint64_t> abandoned_ids;
  int open_areas = 0;
  // Request lists of the runs in progress (runs nest: an algorithm may run
  // others), kept with their capacity so a run allocates nothing for them.
  std::vector<std::unique_ptr<std::vector<Xfer::Posted>>> lists;
  size_t lists_in_use = 0;
  // Free scratch blocks, oldest first; at most kPoolBytes in all.
  static constexpr size_t kPoolBytes = size_t{64} << 20;
  std::vector<Xfer::Block> pool;
  size_t pool_bytes = 0;
};

// Temporary memory of an atomic collective (src/coll/ft/atomic.cpp): the
// algorithm writes its results there instead of the user's buffers. When a
// run stopped, requests it abandoned may still write into it, so the memory
// then waits in the graveyard until the engine has released them all.
class TempArea {
 public:
  explicit TempArea(State& st);
  ~TempArea();
  TempArea(const TempArea&) = delete;
  TempArea& operator=(const TempArea&) = delete;
  uint8_t* bytes(size_t n);

 private:
  p2p::Engine& eng_;
  XferState& mem_;
  size_t mark_;  // abandoned requests logged before this area opened
  std::vector<Xfer::Block> blocks_;
};

}  // namespace ftmpi::coll
