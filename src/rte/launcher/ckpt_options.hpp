// The checkpoint options of ftmpirun (transparent mode, issue 17), parsed by
// pure functions so that every rule is unit-tested:
//
//   --ckpt-interval=30s|500ms|2m|1h|auto   between two checkpoint rounds
//   --ckpt-store=local|memory|buddy|disk:DIR  where images are kept (default local)
//   --ckpt-policy=round-robin|adaptive     order within a round (default round-robin)
//   --ckpt-log-trigger=64m                 checkpoint a process whose peers hold that much for it
//   --ckpt-max-concurrent=N                processes checkpointing at once (default 2)
//   --ckpt-gc=on|off                       garbage collection after each checkpoint (default on)
//   --mtbf=2h                              mean time between failures (for auto)
//   --ckpt-keep                            disk images stay after a normal end
//
// Each needs --ft-transparent; auto needs --mtbf; --ckpt-keep needs the disk
// store, whose directory is made absolute, created if missing and checked
// writable before anything starts. The memory store's images are files of
// the host's shared memory (kMemoryStoreDir), written by each rank itself.
#pragma once
#include <cstdint>
#include <string>

#include "rte/launcher/ckpt_scheduler.hpp"

namespace ftmpi::rte {

enum class CkptStore : uint8_t { kLocal, kBuddy, kDisk, kMemory };

// Where the memory store keeps a host's images (a tmpfs on Linux), followed
// by "-UID": one directory per user, shared by that user's jobs, whose files
// carry the job's name.
inline constexpr const char* kMemoryStoreDir = "/dev/shm/ftmpi-ckpt";
std::string memory_store_dir();

struct CkptOptions {
  bool given = false;  // any --ckpt-* or --mtbf option
  bool on = false;     // checkpoints are taken (an interval or a log trigger)
  bool interval_auto = false;
  uint64_t interval_ns = 0;
  CkptStore store = CkptStore::kLocal;
  std::string disk_dir;  // absolute once check_ckpt_options accepted it (memory: memory_store_dir())
  bool keep = false;     // --ckpt-keep
  CkptPolicy policy = CkptPolicy::kRoundRobin;
  uint64_t log_trigger = 0;
  // Two at a time overlap their pauses: one rank's image stalls every rank
  // that waits on it, and two pauses at once cost the job about one
  // (CG np 8 on 2 cores: 1.17-1.19x -> 1.04-1.10x plain, docs/benchmarks.md).
  int max_concurrent = 2;
  bool gc = true;  // senders and the event logger drop what a held image no longer needs
  uint64_t mtbf_ns = 0;
  std::string first_given;  // the first option seen, for messages
};

// "30s", "1.5s", "500ms", "2m", "2h" (a bare number is seconds) -> ns.
bool parse_ckpt_duration(const std::string& v, uint64_t& ns);
// "64m", "1g", "4096", "512k" -> bytes.
bool parse_ckpt_bytes(const std::string& v, uint64_t& bytes);

// `a` is one command-line word, `next` the word after it (may be null).
// Returns false if `a` is not a checkpoint option; else sets `err` on a bad
// value and `used_next` when the value was the next word.
bool take_ckpt_option(const std::string& a, const std::string* next, CkptOptions& o, bool& used_next,
                      std::string& err);
// After the whole command line: the rules between options. Empty: fine.
std::string check_ckpt_options(CkptOptions& o, bool transparent);
// The disk store's directory: made absolute (against the working directory),
// created with its parents if missing, then checked to be a writable
// directory. Empty: fine; else the one-line error, which starts with
// `option` (as the user wrote the store).
std::string prepare_disk_dir(std::string& dir, const std::string& option);
// What tells daemons and ranks where images go (proto::kCkptStoreEnv,
// read back by proto::parse_store_setting); "" for the local store.
std::string ckpt_store_env(const CkptOptions& o);
// The fork of a process whose heap is in 4 KiB pages copies one page-table
// entry per page: about 32 ms of CPU per GiB here. With glibc's malloc asked
// for transparent huge pages it copies one per 2 MiB: under 1 ms per GiB
// (measured, docs/benchmarks.md). When checkpoints are on, every rank gets
// GLIBC_TUNABLES with glibc.malloc.hugetlb=1 added to `current` (the
// launcher's own value, kept), unless `current` already sets hugetlb or
// `opt_out` (FTMPI_CKPT_HUGEPAGES=0), or the store is memory (no fork).
// Returns "NAME=value", or "" for none.
std::string ckpt_tunables(const CkptOptions& o, const char* current, bool opt_out);
// The scheduler's settings for these options.
CkptScheduleConfig schedule_config(const CkptOptions& o);

}  // namespace ftmpi::rte
