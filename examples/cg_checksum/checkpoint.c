#include "checkpoint.h"

#include <isa-l/erasure_code.h>
#include <stdlib.h>
#include <string.h>

int ckpt_init(Checkpoint* ck, int k, int m, int me, size_t len) {
  if (k < 1 || m < 0 || k + m > 256 || len == 0 || len > (size_t)1 << 30) return -1;
  memset(ck, 0, sizeof *ck);
  ck->k = k;
  ck->m = m;
  ck->me = me;
  ck->len = (int)((len + 7) / 8 * 8);
  ck->next = 0;
  ck->held[0] = ck->held[1] = -1;
  for (int b = 0; b < 2; b++) ck->buf[b] = calloc((size_t)ck->len, 1);
  ck->zero = calloc((size_t)ck->len, 1);
  ck->products = calloc((size_t)(m > 0 ? m : 1), sizeof *ck->products);
  for (int j = 0; j < m; j++) ck->products[j] = malloc((size_t)ck->len);
  /* Cauchy rows: every k x k submatrix of the (k+m) x k matrix is invertible,
   * so any k surviving blocks decode. */
  ck->matrix = malloc((size_t)(k + m) * k);
  gf_gen_cauchy1_matrix(ck->matrix, k + m, k);
  ck->enc_tables = malloc((size_t)32 * k * (m > 0 ? m : 1));
  if (m > 0) ec_init_tables(k, m, ck->matrix + (size_t)k * k, ck->enc_tables);
  return 0;
}

void ckpt_free(Checkpoint* ck) {
  for (int b = 0; b < 2; b++) free(ck->buf[b]);
  free(ck->zero);
  for (int j = 0; j < ck->m; j++) free(ck->products[j]);
  free(ck->products);
  free(ck->matrix);
  free(ck->enc_tables);
}

static int is_data(const Checkpoint* ck, int rank) { return rank < ck->k; }

unsigned char* ckpt_begin(Checkpoint* ck) {
  ck->held[ck->next % 2] = -1;
  return ck->buf[ck->next % 2];
}

/* XOR every process's contribution into `target`'s `into` (MPI_BXOR over
 * bytes is addition in GF(2^8)). */
static int xor_into(const Checkpoint* ck, const unsigned char* mine, unsigned char* into, int target) {
  return MPI_Reduce((void*)mine, ck->me == target ? into : NULL, ck->len, MPI_BYTE, MPI_BXOR, target, MPI_COMM_WORLD);
}

int ckpt_encode(Checkpoint* ck) {
  const int v = ck->next, b = v % 2;
  int rc;
  if (is_data(ck, ck->me)) {
    /* products[j] = c(j, me) * my block: my share of parity block j. */
    for (int j = 0; j < ck->m; j++) memset(ck->products[j], 0, (size_t)ck->len);
    if (ck->m > 0) ec_encode_data_update(ck->len, ck->k, ck->m, ck->me, ck->enc_tables, ck->buf[b], ck->products);
  }
  for (int j = 0; j < ck->m; j++) {
    const unsigned char* mine = is_data(ck, ck->me) ? ck->products[j] : ck->zero;
    if ((rc = xor_into(ck, mine, ck->buf[b], ck->k + j)) != MPI_SUCCESS) return rc;
  }
  ck->held[b] = v;
  ck->next = v + 1;
  return MPI_Barrier(MPI_COMM_WORLD);
}

static int holds(const int* held, int rank, int v) { return held[2 * rank] == v || held[2 * rank + 1] == v; }
static int holds_any(const int* held, int rank) { return held[2 * rank] >= 0 || held[2 * rank + 1] >= 0; }

/* The newest version held by every process that holds any, or -1. */
static int common_version(const int* held, int np) {
  int best = -1;
  for (int c = 0; c < 2 * np; c++) {
    const int v = held[c];
    if (v <= best) continue;
    int everywhere = 1;
    for (int r = 0; r < np && everywhere; r++) everywhere = !holds_any(held, r) || holds(held, r, v);
    if (everywhere) best = v;
  }
  return best;
}

