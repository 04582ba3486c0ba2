/* Argument conversions shared by the Fortran wrappers (support.h). */
#include "fortran/support.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Raises an error from this layer through the C library's handlers
 * (src/api/raise.cpp; exported, not in mpi.h). */
int ftmpi_binding_raise(MPI_Comm comm, int error_class, const char *call_name, const char *detail);

#define STATUS_INTS 6
_Static_assert(sizeof(MPI_Status) == STATUS_INTS * sizeof(ftmpi_fint),
               "MPI_STATUS_SIZE (gen_bindings.py) must equal sizeof(MPI_Status) in INTEGERs");
_Static_assert(offsetof(MPI_Status, MPI_SOURCE) == 0 && offsetof(MPI_Status, MPI_TAG) == sizeof(int) &&
                   offsetof(MPI_Status, MPI_ERROR) == 2 * sizeof(int),
               "the Fortran status indices MPI_SOURCE=1, MPI_TAG=2, MPI_ERROR=3 follow the C field order");

ftmpi_fint ftmpi_bottom_;
ftmpi_fint ftmpi_status_ignore_[STATUS_INTS];
ftmpi_fint ftmpi_statuses_ignore_[STATUS_INTS];

/* Set once, by the first MPI_ADDRESS call (support.h). */
static char *address_origin;

MPI_Aint ftmpi_f_address_origin(void *first_location) {
  if (!address_origin) address_origin = first_location;
  return (MPI_Aint)(intptr_t)address_origin;
}

void *ftmpi_f_buf(void *buf) {
  /* Before any MPI_ADDRESS no absolute displacement exists, so MPI_BOTTOM
   * may stand for any address; its own is as good as another. */
  if (buf == (void *)&ftmpi_bottom_ && address_origin) return address_origin;
  return buf;
}

MPI_Status *ftmpi_f_status_in(ftmpi_fint *f, MPI_Status *local) {
  if (f == ftmpi_status_ignore_ || f == ftmpi_statuses_ignore_) return MPI_STATUS_IGNORE;
  memcpy(local, f, sizeof *local);
  return local;
}

void ftmpi_f_status_out(ftmpi_fint *f, MPI_Status *c) {
  if (c != MPI_STATUS_IGNORE) memcpy(f, c, sizeof *c);
}

MPI_Status *ftmpi_f_statuses_in(ftmpi_fint *f, int n) {
  if (f == ftmpi_statuses_ignore_ || f == ftmpi_status_ignore_) return MPI_STATUSES_IGNORE;
  if ((uintptr_t)f % _Alignof(MPI_Status) == 0) return (MPI_Status *)(void *)f;
  size_t count = n > 0 ? (size_t)n : 1;
  MPI_Status *c = malloc(count * sizeof *c);
  if (c && n > 0) memcpy(c, f, (size_t)n * sizeof *c);
  return c;
}

void ftmpi_f_statuses_out(ftmpi_fint *f, MPI_Status *c, int filled) {
  if (c == MPI_STATUSES_IGNORE || c == (MPI_Status *)(void *)f) return;
  if (filled > 0) memcpy(f, c, (size_t)filled * sizeof *c);
  free(c);
}

MPI_Aint *ftmpi_f_aints_in(const ftmpi_fint *f, int n) {
  MPI_Aint *c = malloc((n > 0 ? (size_t)n : 1) * sizeof *c);
  if (c)
    for (int i = 0; i < n; ++i) c[i] = f[i];
  return c;
}

int ftmpi_f_aint_out(MPI_Aint v, ftmpi_fint *f, const char *call) {
  if (v < INT32_MIN || v > INT32_MAX)
    return ftmpi_binding_raise(MPI_COMM_WORLD, MPI_ERR_ARG, call,
                               "the value does not fit in a Fortran INTEGER");
  *f = (ftmpi_fint)v;
  return MPI_SUCCESS;
}

void ftmpi_f_string_out(const char *c, char *f, size_t flen, ftmpi_fint *resultlen) {
  size_t n = strlen(c);
  if (n > flen) n = flen;
  memcpy(f, c, n);
  memset(f + n, ' ', flen - n);
  if (*resultlen > (ftmpi_fint)n) *resultlen = (ftmpi_fint)n;
}

int ftmpi_f_nomem(const char *call) {
  return ftmpi_binding_raise(MPI_COMM_WORLD, MPI_ERR_INTERN, call, "out of memory converting a Fortran argument");
}
