// Small POSIX file-descriptor helpers shared by the runtime and transports.
#pragma once
#include <sys/types.h>

#include <cstddef>
#include <cstdint>
#include <string>

namespace ftmpi::fd {

bool set_nonblocking(int fd, bool on = true);
bool set_cloexec(int fd, bool on = true);
// Blocking loops that retry on EINTR; false on EOF or error.
bool write_all(int fd, const void* p, size_t n);
bool read_all(int fd, void* p, size_t n);
// Closes and sets -1; safe on -1.
void close_quietly(int& fd);
// TCP helpers. Addresses are "a.b.c.d"; port 0 picks one.
int tcp_listen(const std::string& addr, uint16_t& port_inout, int backlog = 128);
int tcp_connect(const std::string& addr, uint16_t port, bool nonblocking);
// Keepalive and user timeout so that a silent peer is noticed (MACHINE-NOTES).
void tcp_tune(int fd, int user_timeout_ms);
std::string peer_name(int fd);
// The connected peer is on this machine (loopback, or our own address): the
// link itself cannot fail silently, only the process at its other end.
bool peer_on_this_host(int fd);
// The process exists and is not stopped (SIGSTOP, tracing) nor a zombie:
// it may be slow to answer, but it will (from /proc/PID/stat).
bool process_running(pid_t pid);

}  // namespace ftmpi::fd
