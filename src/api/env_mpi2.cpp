// MPI-2/3 environment calls (MPI-3.1 §8.1.1, §8.2, §8.7, §12.4):
// MPI_Finalized, MPI_Alloc_mem / MPI_Free_mem, MPI_Get_library_version and
// the thread-support calls.
//
// Thread support: progress happens only inside MPI calls and the library
// keeps no per-thread state, so calls from any thread work as long as no two
// run at once: MPI_THREAD_SERIALIZED is the highest level granted. Nothing
// locks the engine, so MPI_THREAD_MULTIPLE is never granted.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>

#include "api/call.hpp"
#include "api/pmpi.hpp"

using namespace ftmpi;
using namespace ftmpi::api;

extern "C" {

int PMPI_Finalized(int* flag) {
  // Callable at any time, before MPI_Init and after MPI_Finalize too.
  if (!flag) return MPI_ERR_ARG;
  *flag = phase() == Phase::kFinalized;
  return MPI_SUCCESS;
}
FTMPI_WEAK_ALIAS(MPI_Finalized, PMPI_Finalized)

int PMPI_Get_library_version(char* version, int* resultlen) {
  // Callable at any time (MPI-3.1 §8.1.1).
  if (!version || !resultlen) return MPI_ERR_ARG;
  const int n = std::snprintf(version, MPI_MAX_LIBRARY_VERSION_STRING,
                              "ftmpi %s (fault-tolerant MPI-1.2 with FT-MPI semantics and MPI-2/3 extensions)",
                              FTMPI_VERSION);
  *resultlen = n < MPI_MAX_LIBRARY_VERSION_STRING ? n : MPI_MAX_LIBRARY_VERSION_STRING - 1;
  return MPI_SUCCESS;
}
FTMPI_WEAK_ALIAS(MPI_Get_library_version, PMPI_Get_library_version)

int PMPI_Alloc_mem(MPI_Aint size, MPI_Info info, void* baseptr) {
  Call call("MPI_Alloc_mem");
  if (size < 0) return call.fail(nullptr, Err::kArg, "size %ld is negative", static_cast<long>(size));
  if (info != MPI_INFO_NULL && !rt()->infos.get(info)) return call.fail(nullptr, Err::kArg, "invalid info object");
  if (!baseptr) return call.fail(nullptr, Err::kArg, "baseptr is null");
  // No special memory here (shared memory already serves every local
  // transfer): aligned heap memory, so MPI_Free_mem is free().
  void* p = nullptr;
  if (posix_memalign(&p, 64, size > 0 ? static_cast<size_t>(size) : 1) != 0)
    return call.fail(nullptr, Err::kNoMem, "cannot allocate %ld bytes", static_cast<long>(size));
  std::memcpy(baseptr, &p, sizeof p);  // baseptr is really a void**
  return MPI_SUCCESS;
}
FTMPI_WEAK_ALIAS(MPI_Alloc_mem, PMPI_Alloc_mem)

int PMPI_Free_mem(void* base) {
  Call call("MPI_Free_mem");
  std::free(base);
  return MPI_SUCCESS;
}
FTMPI_WEAK_ALIAS(MPI_Free_mem, PMPI_Free_mem)

int PMPI_Init_thread(int* argc, char*** argv, int required, int* provided) {
  if (!provided) return MPI_ERR_ARG;
  if (required < MPI_THREAD_SINGLE || required > MPI_THREAD_MULTIPLE) return MPI_ERR_ARG;
  const int rc = PMPI_Init(argc, argv);
  if (rc != MPI_SUCCESS && rc != MPI_INIT_RESTARTED_NODE) return rc;
  rt()->thread_level = required < MPI_THREAD_SERIALIZED ? required : MPI_THREAD_SERIALIZED;
  *provided = rt()->thread_level;
  return rc;
}
FTMPI_WEAK_ALIAS(MPI_Init_thread, PMPI_Init_thread)

int PMPI_Query_thread(int* provided) {
  Call call("MPI_Query_thread");
  if (!provided) return call.fail(nullptr, Err::kArg, "provided is null");
  *provided = rt()->thread_level;
  return MPI_SUCCESS;
}
FTMPI_WEAK_ALIAS(MPI_Query_thread, PMPI_Query_thread)

int PMPI_Is_thread_main(int* flag) {
  Call call("MPI_Is_thread_main");
  if (!flag) return call.fail(nullptr, Err::kArg, "flag is null");
  *flag = std::this_thread::get_id() == rt()->main_thread;
  return MPI_SUCCESS;
}
FTMPI_WEAK_ALIAS(MPI_Is_thread_main, PMPI_Is_thread_main)

}  // extern "C"
