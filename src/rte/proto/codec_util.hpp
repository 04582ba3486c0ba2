// Encoding pieces shared by the message structs: cards, id lists, bounded
// vectors. Decoders never allocate more than the input could describe.
#pragma once
#include <string>
#include <vector>

#include "base/codec.hpp"
#include "base/proc_id.hpp"
#include "rte/proto/card.hpp"
#include "rte/proto/modes.hpp"
#include "rte/proto/recovery.hpp"

namespace ftmpi::rte::proto {

inline constexpr size_t kMaxName = 4096;  // host names, addresses, single arguments

void put_proc(Encoder& e, const ProcId& p);
ProcId get_proc(Decoder& d);
void put_card(Encoder& e, const Card& c);
Card get_card(Decoder& d);

// Modes: u8 comm, msg, coll, recovery, transparent (range-checked).
void put_modes(Encoder& e, const Modes& m);
bool get_modes(Decoder& d, Modes& m);

void put_cards(Encoder& e, const std::vector<Card>& v);
bool get_cards(Decoder& d, std::vector<Card>& v);
void put_i32s(Encoder& e, const std::vector<int32_t>& v);
bool get_i32s(Decoder& d, std::vector<int32_t>& v);
void put_strs(Encoder& e, const std::vector<std::string>& v);
bool get_strs(Decoder& d, std::vector<std::string>& v);
void put_procs(Encoder& e, const std::vector<ProcId>& v);
bool get_procs(Decoder& d, std::vector<ProcId>& v);
// RecoveryResult: u32 epoch, list<Card> cards, list<ProcId> failed, u64 last_event_seq.
// Decoding checks that the cards are indexed by slot.
void put_recovery(Encoder& e, const RecoveryResult& r);
bool get_recovery(Decoder& d, RecoveryResult& r);

// Reads a u32 element count that must be coverable by the rest of the input
// (each element at least `min_elem` bytes), so a forged count cannot make us
// reserve gigabytes.
bool get_count(Decoder& d, size_t min_elem, uint32_t& n);

}  // namespace ftmpi::rte::proto
