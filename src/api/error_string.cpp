// MPI_Error_string / MPI_Error_class. Codes equal classes in this library;
// the FT-MPI failure code (FTMPI_ERROR_FAILURE) is handled by the FT layer.
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <string>

#include "api/pmpi.hpp"
#include "api/runtime.hpp"
#include "mpi.h"

namespace {
const char* const kClassText[MPI_ERR_LASTCODE + 1] = {
    "MPI_SUCCESS: no error",
    "MPI_ERR_BUFFER: invalid buffer pointer",
    "MPI_ERR_COUNT: invalid count argument",
    "MPI_ERR_TYPE: invalid datatype",
    "MPI_ERR_TAG: invalid tag",
    "MPI_ERR_COMM: invalid communicator",
    "MPI_ERR_RANK: invalid rank",
    "MPI_ERR_REQUEST: invalid request",
    "MPI_ERR_ROOT: invalid root",
    "MPI_ERR_GROUP: invalid group",
    "MPI_ERR_OP: invalid reduction operation",
    "MPI_ERR_TOPOLOGY: invalid topology",
    "MPI_ERR_DIMS: invalid dimension argument",
    "MPI_ERR_ARG: invalid argument",
    "MPI_ERR_UNKNOWN: unknown error",
    "MPI_ERR_TRUNCATE: message truncated on receive",
    "MPI_ERR_OTHER: a process of the job failed",
    "MPI_ERR_INTERN: internal error in the MPI library",
    "MPI_ERR_IN_STATUS: error code is in the status",
    "MPI_ERR_PENDING: pending request",
    "MPI_ERR_KEYVAL: invalid keyval",
    "MPI_ERR_INFO_KEY: invalid info key (empty or longer than MPI_MAX_INFO_KEY)",
    "MPI_ERR_INFO_VALUE: invalid info value (longer than MPI_MAX_INFO_VAL)",
    "MPI_ERR_INFO_NOKEY: the info key is not defined",
    "MPI_ERR_NO_MEM: out of memory (MPI_Alloc_mem)",
};
}  // namespace

// The text of an FTMPI_ERROR_FAILURE code, or "" for any other code.
static std::string failure_text(int code) {
  ftmpi::api::Runtime* R = ftmpi::api::rt();
  if (!R || !ftmpi::ft::Episodes::is_failure_code(code)) return {};
  return R->ft->episodes().describe(code);
}

extern "C" {

int PMPI_Error_string(int errorcode, char* string, int* resultlen) {
  if (!string || !resultlen) return MPI_ERR_ARG;
  const char* text = nullptr;
  char buf[64];
  std::string failure = failure_text(errorcode);
  if (!failure.empty()) {
    text = failure.c_str();
  } else if (errorcode >= 0 && errorcode <= MPI_ERR_LASTCODE) {
    text = kClassText[errorcode];
  } else {
    std::snprintf(buf, sizeof buf, "unknown error code %d", errorcode);
    text = buf;
  }
  size_t n = std::min<size_t>(std::strlen(text), MPI_MAX_ERROR_STRING - 1);
  std::memcpy(string, text, n);
  string[n] = '\0';
  *resultlen = static_cast<int>(n);
  return (errorcode >= 0 && errorcode <= MPI_ERR_LASTCODE) || !failure.empty() ? MPI_SUCCESS : MPI_ERR_ARG;
}
FTMPI_WEAK_ALIAS(MPI_Error_string, PMPI_Error_string)

int PMPI_Error_class(int errorcode, int* errorclass) {
  if (!errorclass) return MPI_ERR_ARG;
  if (!failure_text(errorcode).empty()) {
    *errorclass = MPI_ERR_OTHER;  // FTMPI_ERROR_FAILURE codes (spec/ft-semantics.md §4.5)
    return MPI_SUCCESS;
  }
  if (errorcode < 0 || errorcode > MPI_ERR_LASTCODE) return MPI_ERR_ARG;
  *errorclass = errorcode;
  return MPI_SUCCESS;
}
FTMPI_WEAK_ALIAS(MPI_Error_class, PMPI_Error_class)

}  // extern "C"
