// MPI_Pack, MPI_Unpack and MPI_Pack_size (MPI-1.2 §3.13). The packed format
// is the datatype engine's packed stream, the same bytes a message carries:
// ranks of one job share one data representation, so no header is needed and
// a buffer packed here can be sent as MPI_PACKED and received with any type
// of the same signature, and the reverse.
#include <climits>

#include "api/args.hpp"
#include "api/call.hpp"
#include "api/pmpi.hpp"

using namespace ftmpi;
using namespace ftmpi::api;

namespace {

// Checks what Pack and Unpack share; returns MPI_SUCCESS or the error code.
// On success *bytes is the packed size of (count, type).
int check_pack(Call& call, int count, MPI_Datatype dt, const void* typed_buf, const void* packed_buf, int packed_size,
               const int* position, MPI_Comm ch, const dtype::TypeRef** type, int64_t* bytes) {
  Why w;
  comm::Communicator* c = lookup_comm(ch);
  if (!c) return call.fail(nullptr, Err::kComm, "invalid communicator");
  Err e = check_count(count, w);
  if (ok(e)) e = check_type(dt, type, w);
  if (ok(e)) e = check_buffer(typed_buf, count, **type, w);
  if (!ok(e)) return call.fail(c, e, "%s", w.text);
  if (!position) return call.fail(c, Err::kArg, "position pointer is null");
  if (packed_size < 0) return call.fail(c, Err::kArg, "packed buffer size %d is negative", packed_size);
  if (*position < 0 || *position > packed_size)
    return call.fail(c, Err::kArg, "position %d is outside the packed buffer of %d bytes", *position, packed_size);
  *bytes = dtype::packed_bytes(***type, count);
  if (*bytes < 0 || *bytes > INT_MAX) return call.fail(c, Err::kArg, "packed size of %d items exceeds an int", count);
  if (*bytes > packed_size - *position)
    return call.fail(c, Err::kTruncate, "%lld packed bytes do not fit in the %d bytes left after position %d",
                     static_cast<long long>(*bytes), packed_size - *position, *position);
  if (*bytes > 0 && !packed_buf) return call.fail(c, Err::kBuffer, "packed buffer is null");
  return MPI_SUCCESS;
}

}  // namespace

extern "C" {

int PMPI_Pack(const void* inbuf, int incount, MPI_Datatype dt, void* outbuf, int outsize, int* position, MPI_Comm comm) {
  Call call("MPI_Pack");
  const dtype::TypeRef* type = nullptr;
  int64_t bytes = 0;
  if (int c = check_pack(call, incount, dt, inbuf, outbuf, outsize, position, comm, &type, &bytes); c != MPI_SUCCESS)
    return c;
  if (bytes > 0) {
    p2p::TypedBuffer src(const_cast<void*>(inbuf), static_cast<size_t>(incount), *type);  // read only
    src.pack(0, static_cast<uint8_t*>(outbuf) + *position, static_cast<size_t>(bytes));
  }
  *position += static_cast<int>(bytes);
  return MPI_SUCCESS;
}
FTMPI_WEAK_ALIAS(MPI_Pack, PMPI_Pack)

int PMPI_Unpack(const void* inbuf, int insize, int* position, void* outbuf, int outcount, MPI_Datatype dt,
                MPI_Comm comm) {
  Call call("MPI_Unpack");
  const dtype::TypeRef* type = nullptr;
  int64_t bytes = 0;
  if (int c = check_pack(call, outcount, dt, outbuf, inbuf, insize, position, comm, &type, &bytes); c != MPI_SUCCESS)
    return c;
  if (bytes > 0) {
    p2p::TypedBuffer dst(outbuf, static_cast<size_t>(outcount), *type);
    dst.unpack(0, static_cast<const uint8_t*>(inbuf) + *position, static_cast<size_t>(bytes));
  }
  *position += static_cast<int>(bytes);
  return MPI_SUCCESS;
}
FTMPI_WEAK_ALIAS(MPI_Unpack, PMPI_Unpack)

int PMPI_Pack_size(int incount, MPI_Datatype dt, MPI_Comm comm, int* size) {
  Call call("MPI_Pack_size");
  Why w;
  comm::Communicator* c = lookup_comm(comm);
  if (!c) return call.fail(nullptr, Err::kComm, "invalid communicator");
  const dtype::TypeRef* type = nullptr;
  Err e = check_count(incount, w);
  if (ok(e)) e = check_type(dt, &type, w);
  if (!ok(e)) return call.fail(c, e, "%s", w.text);
  if (!size) return call.fail(c, Err::kArg, "size pointer is null");
  int64_t bytes = dtype::packed_bytes(**type, incount);
  if (bytes < 0 || bytes > INT_MAX) return call.fail(c, Err::kArg, "packed size of %d items exceeds an int", incount);
  *size = static_cast<int>(bytes);
  return MPI_SUCCESS;
}
FTMPI_WEAK_ALIAS(MPI_Pack_size, PMPI_Pack_size)

}  // extern "C"
