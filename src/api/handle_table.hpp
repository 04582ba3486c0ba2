// Handle <-> object tables. A handle is (kind << 26) | index (include/mpi.h);
// index 0 is the kind's null handle and the first `reserved` indices are the
// predefined objects. Freed indices are reused, newest first.
#pragma once
#include <cstdint>
#include <memory>
#include <vector>

namespace ftmpi::api {

enum class Kind : int { kComm = 1, kGroup = 2, kDatatype = 3, kOp = 4, kErrhandler = 5, kRequest = 6, kInfo = 7 };

inline constexpr int make_handle(Kind k, int index) { return (static_cast<int>(k) << 26) | index; }
inline constexpr int handle_index(int h) { return h & ((1 << 26) - 1); }
inline constexpr bool handle_is(int h, Kind k) { return (h >> 26) == static_cast<int>(k); }

template <typename T>
class HandleTable {
 public:
  HandleTable(Kind kind, int first_user) : kind_(kind), first_user_(first_user) {
    slots_.resize(static_cast<size_t>(first_user));
  }
  // Predefined objects at fixed indices.
  void set_predefined(int index, std::unique_ptr<T> obj) { slots_[static_cast<size_t>(index)] = std::move(obj); }

  int add(std::unique_ptr<T> obj) {
    int idx;
    if (!free_.empty()) {
      idx = free_.back();
      free_.pop_back();
      slots_[static_cast<size_t>(idx)] = std::move(obj);
    } else {
      idx = static_cast<int>(slots_.size());
      slots_.push_back(std::move(obj));
    }
    return make_handle(kind_, idx);
  }
  // The object, or nullptr for a null, freed, or wrong-kind handle.
  T* get(int h) const {
    if (!handle_is(h, kind_)) return nullptr;
    size_t idx = static_cast<size_t>(handle_index(h));
    return idx < slots_.size() ? slots_[idx].get() : nullptr;
  }
  bool is_predefined(int h) const { return handle_is(h, kind_) && handle_index(h) < first_user_; }
  std::unique_ptr<T> remove(int h) {
    if (!get(h) || is_predefined(h)) return nullptr;
    int idx = handle_index(h);
    free_.push_back(idx);
    return std::move(slots_[static_cast<size_t>(idx)]);
  }
  template <typename Fn>
  void for_each(Fn&& fn) {
    for (size_t i = 1; i < slots_.size(); ++i)
      if (slots_[i]) fn(make_handle(kind_, static_cast<int>(i)), *slots_[i]);
  }
  Kind kind() const { return kind_; }

 private:
  Kind kind_;
  int first_user_;
  std::vector<std::unique_ptr<T>> slots_;
  std::vector<int> free_;
};

}  // namespace ftmpi::api
