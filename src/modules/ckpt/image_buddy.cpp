#include "modules/ckpt/image_buddy.hpp"

#include <poll.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "base/fd.hpp"

namespace ftmpi::ckpt {
namespace {

constexpr char kRequestMagic[8] = {'F', 'T', 'C', 'K', 'S', 'R', 'V', '1'};
constexpr uint32_t kOpPut = 1, kOpGet = 2;

Result<int> open_request(const std::string& addr, uint16_t port, const auth::Secret& secret, uint32_t op,
                         int32_t slot, uint64_t number, int timeout_ms) {
  std::string where = "checkpoint server " + addr + ":" + std::to_string(port);
  int fd = fd::tcp_connect(addr, port, false);
  if (fd < 0) return Error{"cannot connect to " + where + ": " + std::strerror(errno)};
  fd::tcp_tune(fd, timeout_ms);
  if (!auth::handshake_fd(fd, secret, true, timeout_ms)) {
    ::close(fd);
    return Error{where + " did not complete the job-secret handshake"};
  }
  uint8_t req[24];
  std::memcpy(req, kRequestMagic, 8);
  std::memcpy(req + 8, &op, 4);
  std::memcpy(req + 12, &slot, 4);
  std::memcpy(req + 16, &number, 8);
  if (!fd::write_all(fd, req, sizeof req)) {
    ::close(fd);
    return Error{"cannot send a request to " + where};
  }
  return fd;
}

// The server's 8-byte answer, "" if none came in time.
std::string answer(int fd, int timeout_ms) {
  pollfd p{fd, POLLIN, 0};
  if (::poll(&p, 1, timeout_ms) <= 0) return "";
  char w[8];
  if (!fd::read_all(fd, w, sizeof w)) return "";
  return std::string(w, strnlen(w, 8));
}

}  // namespace

Result<int> buddy_put_begin(const std::string& addr, uint16_t port, const auth::Secret& secret, int32_t slot,
                            uint64_t number, int timeout_ms) {
  return open_request(addr, port, secret, kOpPut, slot, number, timeout_ms);
}

Error buddy_put_finish(int fd, int timeout_ms) {
  std::string a = answer(fd, timeout_ms);
  ::close(fd);
  if (a == "STORED") return {};
  if (a == "REFUSED") return {"the checkpoint server refused the image (torn or corrupt on arrival)"};
  return {"the checkpoint server did not confirm the image"};
}

Result<int> buddy_get(const std::string& addr, uint16_t port, const auth::Secret& secret, int32_t slot,
                      uint64_t number, int timeout_ms) {
  auto r = open_request(addr, port, secret, kOpGet, slot, number, timeout_ms);
  if (!r.ok()) return r;
  std::string a = answer(r.value(), timeout_ms);
  uint64_t held = 0;
  if (a == "IMAGE" && fd::read_all(r.value(), &held, sizeof held) && held != 0 && (number == 0 || held == number))
    return r;
  ::close(r.value());
  if (a == "IMAGE") return Error{"the checkpoint server sent no or another image number"};
  if (a == "NOIMAGE") return Error{"the checkpoint server holds no such image of slot " + std::to_string(slot)};
  return Error{"the checkpoint server did not answer"};
}

}  // namespace ftmpi::ckpt
