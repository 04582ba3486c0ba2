/* Tiny helpers shared by the MPI test programs: a failed check prints where
 * and why, then ends the whole job with MPI_Abort; error classes and int
 * attributes read in one call. */
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

/* The error class of a return code. */
static inline int cls(int code) {
  int c = -1;
  MPI_Error_class(code, &c);
  return c;
}

/* An int-valued attribute of MPI_COMM_WORLD that must be set (the FTMPI_*
 * keys, MPI_TAG_UB, ...). */
static inline int attr_int(int key) {
  int* v = NULL;
  int flag = 0;
  CHECK_MPI(MPI_Attr_get(MPI_COMM_WORLD, key, &v, &flag));
  CHECK(flag && v, "attribute %d not set", key);
  return *v;
}

#endif
