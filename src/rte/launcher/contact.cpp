#include "rte/launcher/contact.hpp"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <set>
#include <sstream>

#include "base/clock.hpp"
#include "base/fd.hpp"
#include "rte/common/shown.hpp"
#include "rte/proto/frame.hpp"
#include "rte/proto/runtime_messages.hpp"

namespace ftmpi::rte {
namespace {

constexpr int kReplyTimeoutMs = 10000;

bool all_digits(const std::string& s, size_t max_len = 9) {
  return !s.empty() && s.size() <= max_len && s.find_first_not_of("0123456789") == std::string::npos;
}

bool read_file(const std::string& path, std::string& out) {
  int f = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
  if (f < 0) return false;
  char buf[4096];
  ssize_t n;
  out.clear();
  while ((n = ::read(f, buf, sizeof buf)) > 0) out.append(buf, static_cast<size_t>(n));
  ::close(f);
  return n == 0;
}

bool alive(pid_t pid) { return pid > 0 && (::kill(pid, 0) == 0 || errno == EPERM); }

// Unix second at which process `pid` started, or -1 if unknown.
int64_t process_start(pid_t pid) {
  std::string stat, all;
  if (!read_file("/proc/" + std::to_string(pid) + "/stat", stat) || !read_file("/proc/stat", all)) return -1;
  // Field 22 (starttime, clock ticks since boot) counts from after the
  // command name's closing parenthesis (the name may hold spaces).
  size_t p = stat.rfind(')');
  if (p == std::string::npos) return -1;
  std::istringstream f(stat.substr(p + 1));
  std::string field;
  int n = 2;  // pid and name come before the parenthesis
  while (n < 22 && f >> field) ++n;
  size_t b = all.find("\nbtime ");
  if (n != 22 || !all_digits(field, 18) || b == std::string::npos) return -1;
  long ticks = sysconf(_SC_CLK_TCK);
  return std::atoll(all.c_str() + b + 7) + std::atoll(field.c_str()) / (ticks > 0 ? ticks : 100);
}

// The launcher that wrote `c` still runs: its pid is alive and was not
// reused by a process started after the file was written.
bool launcher_alive(const Contact& c) {
  if (!alive(c.launcher_pid)) return false;
  int64_t start = process_start(c.launcher_pid);
  return start < 0 || start <= c.started + 2;
}

// Running jobs of this user, by launcher pid. Files of launchers that are
// gone (killed with SIGKILL: nobody removed the file) are removed.
std::vector<Contact> running_jobs(const std::string& dir) {
  std::vector<Contact> jobs;
  DIR* d = opendir(dir.c_str());
  if (!d) return jobs;
  while (dirent* e = readdir(d)) {
    std::string name = e->d_name;
    if (!all_digits(name)) continue;
    std::string text;
    Contact c;
    std::string path = dir + "/" + name;
    if (!read_file(path, text) || !parse_contact(text, c) || std::to_string(c.launcher_pid) != name) continue;
    if (launcher_alive(c))
      jobs.push_back(c);
    else
      ::unlink(path.c_str());
  }
  closedir(d);
  return jobs;
}

// Prints the launcher's KILL_REPLYs as they come (one per rank, or one for a
// request refused as a whole) until `want` came or the launcher closed;
// returns how many came, `failed` if one said no.
size_t read_kill_replies(int fd, size_t want, pid_t job, bool& failed) {
  proto::FrameReader reader;
  size_t got = 0;
  uint64_t deadline = now_ns() + static_cast<uint64_t>(kReplyTimeoutMs) * 1000000ull;
  while (got < want && now_ns() < deadline) {
    pollfd p{fd, POLLIN, 0};
    if (::poll(&p, 1, 100) <= 0) continue;
    uint8_t buf[4096];
    ssize_t n = ::read(fd, buf, sizeof buf);
    if (n <= 0) break;
    reader.feed(buf, static_cast<size_t>(n));
    proto::Frame f;
    while (reader.next(f) == proto::FrameReader::Next::kFrame) {
      proto::KillReply reply;
      if (!proto::parse(f, reply)) return got;
      std::fprintf(reply.ok ? stdout : stderr, "ftmpirun: job %d: %s\n", static_cast<int>(job), reply.message.c_str());
      failed = failed || !reply.ok;
      ++got;
    }
  }
  return got;
}

}  // namespace

std::string format_contact(const Contact& c) {
  std::ostringstream o;
  o << "ftmpi-contact 1\n"
    << "pid " << c.launcher_pid << "\n"
    << "addr " << c.addr << "\n"
    << "port " << c.port << "\n"
    << "secret " << auth::to_hex(c.secret) << "\n"
    << "np " << c.np << "\n"
    << "started " << c.started << "\n"
    << "program " << c.program << "\n";
  return o.str();
}

bool parse_contact(const std::string& text, Contact& out) {
  std::istringstream in(text);
  std::string line;
  if (!std::getline(in, line) || line != "ftmpi-contact 1") return false;
  out = Contact{};
  bool have_pid = false, have_addr = false, have_port = false, have_secret = false;
  while (std::getline(in, line)) {
    size_t sp = line.find(' ');
    if (sp == std::string::npos) return false;
    std::string key = line.substr(0, sp), v = line.substr(sp + 1);
    if (key == "pid" && all_digits(v)) {
      out.launcher_pid = static_cast<pid_t>(std::atoi(v.c_str()));
      have_pid = true;
    } else if (key == "addr" && !v.empty()) {
      out.addr = v;
      have_addr = true;
    } else if (key == "port" && all_digits(v) && std::atoi(v.c_str()) > 0 && std::atoi(v.c_str()) < 65536) {
      out.port = static_cast<uint16_t>(std::atoi(v.c_str()));
      have_port = true;
    } else if (key == "secret") {
      if (!auth::from_hex(v, out.secret)) return false;
      have_secret = true;
    } else if (key == "np" && all_digits(v)) {
      out.np = std::atoi(v.c_str());
    } else if (key == "started" && all_digits(v, 18)) {
      out.started = std::atoll(v.c_str());
    } else if (key == "program") {
      out.program = v;
    } else {
      return false;
    }
  }
  return have_pid && have_addr && have_port && have_secret;
}

bool parse_kill_target(const std::string& s, pid_t& job, std::vector<int32_t>& ranks, std::string& err) {
  size_t colon = s.find(':');
  std::string j = colon == std::string::npos ? "" : s.substr(0, colon);
  std::string list = colon == std::string::npos ? s : s.substr(colon + 1);
  bool ok = colon == std::string::npos || (all_digits(j) && std::atoi(j.c_str()) > 0);
  ranks.clear();
  for (size_t b = 0; ok;) {
    size_t e = list.find(',', b);
    std::string r = list.substr(b, e == std::string::npos ? std::string::npos : e - b);
    ok = all_digits(r);
    if (ok) ranks.push_back(std::atoi(r.c_str()));
    if (e == std::string::npos) break;
    b = e + 1;
  }
  if (!ok) {
    err = "--kill takes JOB:RANK[,RANK...] (or RANK[,RANK...] when one job runs), not " + shown(s);
    return false;
  }
  std::set<int32_t> seen;
  for (int32_t r : ranks)
    if (!seen.insert(r).second) {
      err = "--kill names rank " + std::to_string(r) + " twice";
      return false;
    }
  job = j.empty() ? 0 : static_cast<pid_t>(std::atoi(j.c_str()));
  return true;
}

std::string contact_dir(std::string& err) {
  std::string dir;
  const char* xdg = std::getenv("XDG_RUNTIME_DIR");
  struct stat st {};
  if (xdg && *xdg && stat(xdg, &st) == 0 && S_ISDIR(st.st_mode))
    dir = std::string(xdg) + "/ftmpi";
  else
    dir = "/tmp/ftmpi-" + std::to_string(getuid());
  if (mkdir(dir.c_str(), 0700) != 0 && errno != EEXIST) {
    err = "cannot create " + dir + ": " + std::strerror(errno);
    return "";
  }
  // In a shared /tmp someone else may have made it first: trust only our own
  // private directory (lstat: a symlink is not one).
  if (lstat(dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode) || st.st_uid != getuid() || (st.st_mode & 077) != 0) {
    err = dir + " is not a private directory of this user";
    return "";
  }
  return dir;
}

bool ContactFile::write(const Contact& c, std::string& err) {
  std::string dir = contact_dir(err);
  if (dir.empty()) return false;
  // Files of launchers killed with SIGKILL still hold their job's secret:
  // every start removes them (so do --jobs and --kill).
  running_jobs(dir);
  std::string path = dir + "/" + std::to_string(c.launcher_pid);
  ::unlink(path.c_str());  // a stale file of an earlier process with our pid
  int f = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (f < 0) {
    err = "cannot create " + path + ": " + std::strerror(errno);
    return false;
  }
  std::string text = format_contact(c);
  bool ok = fd::write_all(f, text.data(), text.size());
  ::close(f);
  if (!ok) {
    ::unlink(path.c_str());
    err = "cannot write " + path;
    return false;
  }
  path_ = path;
  return true;
}

void ContactFile::remove() {
  if (path_.empty()) return;
  ::unlink(path_.c_str());
  path_.clear();
}

int run_kill_command(const std::string& target) {
  pid_t job;
  std::vector<int32_t> ranks;
  std::string err;
  if (!parse_kill_target(target, job, ranks, err)) {
    std::fprintf(stderr, "ftmpirun: %s\n", err.c_str());
    return 2;
  }
  std::string dir = contact_dir(err);
  if (dir.empty()) {
    std::fprintf(stderr, "ftmpirun: %s\n", err.c_str());
    return 1;
  }
  std::vector<Contact> jobs = running_jobs(dir);
  const Contact* c = nullptr;
  for (const Contact& j : jobs)
    if (job == 0 ? jobs.size() == 1 : j.launcher_pid == job) c = &j;
  if (!c) {
    if (job == 0)
      std::fprintf(stderr, "ftmpirun: %zu jobs are running; say which one: --kill JOB:RANK (see --jobs)\n",
                   jobs.size());
    else
      std::fprintf(stderr, "ftmpirun: no running job %d of this user\n", static_cast<int>(job));
    return 1;
  }
  int fd = fd::tcp_connect(c->addr, c->port, /*nonblocking=*/false);
  if (fd < 0 || !auth::handshake_fd(fd, c->secret, /*initiator=*/true, 5000)) {
    std::fprintf(stderr, "ftmpirun: cannot reach job %d at %s:%u\n", static_cast<int>(c->launcher_pid),
                 c->addr.c_str(), c->port);
    if (fd >= 0) ::close(fd);
    return 1;
  }
  std::vector<uint8_t> frame = proto::make_frame(proto::KillRequest{ranks});
  bool failed = false;
  size_t got = fd::write_all(fd, frame.data(), frame.size())
                   ? read_kill_replies(fd, ranks.size(), c->launcher_pid, failed)
                   : 0;
  ::close(fd);
  // A refusal is one answer for all the ranks; fewer answers without one
  // mean the launcher went away (or speaks another version).
  if (!failed && got < ranks.size()) {
    std::fprintf(stderr, "ftmpirun: job %d did not answer\n", static_cast<int>(c->launcher_pid));
    return 1;
  }
  return failed ? 1 : 0;
}

int run_jobs_command() {
  std::string err;
  std::string dir = contact_dir(err);
  if (dir.empty()) {
    std::fprintf(stderr, "ftmpirun: %s\n", err.c_str());
    return 1;
  }
  std::vector<Contact> jobs = running_jobs(dir);
  if (jobs.empty()) {
    std::puts("no running jobs");
    return 0;
  }
  std::printf("%-8s %-4s %-9s %s\n", "JOB", "NP", "RUNNING", "PROGRAM");
  int64_t now = static_cast<int64_t>(std::time(nullptr));
  for (const Contact& c : jobs)
    std::printf("%-8d %-4d %-9s %s\n", static_cast<int>(c.launcher_pid), c.np,
                (std::to_string(now - c.started) + "s").c_str(), c.program.c_str());
  return 0;
}

}  // namespace ftmpi::rte
