/* The numerical part of cg_checksum: a Jacobi-preconditioned conjugate
 * gradient for the 7-point Laplacian on an n x n x n grid (zero Dirichlet
 * boundary, right-hand side 1), rows distributed over the ranks of a
 * communicator in slabs of whole z-planes. Nothing here knows about
 * failures: every function that communicates returns the MPI error code of
 * the first call that failed, and the caller decides what to do.
 *
 * Dot products are reproducible: each rank puts its partial sum in its own
 * slot of a vector of `parts` doubles, MPI_Allreduce(MPI_SUM) adds zeros to
 * it (exact, in any order), and every rank adds the slots in rank order.
 * So the result does not depend on the reduction algorithm, and the
 * one-process reference (cg_reference) does bit for bit the same
 * arithmetic as a run on `parts` ranks: the check can be exact. */
#ifndef CG_POISSON_H
#define CG_POISSON_H
#include <mpi.h>

typedef struct {
  int n;          /* grid points per side */
  int part;       /* my rank; parts: how many slabs the grid is cut in */
  int parts;
  int z0, nz;     /* my planes: z0 .. z0+nz-1 */
  long plane;     /* n*n */
  long nloc;      /* my unknowns: nz*plane */
  int down, up;   /* neighbours owning planes z0-1 and z0+nz, or MPI_PROC_NULL */
} Slab;

/* The CG state; x, r and p are what a checkpoint must hold, with it, rho, rr, bb. */
typedef struct {
  double *x, *r, *z, *q;
  double* p_ext; /* p with one ghost plane below and above: p = p_ext + plane */
  int it;        /* iterations done */
  double rho;    /* r.z */
  double rr;     /* r.r */
  double bb;     /* b.b, for the relative residual */
} CgState;

/* Planes [z0, z0+nz) of `rank` among `size` (as even as possible). */
void slab_init(Slab* s, int n, int rank, int size);
/* The largest nloc over the ranks: checkpoint blocks all have this size. */
long slab_max_nloc(int n, int size);

void cg_alloc(CgState* st, const Slab* s);
void cg_free(CgState* st);
/* x = 0, r = b, p = z = D^-1 r, and the two dot products: a fresh start. */
int cg_start(CgState* st, const Slab* s, MPI_Comm comm);
/* One PCG iteration (one halo exchange, two MPI_Allreduce). */
int cg_iterate(CgState* st, const Slab* s, MPI_Comm comm);
double cg_residual(const CgState* st); /* ||r|| / ||b|| */

/* The failure-free reference: the same solver on one process over the whole
 * grid, with dot products summed per slab of a `parts`-rank run (so it is
 * that run's arithmetic exactly). Fills x (n^3 values), returns the
 * iteration count. */
int cg_reference(int n, int parts, double tol, int maxit, double* x);

#endif
