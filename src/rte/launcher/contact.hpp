// How another terminal reaches a running job (`ftmpirun --kill
// JOB:RANK[,RANK...]`, `ftmpirun --jobs`). The launcher writes a contact file
//     $XDG_RUNTIME_DIR/ftmpi/JOB   or, without that variable,   /tmp/ftmpi-UID/JOB
// (directory 0700, file 0600, both checked to belong to the user) holding its
// address, port and the job secret; JOB is the launcher's pid. A control
// client connects to that port, proves the secret with the same handshake as
// a daemon (base/auth.hpp), sends KILL_REQUEST and prints the KILL_REPLYs. The
// launcher removes the file when the job ends; every launcher start (and
// --jobs, --kill) removes the files of launchers that no longer run.
#pragma once
#include <sys/types.h>

#include <cstdint>
#include <string>
#include <vector>

#include "base/auth.hpp"

namespace ftmpi::rte {

struct Contact {
  pid_t launcher_pid = 0;
  std::string addr;
  uint16_t port = 0;
  auth::Secret secret{};
  int np = 0;
  std::string program;
  int64_t started = 0;  // Unix seconds
};

// Pure: the file's text and back (false on anything malformed).
std::string format_contact(const Contact& c);
bool parse_contact(const std::string& text, Contact& out);
// "1234:3" -> job 1234, ranks {3}; "3,5" -> job 0 (the only running job),
// ranks {3, 5}. False with a one-line `err` on bad syntax or a rank named twice.
bool parse_kill_target(const std::string& s, pid_t& job, std::vector<int32_t>& ranks, std::string& err);

// The directory, created 0700 if needed; "" with `err` if it is unsafe
// (not ours, not a directory, open to others).
std::string contact_dir(std::string& err);

// Writes the launcher's contact file; removes it on destruction.
class ContactFile {
 public:
  ContactFile() = default;
  ~ContactFile() { remove(); }
  ContactFile(const ContactFile&) = delete;
  ContactFile& operator=(const ContactFile&) = delete;
  bool write(const Contact& c, std::string& err);
  void remove();
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

// The command-line side: both print what happened and return the exit status.
int run_kill_command(const std::string& target);
int run_jobs_command();

}  // namespace ftmpi::rte
