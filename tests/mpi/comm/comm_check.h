/* Helpers of the chapter 5-7 test programs (on top of common/check.h). */
#ifndef FTMPI_TEST_COMM_CHECK_H
#define FTMPI_TEST_COMM_CHECK_H
#include "check.h"

static inline int error_class_of(int code) {
  int c = -1;
  MPI_Error_class(code, &c);
  return c;
}

/* The call must fail with this error class (the communicator involved must
 * have MPI_ERRORS_RETURN). */
#define EXPECT_CLASS(call, want)                                                                      \
  do {                                                                                                \
    int rc_ = (call);                                                                                 \
    CHECK(rc_ != MPI_SUCCESS && error_class_of(rc_) == (want), "%s returned %d (class %d), expected %s", \
          #call, rc_, error_class_of(rc_), #want);                                                    \
  } while (0)

/* World rank of `rank` of communicator c (its remote group if remote != 0). */
static inline int world_rank_of(MPI_Comm c, int rank, int remote) {
  MPI_Group g, w;
  int out = -1;
  if (remote) CHECK_MPI(MPI_Comm_remote_group(c, &g));
  else CHECK_MPI(MPI_Comm_group(c, &g));
  CHECK_MPI(MPI_Comm_group(MPI_COMM_WORLD, &w));
  CHECK_MPI(MPI_Group_translate_ranks(g, 1, &rank, w, &out));
  CHECK_MPI(MPI_Group_free(&g));
  CHECK_MPI(MPI_Group_free(&w));
  return out;
}

#endif
