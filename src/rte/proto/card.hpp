// A process's contact card, exchanged at MPI_Init (rte::Client::exchange_cards).
// Defined in the protocol layer because daemons carry cards without knowing
// what they mean; rte/client/client.hpp re-exports it.
#pragma once
#include <cstdint>
#include <string>

#include "base/proc_id.hpp"

namespace ftmpi::rte {

// How to reach one process. A slot with no live process at exchange time
// (dead, or ended without joining) gets a card with host == -1.
struct Card {
  ProcId id;
  int32_t host = -1;  // index of the host (daemon) it runs on
  int32_t pid = 0;
  std::string tcp_addr;  // where its TCP transport listens
  uint16_t tcp_port = 0;
  friend bool operator==(const Card&, const Card&) = default;
};

}  // namespace ftmpi::rte
