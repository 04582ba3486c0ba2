/* Ranks pair up (0-1, 2-3, ...); for every size from 0 B to 4 MiB (powers of
 * two and their neighbours, which straddle the eager/rendezvous limits) the
 * even rank sends a pattern, the odd rank checks every byte, status and count,
 * and echoes a transformed pattern back, which is checked in turn. The
 * receive buffer is one byte longer than the message and its guard byte must
 * survive. */
#include <stdlib.h>
#include <string.h>

#include "check.h"

static unsigned char pattern(size_t i, size_t n, int salt) { return (unsigned char)(i * 131u + n * 7u + (unsigned)salt); }

int main(int argc, char** argv) {
  int rank, size;
  CHECK_MPI(MPI_Init(&argc, &argv));
  CHECK_MPI(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
  CHECK_MPI(MPI_Comm_size(MPI_COMM_WORLD, &size));
  const size_t max = 4u << 20;
  unsigned char* sbuf = malloc(max + 1);
  unsigned char* rbuf = malloc(max + 1);
  size_t sizes[128];
  int ns = 0;
  sizes[ns++] = 0;
  for (size_t p = 1; p <= max; p <<= 1) {
    if (p > 2) sizes[ns++] = p - 1;
    sizes[ns++] = p;
    if (p < max) sizes[ns++] = p + 1;
  }
  int partner = rank ^ 1;
  int active = partner < size;
  for (int k = 0; k < ns && active; ++k) {
    size_t n = sizes[k];
    MPI_Status st;
    int count;
    if (rank % 2 == 0) {
      for (size_t i = 0; i < n; ++i) sbuf[i] = pattern(i, n, rank);
      CHECK_MPI(MPI_Send(sbuf, (int)n, MPI_BYTE, partner, k, MPI_COMM_WORLD));
      memset(rbuf, 0xEE, max + 1);
      CHECK_MPI(MPI_Recv(rbuf, (int)n + 1, MPI_BYTE, partner, k, MPI_COMM_WORLD, &st));
      CHECK_MPI(MPI_Get_count(&st, MPI_BYTE, &count));
      CHECK(count == (int)n && st.MPI_SOURCE == partner && st.MPI_TAG == k, "size %zu: count %d src %d tag %d", n,
            count, st.MPI_SOURCE, st.MPI_TAG);
      for (size_t i = 0; i < n; ++i)
        CHECK(rbuf[i] == (unsigned char)(pattern(i, n, rank) ^ 0x5a), "size %zu: echo byte %zu is %u", n, i, rbuf[i]);
      CHECK(rbuf[n] == 0xEE, "size %zu: guard byte overwritten", n);
    } else {
      memset(rbuf, 0xEE, max + 1);
      CHECK_MPI(MPI_Recv(rbuf, (int)n + 1, MPI_BYTE, partner, k, MPI_COMM_WORLD, &st));
      CHECK_MPI(MPI_Get_count(&st, MPI_BYTE, &count));
      CHECK(count == (int)n && st.MPI_SOURCE == partner && st.MPI_TAG == k, "size %zu: count %d", n, count);
      for (size_t i = 0; i < n; ++i)
        CHECK(rbuf[i] == pattern(i, n, partner), "size %zu: byte %zu is %u, expected %u", n, i, rbuf[i],
              pattern(i, n, partner));
      CHECK(rbuf[n] == 0xEE, "size %zu: guard byte overwritten", n);
      for (size_t i = 0; i < n; ++i) rbuf[i] ^= 0x5a;
      CHECK_MPI(MPI_Send(rbuf, (int)n, MPI_BYTE, partner, k, MPI_COMM_WORLD));
    }
  }
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  if (rank == 0) printf("pingpong: %d sizes up to %zu bytes checked on %d ranks\n", ns, max, size);
  free(sbuf);
  free(rbuf);
  CHECK_MPI(MPI_Finalize());
  return 0;
}