/* Rebuild the data blocks of `lost` (nlost of them) at version v: choose k
 * sources (the other data ranks, then checksum ranks holding v), invert
 * their rows of the encoding matrix, and let every source add its products
 * to each lost rank's block. */
static int decode(Checkpoint* ck, const int* held, int v, const int* lost, int nlost) {
  const int k = ck->k, np = ck->k + ck->m;
  int src[256], nsrc = 0, my_src = -1;
  for (int r = 0; r < np && nsrc < k; r++) {
    if (!holds(held, r, v)) continue;
    if (r == ck->me) my_src = nsrc;
    src[nsrc++] = r;
  }
  unsigned char* rows = malloc((size_t)k * k);
  unsigned char* inverse = malloc((size_t)k * k);
  unsigned char* dec_rows = malloc((size_t)nlost * k);
  unsigned char* tables = malloc((size_t)32 * k * nlost);
  for (int s = 0; s < k; s++) memcpy(rows + (size_t)s * k, ck->matrix + (size_t)src[s] * k, (size_t)k);
  if (gf_invert_matrix(rows, inverse, k) != 0) abort(); /* cannot happen with Cauchy rows */
  /* Block of data rank d = sum over sources s of inverse[d][s] * block(s). */
  for (int l = 0; l < nlost; l++) memcpy(dec_rows + (size_t)l * k, inverse + (size_t)lost[l] * k, (size_t)k);
  ec_init_tables(k, nlost, dec_rows, tables);
  if (my_src >= 0) {
    for (int l = 0; l < nlost; l++) memset(ck->products[l], 0, (size_t)ck->len);
    ec_encode_data_update(ck->len, k, nlost, my_src, tables, ck->buf[v % 2], ck->products);
  }
  int rc = MPI_SUCCESS;
  for (int l = 0; l < nlost && rc == MPI_SUCCESS; l++)
    rc = xor_into(ck, my_src >= 0 ? ck->products[l] : ck->zero, ck->buf[v % 2], lost[l]);
  free(rows);
  free(inverse);
  free(dec_rows);
  free(tables);
  return rc;
}

int ckpt_restore(Checkpoint* ck, RestoreReport* report) {
  const int np = ck->k + ck->m;
  int* held = malloc(sizeof(int) * 2 * (size_t)np);
  int rc = MPI_Allgather(ck->held, 2, MPI_INT, held, 2, MPI_INT, MPI_COMM_WORLD);
  if (rc != MPI_SUCCESS) {
    free(held);
    return rc;
  }
  memset(report, 0, sizeof *report);
  int v = common_version(held, np);
  int lost_data[256], nlost_data = 0, parity_left = 0;
  for (int r = 0; r < np; r++) {
    if (!holds_any(held, r) && report->nlost < 64) report->lost[report->nlost++] = r;
    if (is_data(ck, r) && !holds(held, r, v)) lost_data[nlost_data++] = r;
    if (!is_data(ck, r) && holds(held, r, v)) parity_left++;
  }
  if (v >= 0 && nlost_data > parity_left) {
    report->too_many = 1;
    v = -1;
  }
  if (v >= 0 && nlost_data > 0) {
    rc = decode(ck, held, v, lost_data, nlost_data);
    if (rc != MPI_SUCCESS) {
      free(held);
      return rc;
    }
    for (int l = 0; l < nlost_data; l++)
      if (lost_data[l] == ck->me) ck->held[v % 2] = v;
    report->rebuilt = nlost_data;
  }
  free(held);
  /* From here on everybody holds v and nothing else: later versions are
   * abandoned (they will be made again, with other contents). */
  for (int b = 0; b < 2; b++)
    if (ck->held[b] != v) ck->held[b] = -1;
  ck->next = v + 1;
  report->version = v;
  return MPI_SUCCESS;
}

const unsigned char* ckpt_restored(const Checkpoint* ck, const RestoreReport* report) {
  return ck->buf[report->version % 2];
}
