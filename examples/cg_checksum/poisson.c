#include "poisson.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define TAG_HALO_DOWN 10
#define TAG_HALO_UP 11

void slab_init(Slab* s, int n, int rank, int size) {
  const int base = n / size, extra = n % size;
  s->n = n;
  s->part = rank;
  s->parts = size;
  s->nz = base + (rank < extra);
  s->z0 = rank * base + (rank < extra ? rank : extra);
  s->plane = (long)n * n;
  s->nloc = s->nz * s->plane;
  s->down = rank > 0 ? rank - 1 : MPI_PROC_NULL;
  s->up = rank < size - 1 ? rank + 1 : MPI_PROC_NULL;
}

long slab_max_nloc(int n, int size) { return (long)(n / size + (n % size != 0)) * n * n; }

void cg_alloc(CgState* st, const Slab* s) {
  const size_t n = (size_t)s->nloc;
  st->x = calloc(n, sizeof(double));
  st->r = calloc(n, sizeof(double));
  st->z = calloc(n, sizeof(double));
  st->q = calloc(n, sizeof(double));
  /* The ghost planes stay zero where there is no neighbour: the boundary. */
  st->p_ext = calloc(n + 2 * (size_t)s->plane, sizeof(double));
  if (!st->x || !st->r || !st->z || !st->q || !st->p_ext) abort();
}

void cg_free(CgState* st) {
  free(st->x);
  free(st->r);
  free(st->z);
  free(st->q);
  free(st->p_ext);
}

/* Jacobi: z = D^-1 r; the diagonal of the 7-point Laplacian is 6. */
static void precondition(const Slab* s, const double* r, double* z) {
  for (long i = 0; i < s->nloc; i++) z[i] = r[i] / 6.0;
}

/* Fill my ghost planes of p with my neighbours' boundary planes. */
static int halo_exchange(const Slab* s, double* p_ext, MPI_Comm comm) {
  double* first = p_ext + s->plane;
  double* last = p_ext + s->nz * s->plane;
  double* ghost_below = p_ext;
  double* ghost_above = p_ext + (s->nz + 1) * s->plane;
  const int count = (int)s->plane;
  if (s->down == MPI_PROC_NULL && s->up == MPI_PROC_NULL) return MPI_SUCCESS; /* one slab (the reference) */
  int rc = MPI_Sendrecv(first, count, MPI_DOUBLE, s->down, TAG_HALO_DOWN, ghost_above, count, MPI_DOUBLE, s->up,
                        TAG_HALO_DOWN, comm, MPI_STATUS_IGNORE);
  if (rc != MPI_SUCCESS) return rc;
  return MPI_Sendrecv(last, count, MPI_DOUBLE, s->up, TAG_HALO_UP, ghost_below, count, MPI_DOUBLE, s->down,
                      TAG_HALO_UP, comm, MPI_STATUS_IGNORE);
}

/* q = A p for my rows; p_ext holds the ghost planes. */
static void apply_laplacian(const Slab* s, const double* p_ext, double* q) {
  const int n = s->n;
  const long plane = s->plane;
  const double* p = p_ext + plane;
  for (int z = 0; z < s->nz; z++)
    for (int y = 0; y < n; y++)
      for (int x = 0; x < n; x++) {
        const long i = z * plane + (long)y * n + x;
        double v = 6.0 * p[i] - p[i - plane] - p[i + plane];
        if (x > 0) v -= p[i - 1];
        if (x < n - 1) v -= p[i + 1];
        if (y > 0) v -= p[i - n];
        if (y < n - 1) v -= p[i + n];
        q[i] = v;
      }
}

/* out[j] = sum of a[j][i] * b[j][i] over the whole grid, for j < ndots (at
 * most 2), reproducibly (see poisson.h): one partial sum per part. A rank
 * owns its part; the reference (part -1) owns them all. */
