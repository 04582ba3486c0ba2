// The client side of the buddy checkpoint server (spec/checkpoint-image.md
// §6): a forked child streams its image to another host's daemon, and a
// restorer's launcher fetches one back. Blocking calls with a deadline: they
// run in a forked child or before a restorer starts, never in a daemon's loop.
#pragma once
#include <cstdint>
#include <string>

#include "base/auth.hpp"
#include "modules/ckpt/image.hpp"

namespace ftmpi::ckpt {

// Connects, proves the job secret and asks to store image `number` of
// `slot`: capture_self(fd) then buddy_put_finish(fd).
Result<int> buddy_put_begin(const std::string& addr, uint16_t port, const auth::Secret& secret, int32_t slot,
                            uint64_t number, int timeout_ms);
// Waits for the server to confirm it holds the whole image; closes fd.
Error buddy_put_finish(int fd, int timeout_ms);
// Asks for the image of `slot` (`number` 0: whichever it holds); on success
// the descriptor is positioned at the image stream, past the number the
// server answers with (restore_from reads it,
// or a restorer inherits it as FTMPI_CKPT_RESTORE).
Result<int> buddy_get(const std::string& addr, uint16_t port, const auth::Secret& secret, int32_t slot,
                      uint64_t number, int timeout_ms);

}  // namespace ftmpi::ckpt
