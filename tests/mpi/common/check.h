/* Tiny assertion helpers shared by the MPI test programs: a failed check
 * prints where and why, then ends the whole job with MPI_Abort. */
#ifndef FTMPI_TEST_CHECK_H
#define FTMPI_TEST_CHECK_H
#include <mpi.h>
#include <stdio.h>

#define CHECK(cond, ...)                                                   \
  do {                                                                     \
    if (!(cond)) {                                                         \
      int r_ = -1;                                                         \
      MPI_Comm_rank(MPI_COMM_WORLD, &r_);                                  \
      fprintf(stderr, "CHECK FAILED on rank %d at %s:%d: %s: ", r_,        \
              __FILE__, __LINE__, #cond);                                  \
      fprintf(stderr, __VA_ARGS__);                                        \
      fprintf(stderr, "\n");                                               \
      fflush(stderr);                                                      \
      MPI_Abort(MPI_COMM_WORLD, 3);                                        \
    }                                                                      \
  } while (0)

#define CHECK_MPI(call)                                                    \
  do {                                                                     \
    int rc_ = (call);                                                      \
    CHECK(rc_ == MPI_SUCCESS, "%s returned %d", #call, rc_);               \
  } while (0)

#endif
