// Hosts: parsing --host lists and hostfiles, placing ranks on hosts, and
// deciding which hosts are this machine (started by the local launch agent).
#pragma once
#include <string>
#include <vector>

#include "rte/launcher/options.hpp"

namespace ftmpi::rte {

// "a,b:2,c" -> {a,0} {b,2} {c,0}
bool parse_host_list(const std::string& list, std::vector<HostSpec>& out, std::string& err);
// One host per line: "name", "name:N", "name slots=N"; '#' starts a comment.
bool parse_hostfile_text(const std::string& text, std::vector<HostSpec>& out, std::string& err);
bool read_hostfile(const std::string& path, std::vector<HostSpec>& out, std::string& err);

struct PlacedHost {
  std::string name;
  std::vector<int32_t> slots;  // contiguous, ascending
  friend bool operator==(const PlacedHost&, const PlacedHost&) = default;
};

// Merges repeated names (their slots add up), then gives each host, in order,
// up to its slot count (1 if not given); ranks beyond the total are spread
// round-robin over the hosts. Every host gets a contiguous block of slots;
// hosts that get none are left out. No hosts: everything on `local_name`.
std::vector<PlacedHost> place_ranks(const std::vector<HostSpec>& hosts, int np, const std::string& local_name);

// This machine: "localhost", its host name (short or full), or 127.x.y.z.
bool is_local_host(const std::string& name, const std::string& my_hostname);
// The loopback address a local host's daemon and ranks bind: 127.x.y.z names
// bind themselves (so that several "hosts" can share a machine), others 127.0.0.1.
std::string local_bind_address(const std::string& name);
std::string my_hostname();
// The address this machine's packets to `host` leave from (a routing lookup,
// nothing is sent): where remote daemons connect back to. "" if unroutable.
std::string source_address_towards(const std::string& host);

}  // namespace ftmpi::rte
