// Datatype handles and the datatype calls of MPI-1.2 chapter 3.
#include "api/args.hpp"
#include "api/call.hpp"
#include "api/pmpi.hpp"

namespace ftmpi::api {

Err check_type(MPI_Datatype h, const dtype::TypeRef** out, Why& w) {
  TypeObj* t = rt()->types.get(h);
  if (!t) return w.set(Err::kType, h == MPI_DATATYPE_NULL ? "datatype is MPI_DATATYPE_NULL" : "invalid datatype");
  if (!t->type->committed()) return w.set(Err::kType, "datatype is not committed");
  *out = &t->type;
  return Err::kOk;
}

}  // namespace ftmpi::api
