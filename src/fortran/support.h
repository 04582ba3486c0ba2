/* What the generated wrappers (bindings.c) and the hand-written ones
 * (special.c) share: the Fortran INTEGER type, the common blocks behind
 * MPI_BOTTOM and the status placeholders, and the argument conversions. */
#ifndef FTMPI_FORTRAN_SUPPORT_H
#define FTMPI_FORTRAN_SUPPORT_H

#include <stddef.h>

#include "mpi.h"

/* Default Fortran INTEGER (and LOGICAL): 4 bytes with gfortran unless the
 * program is built with -fdefault-integer-8, which these bindings do not
 * support. Handles are the C handles unchanged (both are int). */
typedef int ftmpi_fint;

/* The common blocks of mpif.h (gfortran: lower case + underscore). Defined
 * in support.c; a program's own common blocks of the same name bind to
 * them, so their addresses identify the Fortran MPI_BOTTOM, MPI_STATUS_IGNORE
 * and MPI_STATUSES_IGNORE. */
extern ftmpi_fint ftmpi_bottom_;
extern ftmpi_fint ftmpi_status_ignore_[];
extern ftmpi_fint ftmpi_statuses_ignore_[];

/* Fortran addresses are default INTEGERs (MPI-1.2), too small for a 64-bit
 * address, so MPI_ADDRESS returns the distance from an origin: the location
 * given to the first MPI_ADDRESS call of the process. A program's variables
 * that go into one datatype are usually close together (one stack frame, one
 * common block), so their distances fit; MPI_ADDRESS reports MPI_ERR_ARG
 * when one does not. A buffer argument equal to the Fortran MPI_BOTTOM
 * stands for the origin (ftmpi_f_buf), so displacements from MPI_ADDRESS
 * land on the right bytes. */
MPI_Aint ftmpi_f_address_origin(void *first_location);
void *ftmpi_f_buf(void *buf);

/* A status argument: MPI_STATUS_IGNORE, or a C copy of the Fortran array
 * (MPI_Status is MPI_STATUS_SIZE INTEGERs with the same field order, but a
 * Fortran array need not be aligned for its long long count). */
MPI_Status *ftmpi_f_status_in(ftmpi_fint *f, MPI_Status *local);
void ftmpi_f_status_out(ftmpi_fint *f, MPI_Status *c);

/* An array of n statuses: MPI_STATUSES_IGNORE, the Fortran array itself when
 * aligned, else a malloc'd copy (null when out of memory). _out copies the
 * first `filled` back and releases the copy. */
MPI_Status *ftmpi_f_statuses_in(ftmpi_fint *f, int n);
void ftmpi_f_statuses_out(ftmpi_fint *f, MPI_Status *c, int filled);

/* INTEGER displacements widened to MPI_Aint (malloc'd, null when out of
 * memory; free() it). */
MPI_Aint *ftmpi_f_aints_in(const ftmpi_fint *f, int n);
/* An MPI_Aint result stored into an INTEGER; MPI_ERR_ARG through
 * MPI_COMM_WORLD's handler when it does not fit. Returns the error code. */
int ftmpi_f_aint_out(MPI_Aint v, ftmpi_fint *f, const char *call);

/* A C string result into a CHARACTER*(*) of length flen: copied, blank
 * padded, truncated if longer (then *resultlen is flen). */
void ftmpi_f_string_out(const char *c, char *f, size_t flen, ftmpi_fint *resultlen);

/* MPI_ERR_INTERN ("out of memory") through MPI_COMM_WORLD's handler. */
int ftmpi_f_nomem(const char *call);

#endif
