/* The Fortran bindings whose Fortran form is not the C one plus argument
 * conversions (listed as `special` in bindings.txt). Each is written once
 * against a pointer to the C function and exported twice, as mpi_x_ calling
 * MPI_X and pmpi_x_ calling PMPI_X, like the generated ones. */
#include <stdint.h>
#include <stdlib.h>

#include "fortran/support.h"

int ftmpi_binding_raise(MPI_Comm comm, int error_class, const char *call_name, const char *detail);

/* MPI_INIT(IERROR): a Fortran program has no argc/argv to give; IERROR is
 * MPI_INIT_RESTARTED_NODE in a process REBUILD respawned. */
static void init(int (*fn)(int *, char ***), ftmpi_fint *ierror) { *ierror = fn(NULL, NULL); }
void mpi_init_(ftmpi_fint *ierror) { init(MPI_Init, ierror); }
void pmpi_init_(ftmpi_fint *ierror) { init(PMPI_Init, ierror); }

/* MPI_ADDRESS(LOCATION, ADDRESS, IERROR): the distance from the origin that
 * MPI_BOTTOM stands for (support.h says why). */
static void address(int (*fn)(const void *, MPI_Aint *), void *location, ftmpi_fint *addr, ftmpi_fint *ierror) {
  MPI_Aint a = 0;
  int rc = fn(location, &a);
  /* C's MPI_BOTTOM is 0: a C address is the pointer's value. */
  if (rc == MPI_SUCCESS) rc = ftmpi_f_aint_out(a - ftmpi_f_address_origin(location), addr, "MPI_Address");
  *ierror = rc;
}
void mpi_address_(void *location, ftmpi_fint *addr, ftmpi_fint *ierror) {
  address(MPI_Address, location, addr, ierror);
}
void pmpi_address_(void *location, ftmpi_fint *addr, ftmpi_fint *ierror) {
  address(PMPI_Address, location, addr, ierror);
}

/* MPI_BUFFER_DETACH(BUFFER, SIZE, IERROR): Fortran cannot receive the
 * buffer's address; the buffer it attached is its own anyway. */
static void buffer_detach(int (*fn)(void *, int *), ftmpi_fint *size, ftmpi_fint *ierror) {
  void *buffer = NULL;
  *ierror = fn(&buffer, size);
}
void mpi_buffer_detach_(void *buffer, ftmpi_fint *size, ftmpi_fint *ierror) {
  (void)buffer;
  buffer_detach(MPI_Buffer_detach, size, ierror);
}
void pmpi_buffer_detach_(void *buffer, ftmpi_fint *size, ftmpi_fint *ierror) {
  (void)buffer;
  buffer_detach(PMPI_Buffer_detach, size, ierror);
}

/* Attributes: a Fortran attribute value is an INTEGER, kept in the C void *
 * itself. The predefined keys (all below 16, mpi.h) hold a pointer to an int
 * in C; Fortran reads the int. */
static int predefined_key(int keyval) { return keyval >= 0 && keyval < 16; }

static void attr_put(int (*fn)(MPI_Comm, int, void *), ftmpi_fint *comm, ftmpi_fint *keyval, ftmpi_fint *value,
                     ftmpi_fint *ierror) {
  *ierror = fn(*comm, *keyval, (void *)(intptr_t)*value);
}
void mpi_attr_put_(ftmpi_fint *comm, ftmpi_fint *keyval, ftmpi_fint *value, ftmpi_fint *ierror) {
  attr_put(MPI_Attr_put, comm, keyval, value, ierror);
}
void pmpi_attr_put_(ftmpi_fint *comm, ftmpi_fint *keyval, ftmpi_fint *value, ftmpi_fint *ierror) {
  attr_put(PMPI_Attr_put, comm, keyval, value, ierror);
}

static void attr_get(int (*fn)(MPI_Comm, int, void *, int *), ftmpi_fint *comm, ftmpi_fint *keyval,
                     ftmpi_fint *value, ftmpi_fint *flag, ftmpi_fint *ierror) {
  void *v = NULL;
  int found = 0;
  int rc = fn(*comm, *keyval, &v, &found);
  if (rc == MPI_SUCCESS) {
    *flag = found != 0;
    if (found) *value = predefined_key(*keyval) ? *(int *)v : (ftmpi_fint)(intptr_t)v;
  }
  *ierror = rc;
}
void mpi_attr_get_(ftmpi_fint *comm, ftmpi_fint *keyval, ftmpi_fint *value, ftmpi_fint *flag, ftmpi_fint *ierror) {
  attr_get(MPI_Attr_get, comm, keyval, value, flag, ierror);
}
void pmpi_attr_get_(ftmpi_fint *comm, ftmpi_fint *keyval, ftmpi_fint *value, ftmpi_fint *flag, ftmpi_fint *ierror) {
  attr_get(PMPI_Attr_get, comm, keyval, value, flag, ierror);
}

/* Keyvals with Fortran callbacks:
 *   SUBROUTINE COPY_FN(OLDCOMM, KEYVAL, EXTRA_STATE, ATTRIBUTE_VAL_IN,
 *                      ATTRIBUTE_VAL_OUT, FLAG, IERR)
 *   SUBROUTINE DELETE_FN(COMM, KEYVAL, ATTRIBUTE_VAL, EXTRA_STATE, IERR)
 * The C keyval gets the two trampolines below, which find the Fortran
 * procedures and EXTRA_STATE by keyval in this table (MPI-1 keyvals are
 * never reused while attributes may still call back, so entries stay). */
