/* Pathological failure (FT-MPI spec §3.1): every process dies before a
 * recovery could start. The job must end, non-zero, with a clear message. */
#include <signal.h>

#include "check.h"

int main(int argc, char** argv) {
  CHECK_MPI(MPI_Init(&argc, &argv));
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  raise(SIGKILL);
  return 0;
}
