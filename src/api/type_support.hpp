// Shared by the datatype entry points of MPI-1 (datatypes.cpp) and MPI-2
// (type_create.cpp, type_query.cpp): handle lookups, registering a newly
// built type with its envelope (MPI_Type_get_envelope), and argument checks.
#pragma once
#include <initializer_list>
#include <new>
#include <span>
#include <vector>

#include "api/call.hpp"
#include "api/runtime.hpp"

namespace ftmpi::api {

// Any valid datatype, committed or not (constructors and queries).
inline const dtype::Type* any_type(MPI_Datatype h) {
  TypeObj* t = rt()->types.get(h);
  return t ? t->type.get() : nullptr;
}

inline int bad_type(Call& call, MPI_Datatype h) {
  return call.fail(nullptr, Err::kType, h == MPI_DATATYPE_NULL ? "datatype is MPI_DATATYPE_NULL" : "invalid datatype");
}

// The integers of an envelope, from pieces (count, then arrays).
inline std::vector<int> concat(std::initializer_list<int> a, std::span<const int> b) {
  std::vector<int> out(a);
  out.insert(out.end(), b.begin(), b.end());
  return out;
}
inline std::vector<int> concat(std::initializer_list<int> a, std::span<const int> b, std::span<const int> c) {
  std::vector<int> out = concat(a, b);
  out.insert(out.end(), c.begin(), c.end());
  return out;
}

// The envelope of a constructor call; `types` are valid handles.
inline TypeEnvelope envelope(int combiner, std::vector<int> ints, std::vector<MPI_Aint> aints,
                             std::vector<MPI_Datatype> types) {
  TypeEnvelope e;
  e.combiner = combiner;
  e.ints = std::move(ints);
  e.aints = std::move(aints);
  for (MPI_Datatype h : types) {
    TypeObj* t = rt()->types.get(h);
    e.types.push_back(t->type);
    e.type_envs.push_back(t->env);
  }
  return e;
}

// Common tail of the constructors: register the new type or report.
template <typename Build>
int construct(Call& call, MPI_Datatype* newtype, Build&& build, TypeEnvelope env) {
  dtype::TypeRef out;
  Err e;
  try {
    e = build(&out);
  } catch (const std::bad_alloc&) {
    return call.fail(nullptr, Err::kIntern, "out of memory");
  }
  if (!ok(e)) {
    return call.fail(nullptr, e, e == Err::kCount ? "count is negative"
                                 : "negative block length or a size or bound beyond 64 bits");
  }
  auto obj = std::make_unique<TypeObj>();
  obj->type = std::move(out);
  obj->env = std::move(env);
  *newtype = rt()->types.add(std::move(obj));
  return MPI_SUCCESS;
}

// Arguments every constructor checks first; returns MPI_SUCCESS or the code.
inline int check_common(Call& call, int count, bool arrays_given, MPI_Datatype* newtype) {
  if (!newtype) return call.fail(nullptr, Err::kArg, "newtype pointer is null");
  if (count < 0) return call.fail(nullptr, Err::kCount, "count %d is negative", count);
  if (count > 0 && !arrays_given) return call.fail(nullptr, Err::kArg, "an array argument is null");
  return MPI_SUCCESS;
}

// MPI_Type_(create_)hvector / hindexed / struct: the MPI-1 and MPI-2 forms
// differ only in the name reported and the envelope's combiner
// (type_create.cpp).
int create_hvector(const char* name, int combiner, int count, int blocklength, MPI_Aint stride, MPI_Datatype oldtype,
                   MPI_Datatype* newtype);
int create_hindexed(const char* name, int combiner, int count, const int* blocklengths, const MPI_Aint* displacements,
                    MPI_Datatype oldtype, MPI_Datatype* newtype);
int create_struct(const char* name, int combiner, int count, const int* blocklengths, const MPI_Aint* displacements,
                  const MPI_Datatype* types, MPI_Datatype* newtype);

}  // namespace ftmpi::api
