/* Rank 0 reads lines from stdin and sends each to every rank, which prints it
 * with its rank; stderr is forwarded too. */
#include <string.h>

#include "check.h"

int main(int argc, char** argv) {
  int rank, size;
  char line[256];
  CHECK_MPI(MPI_Init(&argc, &argv));
  CHECK_MPI(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
  CHECK_MPI(MPI_Comm_size(MPI_COMM_WORLD, &size));
  for (;;) {
    int len = 0;
    if (rank == 0) {
      if (fgets(line, sizeof line, stdin)) len = (int)strlen(line) + 1;
      for (int p = 1; p < size; ++p) CHECK_MPI(MPI_Send(line, len, MPI_CHAR, p, 0, MPI_COMM_WORLD));
    } else {
      MPI_Status st;
      CHECK_MPI(MPI_Recv(line, sizeof line, MPI_CHAR, 0, 0, MPI_COMM_WORLD, &st));
      CHECK_MPI(MPI_Get_count(&st, MPI_CHAR, &len));
    }
    if (len == 0) break;
    line[strcspn(line, "\n")] = '\0';
    printf("rank %d got '%s'\n", rank, line);
  }
  fprintf(stderr, "rank %d done\n", rank);
  CHECK_MPI(MPI_Finalize());
  return 0;
}
