// Datatype objects: the 35 builtins and the MPI-1.2 derived constructors.
// See datatype.hpp for the design; this header declares the object itself.
#pragma once
#include <atomic>
#include <cstdint>
#include <span>
#include <utility>
#include <vector>

#include "base/err.hpp"
#include "dtype/builtin.hpp"
#include "dtype/program.hpp"

namespace ftmpi::dtype {

class Type;

// Counted reference to a Type. Copying adds a reference; the type is deleted
// when the last one goes. Builtins are static and never deleted.
class TypeRef {
 public:
  TypeRef() = default;
  explicit TypeRef(Type* t) : t_(t) { retain(); }  // adds a reference (nullptr allowed)
  TypeRef(const TypeRef& o) : TypeRef(o.t_) {}
  TypeRef(TypeRef&& o) noexcept : t_(o.t_) { o.t_ = nullptr; }
  TypeRef& operator=(const TypeRef& o) {
    if (o.t_ != t_) {
      TypeRef keep(o);
      std::swap(t_, keep.t_);
    }
    return *this;
  }
  TypeRef& operator=(TypeRef&& o) noexcept {
    if (this != &o) {
      release();
      t_ = o.t_;
      o.t_ = nullptr;
    }
    return *this;
  }
  ~TypeRef() { release(); }

  Type* get() const { return t_; }
  Type& operator*() const { return *t_; }
  Type* operator->() const { return t_; }
  explicit operator bool() const { return t_ != nullptr; }
  friend bool operator==(const TypeRef& a, const TypeRef& b) { return a.t_ == b.t_; }

 private:
  // The predefined types live forever (Type::is_static_) and are not
  // counted: the per-message path pays no atomic operation for them.
  inline void retain() const;
  inline void release() const;
  Type* t_ = nullptr;
};

enum class Combiner : uint8_t { kBuiltin, kContiguous, kVector, kHvector, kIndexed, kHindexed, kStruct, kResized };

// One block of a derived type: `blocklen` copies of `child`, the first at
// `disp` bytes, the next ones child->extent() apart.
struct TypeBlock {
  int64_t disp = 0;
  int64_t blocklen = 0;
  const Type* child = nullptr;
};

class Type {
 public:
  Type(const Type&) = delete;
  Type& operator=(const Type&) = delete;

  Combiner combiner() const { return combiner_; }
  bool is_builtin() const { return combiner_ == Combiner::kBuiltin; }
  Builtin builtin() const { return builtin_; }  // only if is_builtin()

  int64_t size() const { return size_; }  // data bytes of one item
  int64_t lb() const { return lb_; }
  int64_t ub() const { return ub_; }
  int64_t extent() const { return ub_ - lb_; }
  int64_t true_lb() const { return true_lb_; }  // data only: no markers, no padding
  int64_t true_ub() const { return true_ub_; }
  int64_t true_extent() const { return true_ub_ - true_lb_; }
  bool has_lb_marker() const { return has_lb_; }
  bool has_ub_marker() const { return has_ub_; }
  int alignment() const { return align_; }
  int64_t elements() const { return elements_; }  // basic elements of one item (pairs: 2)

  // Any number of items form one memory block starting at buf + true_lb()
  // (data dense and extent == size): p2p may memcpy or send in place.
  bool contiguous() const { return contiguous_; }
  // One item's data is one memory block at buf + true_lb() (count == 1 fast
  // path even when the extent leaves gaps between items).
  bool dense() const { return size_ == 0 || (data_.root && data_.root->dense()); }
  // The single builtin every data element is made of, when there is one
  // (markers do not count): what the reduction ops need. nullopt-like:
  // has_unit() false for mixed types and for types made of markers only.
  bool has_unit() const { return unit_ != Builtin{} && !mixed_; }
  Builtin unit() const { return unit_; }
  // Every element is MPI_BYTE or MPI_PACKED (matches any signature by bytes).
  bool raw_bytes() const { return raw_; }
  uint64_t signature_hash() const { return sig_hash_; }  // of one item; see signature.hpp

  bool committed() const { return committed_; }
  void commit() { committed_ = true; }

