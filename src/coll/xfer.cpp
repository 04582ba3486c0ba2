#include "coll/xfer.hpp"

#include <algorithm>

#include "base/log.hpp"

namespace ftmpi::coll {
namespace {

const dtype::TypeRef& byte_type() {
  static const dtype::TypeRef t = dtype::builtin_ref(dtype::Builtin::kByte);
  return t;
}

// Temporary buffers of abandoned runs, kept until the engine has released
// every request that may still read or write them. Per process, like the
// engine; swept whenever a new run starts.
struct Orphans {
  std::vector<uint64_t> request_ids;
  std::vector<std::unique_ptr<uint8_t[]>> buffers;
};
std::vector<Orphans>& graveyard() {
  static std::vector<Orphans> g;
  return g;
}

bool request_live(p2p::Engine& eng, uint64_t id) {
  p2p::Request* r = eng.request_at(static_cast<uint32_t>(id & 0xffffffffu));
  return r && r->id == id;
}

void sweep(p2p::Engine& eng) {
  auto& g = graveyard();
  std::erase_if(g, [&](const Orphans& o) {
    return std::none_of(o.request_ids.begin(), o.request_ids.end(), [&](uint64_t id) { return request_live(eng, id); });
  });
}

// Request lists of the runs in progress (runs nest: an algorithm may run
// others), kept with their capacity so a run allocates nothing for them.
struct ListCache {
  std::vector<std::unique_ptr<std::vector<Xfer::Posted>>> lists;
  size_t in_use = 0;
};
ListCache& list_cache() {
  static ListCache c;
  return c;
}
std::vector<Xfer::Posted>& borrow_list() {
  ListCache& c = list_cache();
  if (c.in_use == c.lists.size()) c.lists.push_back(std::make_unique<std::vector<Xfer::Posted>>());
  return *c.lists[c.in_use++];
}

}  // namespace

Xfer::Xfer(const Team& team, AlgoId algo)
    : team_(team),
      eng_(team.engine()),
      ctx_(team.comm().coll_ctx()),
      algo_(algo),
      posted_(borrow_list()) {
  if (!graveyard().empty()) sweep(eng_);
}

Xfer::~Xfer() {
  if (!posted_.empty()) abandon();
  --list_cache().in_use;  // runs end in the reverse order of their start
}

void Xfer::send(int peer, const void* buf, size_t count, const dtype::TypeRef& type, int step) {
  const int tag = make_tag(team_.call_seq(), algo_, step);
  posted_.push_back({eng_.isend(buf, count, type, team_.comm(), ctx_, team_.rank_of(peer), tag), 0, false});
}

void Xfer::recv(int peer, void* buf, size_t count, const dtype::TypeRef& type, int step) {
  const int tag = make_tag(team_.call_seq(), algo_, step);
  uint64_t expect = static_cast<uint64_t>(count) * static_cast<uint64_t>(type->size());
  posted_.push_back({eng_.irecv(buf, count, type, team_.comm(), ctx_, team_.rank_of(peer), tag), expect, true});
}

void Xfer::send_bytes(int peer, const void* buf, size_t n, int step) { send(peer, buf, n, byte_type(), step); }

void Xfer::recv_bytes(int peer, void* buf, size_t n, int step) { recv(peer, buf, n, byte_type(), step); }

Err Xfer::wait() {
  if (posted_.empty()) return Err::kOk;
  const Watch* watch = team_.watch();
  Err hard = Err::kOk;
  eng_.wait_until([&] {
    bool all = true;
    for (const Posted& p : posted_) {
      if (!p.req->complete) {
        all = false;
      } else if (!ok(p.req->st_err) && p.req->st_err != Err::kTruncate) {
        hard = p.req->st_err;
        return true;
      }
    }
    if (!all && watch && watch->give_up()) {
      hard = Err::kOther;
      return true;
    }
    return all;
  });
  if (!ok(hard)) {
    abandon();
    return hard;
  }
  for (const Posted& p : posted_) {
    if (p.is_recv && (p.req->st_err == Err::kTruncate || p.req->st_bytes != p.expect)) soft_ = Err::kTruncate;
    eng_.release_request(p.req);
  }
  posted_.clear();
  return Err::kOk;
}

void Xfer::abandon() {
  Orphans o;
  for (const Posted& p : posted_) {
    p2p::Request* r = p.req;
    FTMPI_LOG(kDebug, "coll", "abandoning %s rank %d tag %#x: %s, protocol state %d",
              p.is_recv ? "receive from" : "send to", r->peer_rank, r->tag,
              r->complete ? "complete" : "pending", static_cast<int>(r->proto));
    if (!r->complete && p.is_recv && eng_.cancel_recv(r) && ok(r->st_err) && r->peer_rank >= 0) {
      p2p::Request* drain = eng_.irecv(nullptr, 0, byte_type(), team_.comm(), ctx_, r->peer_rank, r->tag);
      if (!drain->complete) drain->user_freed = true;
      else eng_.release_request(drain);
    }
    if (r->complete) {
      eng_.release_request(r);
    } else {
      r->user_freed = true;  // the engine releases it when it completes
      o.request_ids.push_back(r->id);
    }
  }
  posted_.clear();
  if (!o.request_ids.empty() && !scratch_.empty()) {
    o.buffers = std::move(scratch_);
    graveyard().push_back(std::move(o));
  }
}

uint8_t* Xfer::scratch(size_t bytes) {
  scratch_.push_back(std::make_unique_for_overwrite<uint8_t[]>(bytes ? bytes : 1));
  return scratch_.back().get();
}

}  // namespace ftmpi::coll
