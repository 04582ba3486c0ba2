// The local store (spec/checkpoint-protocol.md §2): a checkpoint image is a
// copy of the process made by fork at a safe point, kept frozen on the same
// host. The copy is a child of the daemon, not of the rank (CLONE_PARENT):
// the daemon watches and reaps it like its ranks, and it dies with the
// daemon (PR_SET_PDEATHSIG) or when the daemon drops it (SIGKILL).
//
// In the copy, before anything else: every inherited runtime and transport
// descriptor is closed at once (sockets, eventfds, epoll sets, the shm
// segment's memfd), so that peers and the daemon still see the process die
// when the original dies; the transports' shared mapping is unmapped (its
// pages belong to the live processes); the copy leaves the rank's process
// group (the daemon kills that group when the rank dies). Then it blocks,
// without spinning, in poll() on its wake socket (and on a pidfd of the
// original: once the original is dead, an image nobody wakes within 10 s
// exits). Woken, it takes the descriptors the daemon passes (new stdio,
// control socket, the host's segment and doorbells), leaves a spare behind
// (another frozen copy of the same checkpoint, which the daemon keeps as the
// slot's image until the next checkpoint: a second death before that wakes
// the spare), and returns from freeze_local_image() as the slot's next
// incarnation.
#pragma once
#include <sys/types.h>

#include <cstdint>
#include <string>

#include "modules/ckpt/store_copy.hpp"

namespace ftmpi::ckpt {

// Exit status of an image whose wake-up handshake failed.
inline constexpr int kWakeFailedExit = 124;

struct Frozen {
  // In the woken copy: true, with the new control socket (the other
  // descriptors are in place); the caller resumes (resume.hpp).
  bool woken = false;
  int ctrl_fd = -1;
  pid_t pid = -1;         // the image; -1: no image (error says why)
  uint64_t pause_ns = 0;  // what the fork cost the process
  std::string error;
  // This process was restored from the stored image (the copy's capture
  // point) and resumed as the slot's next incarnation: nothing to report.
  bool resumed = false;
};

// What a process restored from a buddy or disk image runs at once, in the
// copy's frame, to become the slot's next incarnation: returns when it is
// (freeze_local_image then returns with `resumed`), or ends the process.
class RestoredHook {
 public:
  virtual void resume_restored() = 0;

 protected:
  ~RestoredHook() = default;
};

// Abstract Unix socket name on which the image of checkpoint `number` of the
// process `owner_pid` waits to be woken (the daemon connects to it).
std::string wake_socket_name(pid_t owner_pid, uint64_t number);

// Forks the image. With a buddy or disk `store`, the copy first writes
// itself there (store_copy.hpp). Returns in the original process at once; in
// the copy once its daemon woke it (woken = true, the caller resumes:
// resume.hpp); and in a process restored from the stored image once
// `restored` made it the next incarnation (resumed = true). The copy may
// also be killed frozen, or exit (an orphan, a failed handshake).
Frozen freeze_local_image(uint64_t number, const StoreTarget& store, RestoredHook& restored);

}  // namespace ftmpi::ckpt
