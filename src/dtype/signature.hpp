// Element counts and type signatures (MPI-1.2 §3.3.1, §3.12.5).
//
// A type signature is the sequence of primitives a message carries, pairs
// expanded (MPI_FLOAT_INT = float, int). It is handled through a 61-bit
// polynomial hash computed from the type description, so comparing two
// signatures costs O(description), never O(elements). A hash can collide
// (about 2^-61 per comparison): use it to detect mismatches, not to prove
// correctness.
#pragma once
#include <cstdint>

#include "dtype/type.hpp"

namespace ftmpi::dtype {

inline constexpr int64_t kUndefined = -1;  // the API layer maps it to MPI_UNDEFINED

// MPI_Get_elements: basic elements (pairs count 2) in the first `bytes`
// packed bytes of a stream of items of `t`; kUndefined when `bytes` does not
// end on a basic element boundary.
int64_t get_elements(const Type& t, int64_t bytes);
// MPI_Get_count: whole items in `bytes`; kUndefined if not a multiple of the
// size. A zero-size type gives 0 items.
int64_t get_count(const Type& t, int64_t bytes);

struct Signature {
  uint64_t hash = 0;
  int64_t elements = 0;
  int64_t bytes = 0;
  bool raw = false;  // only MPI_BYTE / MPI_PACKED: compared by bytes alone
  friend bool operator==(const Signature&, const Signature&) = default;
};

// Signature of `count` items of `t`.
Signature signature(const Type& t, int64_t count);
// Signature of the first `elements` basic elements of `count` items of `t`
// (elements <= count * t.elements()).
Signature signature_prefix(const Type& t, int64_t count, int64_t elements);

// True if a message with signature `sent` may be received into `count` items
// of `recv`: its signature is a prefix of the receive signature (a shorter
// message is allowed, a longer one is a truncation and does not match).
// MPI_BYTE / MPI_PACKED on either side match any data of at most the
// receive's bytes, since MPI lets MPI_PACKED receive anything and packed
// data be unpacked with any type.
bool signature_matches(const Signature& sent, const Type& recv, int64_t count);

// Same signature for both sides of a collective (equal bytes for raw types).
bool same_signature(const Type& a, int64_t count_a, const Type& b, int64_t count_b);

}  // namespace ftmpi::dtype
