/* With MPI_ERRORS_RETURN, every bad argument gives the right error class,
 * nothing hangs, and the job goes on. A truncated receive reports
 * MPI_ERR_TRUNCATE and does not write past the buffer. */
#include <string.h>

#include "check.h"

#define EXPECT_CLASS(call, want)                                                             \
  do {                                                                                       \
    int rc = (call);                                                                         \
    CHECK(cls(rc) == (want), "%s returned class %d, expected %s", #call, cls(rc), #want);    \
  } while (0)

int main(int argc, char** argv) {
  int rank, size, v = 1, buf[16];
  MPI_Status st;
  MPI_Request req;
  CHECK_MPI(MPI_Init(&argc, &argv));
  CHECK_MPI(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
  CHECK_MPI(MPI_Comm_size(MPI_COMM_WORLD, &size));
  CHECK_MPI(MPI_Errhandler_set(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
  MPI_Errhandler eh;
  CHECK_MPI(MPI_Errhandler_get(MPI_COMM_WORLD, &eh));
  CHECK(eh == MPI_ERRORS_RETURN, "errhandler_get");

  EXPECT_CLASS(MPI_Send(&v, 1, MPI_INT, size, 0, MPI_COMM_WORLD), MPI_ERR_RANK);
  EXPECT_CLASS(MPI_Send(&v, 1, MPI_INT, -5, 0, MPI_COMM_WORLD), MPI_ERR_RANK);
  EXPECT_CLASS(MPI_Send(&v, 1, MPI_INT, MPI_ANY_SOURCE, 0, MPI_COMM_WORLD), MPI_ERR_RANK);
  EXPECT_CLASS(MPI_Recv(&v, 1, MPI_INT, size + 3, 0, MPI_COMM_WORLD, &st), MPI_ERR_RANK);
  EXPECT_CLASS(MPI_Send(&v, 1, MPI_INT, 0, -1, MPI_COMM_WORLD), MPI_ERR_TAG);
  EXPECT_CLASS(MPI_Recv(&v, 1, MPI_INT, 0, -7, MPI_COMM_WORLD, &st), MPI_ERR_TAG);
  EXPECT_CLASS(MPI_Send(&v, -1, MPI_INT, 0, 0, MPI_COMM_WORLD), MPI_ERR_COUNT);
  EXPECT_CLASS(MPI_Irecv(&v, -3, MPI_INT, 0, 0, MPI_COMM_WORLD, &req), MPI_ERR_COUNT);
  EXPECT_CLASS(MPI_Send(&v, 1, MPI_DATATYPE_NULL, 0, 0, MPI_COMM_WORLD), MPI_ERR_TYPE);
  EXPECT_CLASS(MPI_Send(&v, 1, (MPI_Datatype)MPI_COMM_WORLD, 0, 0, MPI_COMM_WORLD), MPI_ERR_TYPE);
  EXPECT_CLASS(MPI_Send(NULL, 4, MPI_INT, 0, 0, MPI_COMM_WORLD), MPI_ERR_BUFFER);
  EXPECT_CLASS(MPI_Send(&v, 1, MPI_INT, 0, 0, MPI_COMM_NULL), MPI_ERR_COMM);
  EXPECT_CLASS(MPI_Comm_rank((MPI_Comm)MPI_INT, &v), MPI_ERR_COMM);
  MPI_Request bogus = (MPI_Request)0x18000777;
  EXPECT_CLASS(MPI_Wait(&bogus, &st), MPI_ERR_REQUEST);
  EXPECT_CLASS(MPI_Get_count(&st, MPI_DATATYPE_NULL, &v), MPI_ERR_TYPE);

  /* The rest of chapter 3. */
  int flag, index;
  EXPECT_CLASS(MPI_Bsend(&v, -1, MPI_INT, 0, 0, MPI_COMM_WORLD), MPI_ERR_COUNT);
  EXPECT_CLASS(MPI_Ssend(&v, 1, MPI_INT, size, 0, MPI_COMM_WORLD), MPI_ERR_RANK);
  EXPECT_CLASS(MPI_Rsend(&v, 1, MPI_INT, 0, -2, MPI_COMM_WORLD), MPI_ERR_TAG);
  EXPECT_CLASS(MPI_Issend(&v, 1, MPI_DATATYPE_NULL, 0, 0, MPI_COMM_WORLD, &req), MPI_ERR_TYPE);
  EXPECT_CLASS(MPI_Irsend(&v, 1, MPI_INT, 0, 0, MPI_COMM_NULL, &req), MPI_ERR_COMM);
  EXPECT_CLASS(MPI_Ibsend(&v, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, &req), MPI_ERR_BUFFER); /* nothing attached */
  EXPECT_CLASS(MPI_Isend(&v, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, NULL), MPI_ERR_ARG);
  EXPECT_CLASS(MPI_Buffer_attach(buf, -1), MPI_ERR_ARG);
  EXPECT_CLASS(MPI_Buffer_attach(NULL, 10), MPI_ERR_BUFFER);
  EXPECT_CLASS(MPI_Send_init(&v, 1, MPI_INT, -7, 0, MPI_COMM_WORLD, &req), MPI_ERR_RANK);
  EXPECT_CLASS(MPI_Recv_init(&v, 1, MPI_INT, 0, -3, MPI_COMM_WORLD, &req), MPI_ERR_TAG);
  EXPECT_CLASS(MPI_Bsend_init(&v, -1, MPI_INT, 0, 0, MPI_COMM_WORLD, &req), MPI_ERR_COUNT);
  EXPECT_CLASS(MPI_Ssend_init(&v, 1, MPI_INT, 0, 0, MPI_COMM_NULL, &req), MPI_ERR_COMM);
  EXPECT_CLASS(MPI_Rsend_init(&v, 1, MPI_DATATYPE_NULL, 0, 0, MPI_COMM_WORLD, &req), MPI_ERR_TYPE);
  EXPECT_CLASS(MPI_Startall(-1, &req), MPI_ERR_COUNT);
  EXPECT_CLASS(MPI_Request_free(&bogus), MPI_ERR_REQUEST);
  EXPECT_CLASS(MPI_Cancel(&bogus), MPI_ERR_REQUEST);
  EXPECT_CLASS(MPI_Test_cancelled(MPI_STATUS_IGNORE, &flag), MPI_ERR_ARG);
  EXPECT_CLASS(MPI_Testany(1, &bogus, NULL, &flag, &st), MPI_ERR_ARG);
  EXPECT_CLASS(MPI_Waitsome(1, &bogus, &index, NULL, &st), MPI_ERR_ARG);
  EXPECT_CLASS(MPI_Sendrecv_replace(&v, 1, MPI_DATATYPE_NULL, 0, 0, 0, 0, MPI_COMM_WORLD, &st), MPI_ERR_TYPE);
  EXPECT_CLASS(MPI_Sendrecv_replace(&v, 1, MPI_INT, 0, 0, size, 0, MPI_COMM_WORLD, &st), MPI_ERR_RANK);
  EXPECT_CLASS(MPI_Probe(size, 0, MPI_COMM_WORLD, &st), MPI_ERR_RANK);
  EXPECT_CLASS(MPI_Iprobe(0, -5, MPI_COMM_WORLD, &flag, &st), MPI_ERR_TAG);
  EXPECT_CLASS(MPI_Iprobe(0, 0, MPI_COMM_NULL, &flag, &st), MPI_ERR_COMM);

  /* Truncation: 16 ints sent, room for 4; words 4.. must stay untouched. */
  if (size >= 2 && rank < 2) {
    if (rank == 1) {
      for (int i = 0; i < 16; ++i) buf[i] = 100 + i;
      CHECK_MPI(MPI_Send(buf, 16, MPI_INT, 0, 5, MPI_COMM_WORLD));
      /* and a large one (rendezvous) truncated too */
      static int big[100000];
      for (int i = 0; i < 100000; ++i) big[i] = i;
      CHECK_MPI(MPI_Send(big, 100000, MPI_INT, 0, 6, MPI_COMM_WORLD));
    } else {
      for (int i = 0; i < 16; ++i) buf[i] = -1;
      EXPECT_CLASS(MPI_Recv(buf, 4, MPI_INT, 1, 5, MPI_COMM_WORLD, &st), MPI_ERR_TRUNCATE);
      for (int i = 0; i < 4; ++i) CHECK(buf[i] == 100 + i, "word %d is %d", i, buf[i]);
      for (int i = 4; i < 16; ++i) CHECK(buf[i] == -1, "word %d written past the buffer", i);
      static int big[100000];
      for (int i = 0; i < 100000; ++i) big[i] = -1;
      EXPECT_CLASS(MPI_Recv(big, 50000, MPI_INT, 1, 6, MPI_COMM_WORLD, &st), MPI_ERR_TRUNCATE);
      for (int i = 0; i < 50000; ++i) CHECK(big[i] == i, "big word %d", i);
      for (int i = 50000; i < 100000; ++i) CHECK(big[i] == -1, "big word %d written past the buffer", i);
    }
  }

  char text[MPI_MAX_ERROR_STRING];
  int len = 0;
  CHECK_MPI(MPI_Error_string(MPI_ERR_RANK, text, &len));
  CHECK(len > 0 && strstr(text, "rank") != NULL, "error string '%s'", text);

  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  if (rank == 0) printf("arg_errors: ok\n");
  CHECK_MPI(MPI_Finalize());
  return 0;
}
