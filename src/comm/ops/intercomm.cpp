// Intercommunicator constructors: MPI_Intercomm_create and MPI_Intercomm_merge.
#include <algorithm>

#include "coll/internal.hpp"
#include "coll/tags.hpp"
#include "comm/ops/constructors.hpp"
#include "comm/ops/group_algebra.hpp"

namespace ftmpi::comm::ops {
namespace {

// The merge's leader exchange runs on the intercommunicator's collective
// context with coll::kTagMergeFlags (the tag registry, src/coll/tags.hpp).
using coll::kTagMergeFlags;
// Salt of the transient communicator over one side of an intercommunicator
// that the merge broadcasts on.
constexpr uint64_t kMergeSideSalt = 0x6d657267u;
constexpr uint64_t kInterSalt = 0x696e746572u;

const dtype::TypeRef& byte_type() {
  static const dtype::TypeRef t = dtype::builtin_ref(dtype::Builtin::kByte);
  return t;
}

// What a leader tells the other leader (its id and group size) and then its
// local group; in the broadcast to its own group, n < 0 means "failed with
// error class -n".
struct SideHeader {
  uint64_t ctx;
  int64_t n;
};
struct WireMember {
  int32_t slot;
  uint32_t incarnation;
};

std::vector<WireMember> to_wire(const Group& g, Naming naming) {
  std::vector<WireMember> w;
  w.reserve(static_cast<size_t>(g.size()));
  for (const ProcId& p : g.members()) w.push_back({p.slot, naming == Naming::kSlot ? 0u : p.incarnation});
  return w;
}

// The members as this process names them (`view`: by the incarnation its
// world group has for the slot).
std::vector<ProcId> from_wire(const std::vector<WireMember>& members, const Group* view) {
  std::vector<ProcId> rm;
  rm.reserve(members.size());
  for (const WireMember& w : members) {
    uint32_t inc = w.incarnation;
    if (view && w.slot >= 0 && w.slot < view->size()) inc = view->at(w.slot).incarnation;
    rm.push_back({w.slot, inc});
  }
  return rm;
}

// Both requests in one wait: neither leader can block the other.
Err exchange(p2p::Engine& eng, Communicator& peer, int remote, int tag, const void* out, void* in, size_t n) {
  p2p::Request* reqs[2] = {
      eng.irecv(in, n, byte_type(), peer, peer.ctx(), remote, tag),
      eng.isend(out, n, byte_type(), peer, peer.ctx(), remote, tag),
  };
  return eng.wait_all(reqs, 2);
}

// The leader's part: swap (id, group) with the remote leader.
Err leader_exchange(p2p::Engine& eng, const Communicator& local, uint64_t my_ctx, Communicator& peer,
                    int remote_leader, int tag, Naming naming, SideHeader* remote,
                    std::vector<WireMember>* members) {
  const SideHeader mine{my_ctx, local.size()};
  if (Err e = exchange(eng, peer, remote_leader, tag, &mine, remote, sizeof mine); !ok(e)) return e;
  const std::vector<WireMember> out = to_wire(local.group(), naming);
  members->resize(static_cast<size_t>(remote->n));
  // The two groups may differ in size: two one-way transfers.
  p2p::Request* reqs[2] = {
      eng.irecv(members->data(), members->size() * sizeof(WireMember), byte_type(), peer, peer.ctx(),
                remote_leader, tag),
      eng.isend(out.data(), out.size() * sizeof(WireMember), byte_type(), peer, peer.ctx(), remote_leader, tag),
  };
  return eng.wait_all(reqs, 2);
}

int first_live(const Group& g) {
  for (int r = 0; r < g.size(); ++r)
    if (!g.is_blank(r)) return r;
  return -1;
}

}  // namespace

uint64_t inter_context(uint64_t a, const Group& ga, uint64_t b, const Group& gb, Naming naming) {
  uint64_t ha = group_hash(ga, naming), hb = group_hash(gb, naming);
  // Order the two (id, group) pairs the same way on both sides.
  if (hb < ha || (hb == ha && b < a)) {
    std::swap(a, b);
    std::swap(ha, hb);
  }
  uint64_t h = mix64(mix64(a ^ mix64(ha)) ^ mix64(b ^ mix64(hb ^ kInterSalt)));
  h &= ~uint64_t{1};
  return h < 16 ? h + 16 : h;
}

Err intercomm_create(p2p::Engine& eng, Communicator& local, int local_leader, Communicator* peer,
                     int remote_leader, int tag, Err leader_check, const Group* view, CommPtr* out) {
  out->reset();
  const Naming naming = view ? Naming::kSlot : Naming::kIncarnation;
  const uint64_t my_ctx = local.next_child_context();
  SideHeader hdr{0, 0};
  std::vector<WireMember> members;
  if (local.rank() == local_leader) {
    Err e = leader_check;
    if (ok(e)) e = leader_exchange(eng, local, my_ctx, *peer, remote_leader, tag, naming, &hdr, &members);
    if (ok(e) && !disjoint(local.group(), Group(from_wire(members, view))))
      e = Err::kArg;  // the standard requires disjoint groups
    if (!ok(e)) hdr = {0, -static_cast<int64_t>(e)};
  }
  // Tell the rest of the local group what the leader learned (or that it failed).
  if (Err e = coll::bcast_bytes(eng, local, &hdr, sizeof hdr, local_leader); !ok(e)) return e;
  if (hdr.n < 0) return static_cast<Err>(-hdr.n);
  members.resize(static_cast<size_t>(hdr.n));
  if (hdr.n > 0)
    if (Err e = coll::bcast_bytes(eng, local, members.data(), members.size() * sizeof(WireMember), local_leader);
        !ok(e))
      return e;
  GroupRef remote = Group::make(from_wire(members, view));
  const uint64_t ctx = inter_context(my_ctx, local.group(), hdr.ctx, *remote, naming);
  *out = std::make_unique<Communicator>(ctx, local.group_ref(), local.rank(), std::move(remote));
  return Err::kOk;
}

Err intercomm_merge(p2p::Engine& eng, Communicator& inter, bool high, Naming naming, CommPtr* out) {
  out->reset();
  // Both sides advance the intercommunicator's counter for every creation
  // call on it, so they draw the same child id.
  const uint64_t side_ctx = derive_context(inter.ctx(), inter.creation_counter(), kMergeSideSalt);
  const uint64_t ctx = inter.next_child_context();
  int32_t mine = high ? 1 : 0, theirs = 0;
  // Each side's first live rank swaps the flags (rank 0 may be a blank of
  // BLANK mode); both sides can compute both choices from the groups.
  const int lead = first_live(inter.group()), remote_lead = first_live(*inter.remote_ref());
  if (lead < 0 || remote_lead < 0) return Err::kComm;  // a side of blanks only: nobody to ask
  if (inter.rank() == lead) {
    p2p::Request* reqs[2] = {
        eng.irecv(&theirs, sizeof theirs, byte_type(), inter, inter.coll_ctx(), remote_lead, kTagMergeFlags),
        eng.isend(&mine, sizeof mine, byte_type(), inter, inter.coll_ctx(), remote_lead, kTagMergeFlags),
    };
    if (Err e = eng.wait_all(reqs, 2); !ok(e)) return e;
  }
  // One side's members as a transient communicator, to broadcast the remote
  // flag; both sides use the same id, which is safe as their members differ.
  Communicator side(side_ctx, inter.group_ref(), inter.rank());
  if (Err e = coll::bcast_bytes(eng, side, &theirs, sizeof theirs, lead); !ok(e)) return e;
  bool local_first;
  if (mine != theirs) {
    local_first = !mine;
  } else {
    const uint64_t hl = group_hash(inter.group(), naming), hr = group_hash(*inter.remote_ref(), naming);
    local_first = hl != hr ? hl < hr : inter.group().at(0).slot < inter.remote_ref()->at(0).slot;
  }
  const Group& first = local_first ? inter.group() : *inter.remote_ref();
  const Group& second = local_first ? *inter.remote_ref() : inter.group();
  std::vector<ProcId> m = first.members();
  m.insert(m.end(), second.members().begin(), second.members().end());
  const int me = (local_first ? 0 : inter.remote_size()) + inter.rank();
  *out = std::make_unique<Communicator>(ctx, Group::make(std::move(m)), me);
  return Err::kOk;
}

}  // namespace ftmpi::comm::ops
