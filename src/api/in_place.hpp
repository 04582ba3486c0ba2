// MPI_IN_PLACE (MPI-3.1 §5.2.1): the entry points turn an in-place call
// into an ordinary one before checking it, by giving the algorithms a copy
// of the input that lives in the receive buffer (or scratch room for a
// block the root does not receive). One copy per call; the algorithms then
// never see aliased buffers.
#pragma once
#include <memory>
#include <vector>

#include "api/runtime.hpp"
#include "coll/layout.hpp"

namespace ftmpi::api {

class InPlace {
 public:
  // The copies live as long as this object: a nonblocking call hands it to
  // its schedule (Schedule::keep).
  // A copy of `count` items of dt at buf, in dt's layout. With an invalid
  // datatype or count, `buf` itself: the caller's checks then report it.
  void* copy(const void* buf, long long count, MPI_Datatype dt) {
    const dtype::Type* t = valid(dt, count);
    if (!t) return const_cast<void*>(buf);
    void* out = room_for(*t, static_cast<size_t>(count));
    coll::copy_items(buf, out, static_cast<size_t>(count), *t);
    return out;
  }
  // Room for `count` items of dt (a block nobody reads afterwards).
  void* room(const void* fallback, long long count, MPI_Datatype dt) {
    const dtype::Type* t = valid(dt, count);
    return t ? room_for(*t, static_cast<size_t>(count)) : const_cast<void*>(fallback);
  }

 private:
  static const dtype::Type* valid(MPI_Datatype dt, long long count) {
    TypeObj* t = rt()->types.get(dt);
    return t && t->type->committed() && count >= 0 ? t->type.get() : nullptr;
  }
  void* room_for(const dtype::Type& t, size_t count) {
    coll::Span sp = coll::span_of(t, count);
    own_.push_back(std::make_unique<uint8_t[]>(sp.bytes + 1));
    return own_.back().get() - sp.lo;
  }

  std::vector<std::unique_ptr<uint8_t[]>> own_;
};

}  // namespace ftmpi::api
