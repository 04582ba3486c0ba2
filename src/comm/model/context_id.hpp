// Context ids (DESIGN §3): a child's id is a function of its parent's id and
// the parent's creation counter only, so the same sequence of communicator
// creations yields the same ids in every generation (FT-MPI CONT mode). Ids
// are 64-bit hashes; the low bit separates a communicator's point-to-point
// context (even) from its collective context (odd).
#pragma once
#include <cstdint>

namespace ftmpi::comm {

inline constexpr uint64_t kWorldContext = 2;
inline constexpr uint64_t kSelfContext = 4;

inline constexpr uint64_t coll_context(uint64_t ctx) { return ctx | 1u; }
inline constexpr bool is_coll_context(uint64_t ctx) { return (ctx & 1u) != 0; }

inline constexpr uint64_t mix64(uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

// `salt` distinguishes kinds of derivation that share a counter value (e.g.
// the two halves of an intercommunicator); use 0 otherwise.
inline constexpr uint64_t derive_context(uint64_t parent, uint32_t counter, uint64_t salt = 0) {
  uint64_t h = mix64(parent ^ mix64((static_cast<uint64_t>(counter) << 8) ^ salt));
  h &= ~uint64_t{1};
  return h < 16 ? h + 16 : h;  // keep clear of the predefined ids
}

}  // namespace ftmpi::comm