static int dot_products(const Slab* s, int ndots, const double* const a[], const double* const b[], double out[],
                        MPI_Comm comm) {
  double partial[2 * 256] = {0.0}, sum[2 * 256];
  const int first = s->part >= 0 ? s->part : 0, last = s->part >= 0 ? s->part : s->parts - 1;
  long offset = 0;
  for (int part = first; part <= last; part++) {
    Slab mine;
    slab_init(&mine, s->n, part, s->parts);
    for (int j = 0; j < ndots; j++) {
      double acc = 0.0;
      for (long i = offset; i < offset + mine.nloc; i++) acc += a[j][i] * b[j][i];
      partial[part * ndots + j] = acc;
    }
    offset += mine.nloc;
  }
  if (comm == MPI_COMM_NULL) { /* the reference: every part is here */
    memcpy(sum, partial, sizeof(double) * (size_t)(ndots * s->parts));
  } else {
    const int rc = MPI_Allreduce(partial, sum, ndots * s->parts, MPI_DOUBLE, MPI_SUM, comm);
    if (rc != MPI_SUCCESS) return rc;
  }
  for (int j = 0; j < ndots; j++) {
    out[j] = 0.0;
    for (int part = 0; part < s->parts; part++) out[j] += sum[part * ndots + j];
  }
  return MPI_SUCCESS;
}

int cg_start(CgState* st, const Slab* s, MPI_Comm comm) {
  const double h = 1.0 / (s->n + 1);
  double* p = st->p_ext + s->plane;
  memset(st->x, 0, (size_t)s->nloc * sizeof(double));
  for (long i = 0; i < s->nloc; i++) st->r[i] = h * h; /* b: -laplace(u) = 1 */
  precondition(s, st->r, st->z);
  memcpy(p, st->z, (size_t)s->nloc * sizeof(double));
  const double* a[2] = {st->r, st->r};
  const double* b[2] = {st->z, st->r};
  double dots[2];
  const int rc = dot_products(s, 2, a, b, dots, comm);
  if (rc != MPI_SUCCESS) return rc;
  st->rho = dots[0];
  st->rr = st->bb = dots[1];
  st->it = 0;
  return MPI_SUCCESS;
}

int cg_iterate(CgState* st, const Slab* s, MPI_Comm comm) {
  double* p = st->p_ext + s->plane;
  int rc = halo_exchange(s, st->p_ext, comm);
  if (rc != MPI_SUCCESS) return rc;
  apply_laplacian(s, st->p_ext, st->q);
  const double* pq_a[1] = {p};
  const double* pq_b[1] = {st->q};
  double pq;
  if ((rc = dot_products(s, 1, pq_a, pq_b, &pq, comm)) != MPI_SUCCESS) return rc;
  const double alpha = st->rho / pq;
  for (long i = 0; i < s->nloc; i++) {
    st->x[i] += alpha * p[i];
    st->r[i] -= alpha * st->q[i];
  }
  precondition(s, st->r, st->z);
  const double* a[2] = {st->r, st->r};
  const double* b[2] = {st->z, st->r};
  double dots[2];
  if ((rc = dot_products(s, 2, a, b, dots, comm)) != MPI_SUCCESS) return rc;
  const double beta = dots[0] / st->rho;
  for (long i = 0; i < s->nloc; i++) p[i] = st->z[i] + beta * p[i];
  st->rho = dots[0];
  st->rr = dots[1];
  st->it++;
  return MPI_SUCCESS;
}

double cg_residual(const CgState* st) { return sqrt(st->rr / st->bb); }

int cg_reference(int n, int parts, double tol, int maxit, double* x) {
  Slab whole;
  CgState st;
  slab_init(&whole, n, 0, 1);
  whole.part = -1; /* owns every part */
  whole.parts = parts;
  cg_alloc(&st, &whole);
  /* No communicator: no MPI call at all, so a failure elsewhere in the job
   * (which makes every communication call fail until the recovery) cannot
   * interrupt the reference. The halo exchange has no neighbours either. */
  cg_start(&st, &whole, MPI_COMM_NULL);
  while (cg_residual(&st) > tol && st.it < maxit) cg_iterate(&st, &whole, MPI_COMM_NULL);
  memcpy(x, st.x, (size_t)whole.nloc * sizeof(double));
  const int iterations = st.it;
  cg_free(&st);
  return iterations;
}
