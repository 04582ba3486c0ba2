// Group operations of MPI-1.2 §5.3: comparison, set algebra, inclusion and
// exclusion, rank translation. Pure functions on comm::Group (members are
// compared by ProcId, so a respawned process is a different member); every
// result is a new immutable group. Error results follow the standard's
// classes: kRank for a bad or repeated rank, kArg for a malformed range.
#pragma once
#include <cstdint>
#include <vector>

#include "base/err.hpp"
#include "comm/model/group.hpp"

namespace ftmpi::comm::ops {

// Values of MPI_IDENT, MPI_CONGRUENT, MPI_SIMILAR, MPI_UNEQUAL.
enum class Similarity : int { kIdent = 0, kCongruent = 1, kSimilar = 2, kUnequal = 3 };

// Rank of member `p` in `g`, or -1. Blanks are members with an identity
// (comm::blank_member): a blank is found in every group that includes it.
int rank_in(const Group& g, const ProcId& p);
// kIdent (same members, same order), kSimilar (same members), kUnequal.
Similarity compare_groups(const Group& a, const Group& b);
bool is_subset(const Group& sub, const Group& of);
bool disjoint(const Group& a, const Group& b);

// Members of a, then the members of b that are not in a (in b's order).
GroupRef group_union(const Group& a, const Group& b);
// Members of a that are in b, in a's order.
GroupRef group_intersection(const Group& a, const Group& b);
// Members of a that are not in b, in a's order.
GroupRef group_difference(const Group& a, const Group& b);

// ranks[0..n) must be distinct valid ranks of g (else kRank; n < 0: kArg).
Err group_incl(const Group& g, int n, const int* ranks, GroupRef* out);
Err group_excl(const Group& g, int n, const int* ranks, GroupRef* out);
// Expands MPI range triplets (first, last, stride) into ranks, in order. A
// zero stride, or one that points away from `last`, is kArg; a rank outside
// g, or one produced twice, is kRank.
Err expand_ranges(const Group& g, int n, const int (*ranges)[3], std::vector<int>* out);

// For each of ranks[0..n) of a: its rank in b, or `undefined` if that
// process is not in b. `proc_null` maps to itself; other invalid ranks: kRank.
Err translate_ranks(const Group& a, int n, const int* ranks, const Group& b, int undefined, int proc_null,
                    int* out);

// How members are named where several processes must agree on a value made
// from a group (a hash, a member list on the wire). kIncarnation: (slot,
// incarnation). kSlot: the slot alone, for transparent mode, where a
// communicator keeps naming each member by the incarnation its process first
// knew: a restarted process names a peer by a later incarnation than the
// survivors do (spec/transparent-mode.md §5).
enum class Naming : uint8_t { kIncarnation, kSlot };

// A hash of the ordered member list (used to order the two sides of an
// intercommunicator deterministically).
uint64_t group_hash(const Group& g, Naming naming = Naming::kIncarnation);

}  // namespace ftmpi::comm::ops
