// The wake-up of a local checkpoint image (spec/checkpoint-protocol.md §5):
// the one message a daemon sends on the image's abstract wake socket, with
// the new incarnation's descriptors attached (SCM_RIGHTS), in `target`
// order: where each must go in the image (kWakeAnyFd: the control socket,
// left where it lands). The image answers a WakeAnswer once every
// descriptor is in place and it left a spare behind (another frozen copy
// of the same checkpoint, the slot's image from then on), and then says
// HELLO on the control socket.
#pragma once
#include <cstdint>
#include <string>

namespace ftmpi::rte::proto {

inline constexpr uint32_t kWakeMagic = 0x4b575446;  // "FTWK"
// Below the kernel's SCM_MAX_FD (253) with room to spare.
inline constexpr uint32_t kWakeMaxFds = 200;
inline constexpr int32_t kWakeAnyFd = -1;
inline constexpr uint8_t kWakeOk = 1;

// Abstract Unix socket on which the image of checkpoint `number` of the
// process `owner_pid` waits (the daemon connects to it).
inline std::string wake_socket_name(int32_t owner_pid, uint64_t number) {
  return "ftmpi-image-" + std::to_string(owner_pid) + "-" + std::to_string(number);
}

struct WakeAnswer {
  uint8_t ok = kWakeOk;
  uint8_t reserved[3] = {};
  // The spare: a child of the daemon (CLONE_PARENT) waiting on
  // wake_socket_name(the woken process's pid, number); 0: none was made.
  int32_t spare_pid = 0;
};

struct WakeHeader {
  uint32_t magic = kWakeMagic;
  uint32_t count = 0;
  int32_t target[kWakeMaxFds] = {};
};

}  // namespace ftmpi::rte::proto