  // The constructor's description, in type-map order: `reps()` repetitions,
  // `rep_stride()` bytes apart, of the blocks. Builtins have none.
  int64_t reps() const { return reps_; }
  int64_t rep_stride() const { return rep_stride_; }
  std::span<const TypeBlock> blocks() const { return blocks_; }

  // Compiled layouts (internal to the module; see program.hpp).
  const Program& data_program() const { return data_; }
  // Layout in whole units of unit(): differs from data_program() only for
  // pair units with holes (MPI_SHORT_INT, MPI_DOUBLE_INT, ...).
  const Program& unit_program() const { return has_unit_prog_ ? unit_prog_ : data_; }
  // Structural proof that no two data bytes of one item share an address.
  bool proven_disjoint() const { return disjoint_; }
  // Some of its data bytes hold no value (padding.hpp): MPI_LONG_DOUBLE and
  // MPI_LONG_DOUBLE_INT where long double is the x87 80-bit format.
  bool padded() const { return padded_; }

 private:
  friend class TypeRef;
  friend class TypeBuilder;
  Type() = default;
  void retain() const { refs_.fetch_add(1, std::memory_order_relaxed); }
  void release() const;

  mutable std::atomic<int32_t> refs_{0};
  Combiner combiner_ = Combiner::kBuiltin;
  Builtin builtin_{};
  Builtin unit_{};
  bool mixed_ = false;
  bool raw_ = false;
  bool has_lb_ = false;
  bool has_ub_ = false;
  bool contiguous_ = false;
  bool disjoint_ = true;
  bool padded_ = false;
  bool committed_ = false;
  bool has_unit_prog_ = false;
  bool is_static_ = false;
  int align_ = 1;
  int64_t size_ = 0;
  int64_t lb_ = 0;
  int64_t ub_ = 0;
  int64_t true_lb_ = 0;
  int64_t true_ub_ = 0;
  int64_t elements_ = 0;
  uint64_t sig_hash_ = 0;
  int64_t reps_ = 1;
  int64_t rep_stride_ = 0;
  std::vector<TypeBlock> blocks_;
  std::vector<TypeRef> children_;  // keeps every TypeBlock::child alive
  Program data_;
  Program unit_prog_;
};

// The static object of a builtin (committed, never freed).
const Type& builtin_type(Builtin b);
TypeRef builtin_ref(Builtin b);

// MPI-1.2 constructors. On success *out holds a new, uncommitted type.
// Errors: kCount (count < 0), kArg (negative block length, mismatched array
// lengths, or sizes/bounds beyond 64 bits). Array lengths are the MPI count;
// the caller rejects a negative count before building spans. May throw
// std::bad_alloc.
[[nodiscard]] Err make_contiguous(int64_t count, const Type& old, TypeRef* out);
[[nodiscard]] Err make_vector(int64_t count, int64_t blocklen, int64_t stride, const Type& old,
                              TypeRef* out);
[[nodiscard]] Err make_hvector(int64_t count, int64_t blocklen, int64_t stride_bytes,
                               const Type& old, TypeRef* out);
[[nodiscard]] Err make_indexed(std::span<const int> blocklens, std::span<const int> displs,
                               const Type& old, TypeRef* out);
[[nodiscard]] Err make_hindexed(std::span<const int> blocklens, std::span<const int64_t> displs,
                                const Type& old, TypeRef* out);
[[nodiscard]] Err make_struct(std::span<const int> blocklens, std::span<const int64_t> displs,
                              std::span<const Type* const> types, TypeRef* out);

// MPI-2 MPI_Type_create_resized: old's type map with lower bound `lb` and
// extent `extent`, both explicit (they act as LB/UB markers in later
// constructors). kArg if lb + extent overflows.
[[nodiscard]] Err make_resized(const Type& old, int64_t lb, int64_t extent, TypeRef* out);

// Packed bytes of (count, type), or -1 if that does not fit in 63 bits.
int64_t packed_bytes(const Type& t, int64_t count);

inline void TypeRef::retain() const {
  if (t_ && !t_->is_static_) t_->retain();
}
inline void TypeRef::release() const {
  if (t_ && !t_->is_static_) t_->release();
}

}  // namespace ftmpi::dtype
