#include "modules/ckpt/store_copy.hpp"

#include <linux/tcp.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <algorithm>
#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "base/clock.hpp"
#include "base/params.hpp"
#include "modules/ckpt/image.hpp"
#include "modules/ckpt/image_buddy.hpp"
#include "modules/ckpt/image_disk.hpp"
#include "rte/proto/ckpt_messages.hpp"
#include "rte/proto/frame.hpp"

namespace ftmpi::ckpt {
namespace {

using rte::proto::CkptFacts;

// A whole image over a live link; a buddy that takes longer is reported as
// not confirming, and the local image still serves.
constexpr int kBuddyTimeoutMs = 60'000;

// What TCP says this socket sent (field: sent) or had acknowledged.
uint64_t tcp_bytes(int fd, bool acked) {
  tcp_info info{};
  socklen_t len = sizeof info;
  if (::getsockopt(fd, IPPROTO_TCP, TCP_INFO, &info, &len) != 0) return 0;
  return acked ? info.tcpi_bytes_acked : info.tcpi_bytes_sent;
}

Result<Captured> to_buddy(const StoreTarget& t, const std::string& leave_out, uint64_t& bytes) {
  auto c = buddy_put_begin(t.buddy_addr, t.buddy_port, t.secret, t.slot, t.number, kBuddyTimeoutMs);
  if (!c.ok()) return c.error();
  const int fd = c.value();
  // The stream's length: what the server acknowledged once it confirmed,
  // less the handshake and request sent before it.
  const uint64_t before = tcp_bytes(fd, false);
  auto r = capture_self(fd, leave_out, nullptr, t.unused);
  if (r.ok() && r.value() == Captured::kResumed) return r;
  if (!r.ok()) {
    ::close(fd);
    return r.error();
  }
  pollfd p{fd, POLLIN, 0};
  (void)::poll(&p, 1, kBuddyTimeoutMs);  // the answer: everything was acknowledged
  const uint64_t after = tcp_bytes(fd, true);
  bytes = after > before ? after - before : 0;
  if (Error e = buddy_put_finish(fd, kBuddyTimeoutMs); !e.ok()) return e;
  return Captured::kSaved;
}

// With a tracker (the memory store), an incremental image when it pays.
Result<Captured> to_disk(const StoreTarget& t, const std::string& leave_out, uint64_t& bytes, std::string& where) {
  const bool memory = t.kind == CkptFacts::kStoreMemory;
  DiskStore store(t.dir, t.job, memory ? DiskStore::Reuse::kSpare : DiskStore::Reuse::kNone);
  DeltaTracker* d = memory ? t.delta : nullptr;
  const uint64_t base = d ? store.delta_base(t.slot, t.number, *d) : 0;
  where = store.path_of(t.slot, t.number, base);
  auto b = store.begin(t.slot, t.number, base);
  if (!b.ok()) {
    if (d) d->not_stored();
    return b.error();
  }
  const int fd = b.value();
  auto r = capture_self(fd, leave_out, d, t.unused);
  if (r.ok() && r.value() == Captured::kResumed) return r;
  if (!r.ok()) {
    store.abandon(fd, t.slot, t.number, base);
    if (d) d->not_stored();
    return r.error();
  }
  const off_t end = ::lseek(fd, 0, SEEK_CUR);
  bytes = end > 0 ? static_cast<uint64_t>(end) : 0;
  if (Error e = store.commit(fd, t.slot, t.number, base); !e.ok()) {
    if (d) d->not_stored();
    return e;
  }
  if (d) d->stored(t.number);
  return Captured::kSaved;
}

void report(const StoreTarget& t, const rte::proto::CkptStored& m) {
  int s = ::socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  if (s < 0) return;
  const std::string name = rte::proto::ckpt_store_socket_name(t.daemon_pid);
  sockaddr_un a{};
  a.sun_family = AF_UNIX;
  std::memcpy(a.sun_path + 1, name.data(), std::min(name.size(), sizeof a.sun_path - 2));
  const auto len = static_cast<socklen_t>(offsetof(sockaddr_un, sun_path) + 1 + name.size());
  std::vector<uint8_t> frame = rte::proto::make_frame(m);
  // The daemon's socket is local and reads as it goes; a lost report leaves
  // the checkpoint unconfirmed (the launcher's order times out).
  (void)::sendto(s, frame.data(), frame.size(), 0, reinterpret_cast<sockaddr*>(&a), len);
  ::close(s);
}

}  // namespace

StoreTarget store_from_environment() {
  StoreTarget t;
  const rte::proto::StoreSetting st = rte::proto::parse_store_setting(params::get_str(rte::proto::kCkptStoreEnv, ""));
  t.kind = st.kind;
  t.dir = st.dir;
  if (!t.dir.empty()) t.job = params::get_str("FTMPI_CKPT_JOB", "job");
  return t;
}

bool set_buddy(StoreTarget& t, const std::string& addr_port) {
  const size_t colon = addr_port.rfind(':');
  if (colon == std::string::npos || colon == 0) return false;
  char* end = nullptr;
  const unsigned long port = std::strtoul(addr_port.c_str() + colon + 1, &end, 10);
  if (*end != '\0' || port == 0 || port > 65535) return false;
  t.buddy_addr = addr_port.substr(0, colon);
  t.buddy_port = static_cast<uint16_t>(port);
  return true;
}

CopyOutcome store_in_copy(const StoreTarget& t) {
  rte::proto::CkptStored m;
  if (store_image(t, "", m) == CopyOutcome::kResumed) return CopyOutcome::kResumed;
  report(t, m);
  return CopyOutcome::kStored;
}

CopyOutcome store_image(const StoreTarget& t, const std::string& leave_out, rte::proto::CkptStored& m) {
  m.slot = t.slot;
  m.number = t.number;
  m.store = t.kind;
  const uint64_t t0 = now_ns();
  uint64_t bytes = 0;
  Result<Captured> r = Error{"no buddy checkpoint server was named"};
  if (t.kind == CkptFacts::kStoreDisk || t.kind == CkptFacts::kStoreMemory) {
    r = to_disk(t, leave_out, bytes, m.where);
  } else if (!t.buddy_addr.empty()) {
    m.where = t.buddy_addr + ":" + std::to_string(t.buddy_port);
    r = to_buddy(t, leave_out, bytes);
  }
  if (r.ok() && r.value() == Captured::kResumed) return CopyOutcome::kResumed;
  m.ns = now_ns() - t0;
  m.ok = r.ok() ? 1 : 0;
  m.bytes = bytes;
  if (!r.ok()) m.error = r.error().what;
  return CopyOutcome::kStored;
}

}  // namespace ftmpi::ckpt
