// Type references and the builtin type objects.
#include "dtype/type.hpp"

#include "dtype/type_builder.hpp"

namespace ftmpi::dtype {

void Type::release() const {
  if (refs_.fetch_sub(1, std::memory_order_acq_rel) == 1 && !is_static_) delete this;
}

const Type& builtin_type(Builtin b) {
  // Allocated once and never freed: derived types held in other static
  // objects may release their builtin children during exit.
  static Type* const table = TypeBuilder::make_builtin_table();
  return table[static_cast<int>(b)];
}

TypeRef builtin_ref(Builtin b) { return TypeRef(const_cast<Type*>(&builtin_type(b))); }

int64_t packed_bytes(const Type& t, int64_t count) {
  int64_t r;
  if (count < 0 || __builtin_mul_overflow(count, t.size(), &r)) return -1;
  return r;
}

}  // namespace ftmpi::dtype
