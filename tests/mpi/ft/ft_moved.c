/* Ranks moved to another host (REBUILD after a lost host) join that host's
 * shared memory (issue 14). Run with --host A:2,B:2 (np 4): rank 2 kills its
 * daemon, so host B is lost and ranks 2 and 3 are restarted on host A, in
 * the spare indices of A's segment. Then every pair exchanges 8 B, 64 KiB
 * and 4 MiB messages whose contents are checked, and each moved rank checks
 * that it maps the host's segment. Rank 0 prints "ft_moved: ok". */
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"

static int maps_segment(void) {
  FILE* f = fopen("/proc/self/maps", "r");
  char line[512];
  int found = 0;
  while (f && fgets(line, sizeof line, f)) found |= strstr(line, "ftmpi-shm") != NULL;
  if (f) fclose(f);
  return found;
}

int main(int argc, char** argv) {
  int rc = MPI_Init(&argc, &argv), rank, size;
  const int restarted = rc == MPI_INIT_RESTARTED_NODE;
  CHECK(rc == MPI_SUCCESS || restarted, "MPI_Init returned %d", rc);
  CHECK_MPI(MPI_Errhandler_set(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  CHECK(size == 4, "needs 4 ranks");
  if (!restarted) {
    /* Rank 2 kills its daemon (host B is lost) after the first barrier;
     * everybody goes on until a barrier fails. */
    for (int first = 1; MPI_Barrier(MPI_COMM_WORLD) == MPI_SUCCESS; first = 0) {
      if (rank == 2 && first) kill(getppid(), SIGKILL);
      usleep(10000);
    }
    MPI_Comm unused;
    while ((rc = MPI_Comm_dup(MPI_COMM_WORLD, &unused)) != MPI_SUCCESS)
      CHECK(cls(rc) == MPI_ERR_OTHER, "recovery failed: class %d", cls(rc));
  } else {
    CHECK(rank == 2 || rank == 3, "rank %d restarted", rank);
    CHECK(maps_segment(), "moved rank %d does not map the host's shared memory", rank);
  }
  const int sizes[] = {8, 64 << 10, 4 << 20};
  char* out = malloc(4 << 20);
  char* in = malloc(4 << 20);
  for (int k = 0; k < 3; ++k) {
    for (int peer = 0; peer < size; ++peer) {
      if (peer == rank) continue;
      for (int i = 0; i < sizes[k]; ++i) out[i] = (char)(rank * 31 + peer * 7 + i + k);
      CHECK_MPI(MPI_Sendrecv(out, sizes[k], MPI_CHAR, peer, k, in, sizes[k], MPI_CHAR, peer, k, MPI_COMM_WORLD,
                             MPI_STATUS_IGNORE));
      for (int i = 0; i < sizes[k]; ++i)
        CHECK(in[i] == (char)(peer * 31 + rank * 7 + i + k), "%d bytes from %d: byte %d wrong", sizes[k], peer, i);
    }
  }
  free(out);
  free(in);
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  if (rank == 0) printf("ft_moved: ok\n");
  MPI_Finalize();
  return 0;
}
