// A process that was a checkpoint image becomes the slot's next incarnation
// (spec/checkpoint-protocol.md §5). Independent of how the image came back:
// a local image woken by its daemon (local_image.cpp) or a process restored
// from a buddy or disk image both end here, inside the MPI call that took
// the checkpoint, with the runtime's descriptors already in place.
#pragma once
#include "modules/logging/module.hpp"
#include "p2p/engine.hpp"
#include "rte/client/client.hpp"

namespace ftmpi::ckpt {

// Exit status of an image that could not resume (the daemon sees the new
// incarnation die and restarts the slot again).
inline constexpr int kResumeFailedExit = 123;

// The caller has already:
//  - made 0, 1 and 2 the new incarnation's stdin, stdout and stderr;
//  - put the host's shared-memory memfd and the doorbell eventfds at the
//    descriptor numbers the daemon's BOOT will name (the numbers a fresh
//    spawn of the slot inherits; a moved slot: its own doorbell only);
//  - `ctrl_fd`: the new control socket to the daemon (any number that is
//    none of the above), on which nothing was said yet;
//  - no descriptor of the old process's runtime or transports is expected
//    to be open: their numbers are forgotten, never closed (they may have
//    been reused by the descriptors above).
// It then: says HELLO on ctrl_fd and takes BOOT (the next incarnation of
// the same slot, `restarted`), re-creates the engine's transports (maps the
// segment again, a new TCP listener), registers its card and installs the
// current card table, fetches the determinants and replays those the image
// had not seen, and re-sends its whole sender log to every live peer.
// Returns with the process running as the new incarnation (the caller goes
// on with the MPI call it was in). Never returns on failure: a wrong BOOT,
// a lost daemon or a transport that cannot be set up end the process with
// kResumeFailedExit (before HELLO, or after: the daemon counts it as a
// death of the new incarnation either way).
void resume_as_next_incarnation(p2p::Engine& engine, rte::Client& client, logging::Module& logging, int ctrl_fd);

}  // namespace ftmpi::ckpt
