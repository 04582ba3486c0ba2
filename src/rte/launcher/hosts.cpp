#include "rte/launcher/hosts.hpp"

#include <arpa/inet.h>
#include <netdb.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <fstream>
#include <sstream>

#include "rte/common/shown.hpp"

namespace ftmpi::rte {
namespace {

bool parse_slots(const std::string& s, int& out) {
  if (s.empty() || s.size() > 6) return false;
  for (char c : s)
    if (c < '0' || c > '9') return false;
  out = std::stoi(s);
  return out > 0;
}

bool valid_name(const std::string& n) {
  if (n.empty() || n.size() > 253) return false;
  for (char c : n)
    if (!(isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '.' || c == '_')) return false;
  return true;
}

// "name" or "name:N"
bool parse_entry(const std::string& tok, HostSpec& out, std::string& err) {
  size_t colon = tok.find(':');
  out.name = tok.substr(0, colon);
  out.slots = 0;
  if (!valid_name(out.name)) {
    err = shown(tok) + " is not a host name";
    return false;
  }
  if (colon != std::string::npos && !parse_slots(tok.substr(colon + 1), out.slots)) {
    err = shown(tok) + ": the slot count must be a positive integer";
    return false;
  }
  return true;
}

}  // namespace

bool parse_host_list(const std::string& list, std::vector<HostSpec>& out, std::string& err) {
  std::stringstream ss(list);
  std::string tok;
  size_t before = out.size();
  while (std::getline(ss, tok, ',')) {
    if (tok.empty()) continue;
    HostSpec h;
    if (!parse_entry(tok, h, err)) return false;
    out.push_back(h);
  }
  if (out.size() == before) {
    err = "empty host list";
    return false;
  }
  return true;
}

bool parse_hostfile_text(const std::string& text, std::vector<HostSpec>& out, std::string& err) {
  std::stringstream lines(text);
  std::string line;
  int lineno = 0;
  while (std::getline(lines, line)) {
    ++lineno;
    line = line.substr(0, line.find('#'));
    std::stringstream words(line);
    std::string word;
    if (!(words >> word)) continue;
    HostSpec h;
    std::string why;
    if (!parse_entry(word, h, why)) {
      err = "line " + std::to_string(lineno) + ": " + why;
      return false;
    }
    while (words >> word) {
      int n = 0;
      if (word.rfind("slots=", 0) == 0 && h.slots == 0 && parse_slots(word.substr(6), n)) {
        h.slots = n;
      } else {
        err = "line " + std::to_string(lineno) + ": cannot understand " + shown(word);
        return false;
      }
    }
    out.push_back(h);
  }
  if (out.empty()) {
    err = "no hosts in the hostfile";
    return false;
  }
  return true;
}

bool read_hostfile(const std::string& path, std::vector<HostSpec>& out, std::string& err) {
  std::ifstream in(path);
  if (!in) {
    err = "cannot read the hostfile " + shown(path);
    return false;
  }
  std::stringstream ss;
  ss << in.rdbuf();
  if (!parse_hostfile_text(ss.str(), out, err)) {
    err = path + ": " + err;
    return false;
  }
  return true;
}

std::vector<PlacedHost> place_ranks(const std::vector<HostSpec>& hosts, int np, const std::string& local_name) {
  std::vector<HostSpec> merged;
  for (const HostSpec& h : hosts) {
    int slots = h.slots > 0 ? h.slots : 1;
    bool found = false;
    for (HostSpec& m : merged) {
      if (m.name == h.name) {
        m.slots += slots;
        found = true;
      }
    }
    if (!found) merged.push_back(HostSpec{h.name, slots});
  }
  if (merged.empty()) merged.push_back(HostSpec{local_name, np});
  std::vector<int> count(merged.size(), 0);
  int left = np;
  for (size_t h = 0; h < merged.size() && left > 0; ++h) {
    count[h] = std::min(merged[h].slots, left);
    left -= count[h];
  }
  for (size_t h = 0; left > 0; h = (h + 1) % merged.size()) {
    ++count[h];
    --left;
  }
  std::vector<PlacedHost> out;
  int32_t next = 0;
  for (size_t h = 0; h < merged.size(); ++h) {
    if (count[h] == 0) continue;
    PlacedHost p{merged[h].name, {}};
    for (int k = 0; k < count[h]; ++k) p.slots.push_back(next++);
    out.push_back(std::move(p));
  }
  return out;
}

bool is_local_host(const std::string& name, const std::string& my_host) {
  if (name == "localhost" || name == my_host) return true;
  if (my_host.substr(0, my_host.find('.')) == name) return true;
  in_addr a{};
  return inet_pton(AF_INET, name.c_str(), &a) == 1 && (ntohl(a.s_addr) >> 24) == 127;
}

std::string local_bind_address(const std::string& name) {
  in_addr a{};
  if (inet_pton(AF_INET, name.c_str(), &a) == 1 && (ntohl(a.s_addr) >> 24) == 127) return name;
  return "127.0.0.1";
}

std::string my_hostname() {
  char buf[256] = {};
  if (gethostname(buf, sizeof buf - 1) != 0 || !buf[0]) return "localhost";
  return buf;
}

std::string source_address_towards(const std::string& host) {
  addrinfo hints{};
  hints.ai_family = AF_INET;
  hints.ai_socktype = SOCK_DGRAM;
  addrinfo* res = nullptr;
  if (getaddrinfo(host.c_str(), "9", &hints, &res) != 0 || !res) return "";
  std::string out;
  int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  if (fd >= 0 && connect(fd, res->ai_addr, res->ai_addrlen) == 0) {
    sockaddr_in sa{};
    socklen_t len = sizeof sa;
    char ip[INET_ADDRSTRLEN] = "";
    if (getsockname(fd, reinterpret_cast<sockaddr*>(&sa), &len) == 0 && inet_ntop(AF_INET, &sa.sin_addr, ip, sizeof ip))
      out = ip;
  }
  if (fd >= 0) close(fd);
  freeaddrinfo(res);
  return out;
}

}  // namespace ftmpi::rte
