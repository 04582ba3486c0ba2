// The event logger's store in a daemon (transparent mode, DESIGN §8): each
// slot's determinant batches, kept in (incarnation, batch) order. A daemon
// has two: the primary copy of the slots it runs, and the replicas it keeps
// as another daemon's buddy. Batches are immutable and named by
// (incarnation, batch), so adding one twice, or merging two copies of a
// slot's log, never duplicates or reorders anything.
#pragma once
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "rte/proto/event_log_messages.hpp"

namespace ftmpi::rte {

class EventLog {
 public:
  // False if that batch was held already (its content is not compared), or
  // garbage collection dropped it.
  bool add(int32_t slot, proto::DetBatch b);
  // Garbage collection: drops the slot's batches of incarnations before
  // `incarnation` and those of `incarnation` up to `batch`; returns the
  // data bytes dropped. last_batch() still counts the dropped ones.
  size_t drop_through(int32_t slot, uint32_t incarnation, uint64_t batch);
  bool has(int32_t slot) const { return slots_.count(slot) > 0; }
  // Every batch of `slot`, in order (empty if none).
  const std::vector<proto::DetBatch>& batches(int32_t slot) const;
  // The batches' data concatenated in order: what a restarted process replays.
  std::string concatenated(int32_t slot) const;
  // The last batch `incarnation` logged (0: none).
  uint64_t last_batch(int32_t slot, uint32_t incarnation) const;
  std::vector<int32_t> slots() const;
  size_t bytes() const { return bytes_; }

 private:
  struct Floor {  // the last batch garbage collection dropped
    uint32_t incarnation = 0;
    uint64_t batch = 0;
  };
  std::map<int32_t, std::vector<proto::DetBatch>> slots_;
  std::map<int32_t, Floor> floors_;
  size_t bytes_ = 0;
};

// Cuts a slot's batches into pieces of at most `max_bytes` of data each (at
// least one batch per piece), for frames below the protocol's bound.
std::vector<std::vector<proto::DetBatch>> cut_batches(const std::vector<proto::DetBatch>& v, size_t max_bytes);

}  // namespace ftmpi::rte
