#include "p2p/request.hpp"

namespace ftmpi::p2p {

Request* RequestPool::alloc() {
  if (free_.empty()) {
    auto chunk = std::make_unique<Request[]>(kChunk);
    for (size_t i = 0; i < kChunk; ++i) {
      by_index_.push_back(&chunk[i]);
      gen_.push_back(0);
    }
    for (size_t i = kChunk; i-- > 0;) free_.push_back(static_cast<uint32_t>(by_index_.size() - kChunk + i));
    chunks_.push_back(std::move(chunk));
  }
  uint32_t idx = free_.back();
  free_.pop_back();
  Request* r = by_index_[idx];
  // data and bounce were emptied by release() (or never filled).
  static_cast<RequestState&>(*r) = RequestState{};
  r->id = (static_cast<uint64_t>(++gen_[idx]) << 32) | idx;
  ++live_;
  return r;
}

void RequestPool::release(Request* r) {
  uint32_t idx = static_cast<uint32_t>(r->id & 0xffffffffu);
  ++gen_[idx];  // invalidates the id still held by a peer
  if (r->holds_comm) --r->comm->pending_ops;
  r->holds_comm = false;
  r->id = 0;
  // A predefined type (the only builtin ones; never reference-counted) stays:
  // the next message most likely has it too, and TypedBuffer::reset then
  // skips the reference exchange. A derived type is let go at once.
  if (const dtype::TypeRef& t = r->data.type(); t && t->is_builtin()) r->data.reset(nullptr, 0, t);
  else r->data.clear();
  r->bounce.reset();
  free_.push_back(idx);
  --live_;
}

void RequestPool::renew(Request* r) {
  uint32_t idx = index_of(r);
  r->id = (static_cast<uint64_t>(++gen_[idx]) << 32) | idx;
}

Request* RequestPool::find(uint64_t id) const {
  uint32_t idx = static_cast<uint32_t>(id & 0xffffffffu);
  if (idx >= by_index_.size()) return nullptr;
  Request* r = by_index_[idx];
  return r->id == id ? r : nullptr;
}

}  // namespace ftmpi::p2p