typedef void FortranCopy(ftmpi_fint *, ftmpi_fint *, ftmpi_fint *, ftmpi_fint *, ftmpi_fint *, ftmpi_fint *,
                         ftmpi_fint *);
typedef void FortranDelete(ftmpi_fint *, ftmpi_fint *, ftmpi_fint *, ftmpi_fint *, ftmpi_fint *);
struct FortranKeyval {
  FortranCopy *copy;
  FortranDelete *del;
  ftmpi_fint extra_state;
};
static struct FortranKeyval *fortran_keyvals;
static int fortran_keyvals_size;

static const struct FortranKeyval *find_keyval(int keyval) {
  if (keyval < 0 || keyval >= fortran_keyvals_size || !fortran_keyvals[keyval].copy) return NULL;
  return &fortran_keyvals[keyval];
}

static int copy_trampoline(MPI_Comm oldcomm, int keyval, void *extra, void *in, void *out, int *flag) {
  (void)extra;
  const struct FortranKeyval *k = find_keyval(keyval);
  if (!k) return MPI_ERR_INTERN;
  ftmpi_fint comm = oldcomm, key = keyval, extra_state = k->extra_state;
  ftmpi_fint value_in = (ftmpi_fint)(intptr_t)in, value_out = 0, fflag = 0, ierr = MPI_SUCCESS;
  k->copy(&comm, &key, &extra_state, &value_in, &value_out, &fflag, &ierr);
  *flag = fflag != 0;
  if (*flag) *(void **)out = (void *)(intptr_t)value_out;
  return ierr;
}

static int delete_trampoline(MPI_Comm comm, int keyval, void *value, void *extra) {
  (void)extra;
  const struct FortranKeyval *k = find_keyval(keyval);
  if (!k) return MPI_ERR_INTERN;
  ftmpi_fint c = comm, key = keyval, v = (ftmpi_fint)(intptr_t)value, extra_state = k->extra_state;
  ftmpi_fint ierr = MPI_SUCCESS;
  k->del(&c, &key, &v, &extra_state, &ierr);
  return ierr;
}

static void keyval_create(int (*fn)(MPI_Copy_function *, MPI_Delete_function *, int *, void *),
                          FortranCopy *copy, FortranDelete *del, ftmpi_fint *keyval, ftmpi_fint *extra_state,
                          ftmpi_fint *ierror) {
  int k = MPI_KEYVAL_INVALID;
  int rc = fn(copy_trampoline, delete_trampoline, &k, NULL);
  if (rc == MPI_SUCCESS) {
    if (k >= fortran_keyvals_size) {
      int size = k + 16;
      struct FortranKeyval *grown = realloc(fortran_keyvals, (size_t)size * sizeof *grown);
      if (!grown) {
        *ierror = ftmpi_f_nomem("MPI_Keyval_create");
        return;
      }
      for (int i = fortran_keyvals_size; i < size; ++i) grown[i] = (struct FortranKeyval){NULL, NULL, 0};
      fortran_keyvals = grown;
      fortran_keyvals_size = size;
    }
    fortran_keyvals[k] = (struct FortranKeyval){copy, del, *extra_state};
    *keyval = k;
  }
  *ierror = rc;
}
void mpi_keyval_create_(FortranCopy *copy, FortranDelete *del, ftmpi_fint *keyval, ftmpi_fint *extra_state,
                        ftmpi_fint *ierror) {
  keyval_create(MPI_Keyval_create, copy, del, keyval, extra_state, ierror);
}
void pmpi_keyval_create_(FortranCopy *copy, FortranDelete *del, ftmpi_fint *keyval, ftmpi_fint *extra_state,
                         ftmpi_fint *ierror) {
  keyval_create(PMPI_Keyval_create, copy, del, keyval, extra_state, ierror);
}

/* The predefined Fortran callbacks (EXTERNAL in mpif.h). */
void mpi_null_copy_fn_(ftmpi_fint *oldcomm, ftmpi_fint *keyval, ftmpi_fint *extra_state, ftmpi_fint *value_in,
                       ftmpi_fint *value_out, ftmpi_fint *flag, ftmpi_fint *ierr) {
  (void)oldcomm, (void)keyval, (void)extra_state, (void)value_in, (void)value_out;
  *flag = 0;
  *ierr = MPI_SUCCESS;
}
void mpi_dup_fn_(ftmpi_fint *oldcomm, ftmpi_fint *keyval, ftmpi_fint *extra_state, ftmpi_fint *value_in,
                 ftmpi_fint *value_out, ftmpi_fint *flag, ftmpi_fint *ierr) {
  (void)oldcomm, (void)keyval, (void)extra_state;
  *value_out = *value_in;
  *flag = 1;
  *ierr = MPI_SUCCESS;
}
void mpi_null_delete_fn_(ftmpi_fint *comm, ftmpi_fint *keyval, ftmpi_fint *value, ftmpi_fint *extra_state,
                         ftmpi_fint *ierr) {
  (void)comm, (void)keyval, (void)value, (void)extra_state;
  *ierr = MPI_SUCCESS;
}

/* MPI_PCONTROL(LEVEL): no IERROR in the Fortran binding. */
void mpi_pcontrol_(ftmpi_fint *level) { MPI_Pcontrol(*level); }
void pmpi_pcontrol_(ftmpi_fint *level) { PMPI_Pcontrol(*level); }

/* DOUBLE PRECISION functions. */
double mpi_wtime_(void) { return MPI_Wtime(); }
double pmpi_wtime_(void) { return PMPI_Wtime(); }
double mpi_wtick_(void) { return MPI_Wtick(); }
double pmpi_wtick_(void) { return PMPI_Wtick(); }
