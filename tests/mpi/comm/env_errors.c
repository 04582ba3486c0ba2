/* Environment and error handling (MPI-1.2 chapter 7): Get_version,
 * Error_string / Error_class for every class, user error handlers called with
 * the communicator and the code, Errhandler_get/set/free, Pcontrol.
 *
 *   env_errors            the checks above
 *   env_errors fatal      a bad MPI_Comm_split argument on a communicator
 *                         made by dup (it inherits MPI_ERRORS_ARE_FATAL) must
 *                         end the whole job with a message naming the call */
#include <string.h>

#include "comm_check.h"

static int calls;
static MPI_Comm seen_comm;
static int seen_code;

static void handler(MPI_Comm* comm, int* code, ...) {
  ++calls;
  seen_comm = *comm;
  seen_code = *code;
}

static void other_handler(MPI_Comm* comm, int* code, ...) { calls += 100; }

int main(int argc, char** argv) {
  int rank, size, version = 0, subversion = -1;
  CHECK_MPI(MPI_Get_version(&version, &subversion)); /* allowed before MPI_Init */
  CHECK(version == 1 && subversion == 2, "Get_version %d.%d before MPI_Init", version, subversion);
  CHECK_MPI(MPI_Init(&argc, &argv));
  CHECK_MPI(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
  CHECK_MPI(MPI_Comm_size(MPI_COMM_WORLD, &size));

  if (argc > 1 && strcmp(argv[1], "fatal") == 0) {
    MPI_Comm d, s;
    CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &d));
    if (rank == size - 1) MPI_Comm_split(d, -3, 0, &s);
    else MPI_Recv(&version, 1, MPI_INT, MPI_ANY_SOURCE, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    printf("unreachable: rank %d went on after a fatal error\n", rank);
    MPI_Finalize();
    return 0;
  }

  CHECK_MPI(MPI_Get_version(&version, &subversion));
  CHECK(version == MPI_VERSION && subversion == MPI_SUBVERSION, "Get_version %d.%d", version, subversion);

  /* Every class has its own, non-empty text naming it; codes are classes. */
  char text[MPI_MAX_ERROR_STRING], prev[MPI_MAX_ERROR_STRING] = "";
  for (int c = MPI_SUCCESS; c <= MPI_ERR_LASTCODE; ++c) {
    int len = -1, cls = -1;
    CHECK_MPI(MPI_Error_string(c, text, &len));
    CHECK(len > 0 && len == (int)strlen(text) && len < MPI_MAX_ERROR_STRING, "Error_string(%d) length %d", c, len);
    CHECK(strcmp(text, prev) != 0, "classes %d and %d have the same text", c - 1, c);
    strcpy(prev, text);
    CHECK_MPI(MPI_Error_class(c, &cls));
    CHECK(cls == c, "Error_class(%d) = %d", c, cls);
  }
  CHECK_MPI(MPI_Error_string(MPI_ERR_TOPOLOGY, text, &size));
  CHECK(strstr(text, "MPI_ERR_TOPOLOGY") != NULL, "text of MPI_ERR_TOPOLOGY: '%s'", text);
  CHECK_MPI(MPI_Comm_size(MPI_COMM_WORLD, &size));
  int cls;
  CHECK(MPI_Error_class(MPI_ERR_LASTCODE + 1000, &cls) != MPI_SUCCESS, "Error_class of a non-code succeeded");

  /* A user handler: called with the communicator and the code. */
  MPI_Errhandler eh, eh2, got;
  MPI_Comm d;
  CHECK_MPI(MPI_Errhandler_create(handler, &eh));
  CHECK_MPI(MPI_Errhandler_create(other_handler, &eh2));
  CHECK(eh != eh2 && eh != MPI_ERRORS_RETURN && eh != MPI_ERRORS_ARE_FATAL, "handler handles");
  CHECK_MPI(MPI_Errhandler_get(MPI_COMM_WORLD, &got));
  CHECK(got == MPI_ERRORS_ARE_FATAL, "default handler is %#x", (unsigned)got);
  CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &d));
  CHECK_MPI(MPI_Errhandler_set(d, eh));
  CHECK_MPI(MPI_Errhandler_get(d, &got));
  CHECK(got == eh, "Errhandler_get after set");
  int v = 0, rc;
  rc = MPI_Send(&v, 1, MPI_INT, 0, -4, d);
  CHECK(calls == 1 && seen_comm == d && seen_code == rc && error_class_of(rc) == MPI_ERR_TAG,
        "handler: calls %d comm %#x code %d rc %d", calls, (unsigned)seen_comm, seen_code, rc);
  rc = MPI_Cart_shift(d, 0, 1, &v, &v);
  CHECK(calls == 2 && error_class_of(seen_code) == MPI_ERR_TOPOLOGY, "topology error: calls %d code %d", calls,
        seen_code);
  /* Errors on no communicator go to MPI_COMM_WORLD's handler. */
  CHECK_MPI(MPI_Errhandler_set(MPI_COMM_WORLD, eh));
  MPI_Group g = MPI_GROUP_NULL;
  rc = MPI_Group_size(g, &v);
  CHECK(calls == 3 && seen_comm == MPI_COMM_WORLD && error_class_of(seen_code) == MPI_ERR_GROUP,
        "group error: calls %d comm %#x code %d", calls, (unsigned)seen_comm, seen_code);
  rc = MPI_Comm_rank(MPI_COMM_NULL, &v);
  CHECK(calls == 4 && seen_comm == MPI_COMM_WORLD && error_class_of(seen_code) == MPI_ERR_COMM,
        "invalid communicator: calls %d comm %#x", calls, (unsigned)seen_comm);
  /* Replace; free while attached; the communicator keeps it until reset. */
  CHECK_MPI(MPI_Errhandler_set(d, eh2));
  rc = MPI_Send(&v, 1, MPI_INT, size, 0, d);
  CHECK(calls == 104, "second handler: calls %d", calls);
  MPI_Errhandler tmp = eh2;
  CHECK_MPI(MPI_Errhandler_free(&tmp));
  CHECK(tmp == MPI_ERRHANDLER_NULL, "Errhandler_free result");
  rc = MPI_Send(&v, 1, MPI_INT, size, 0, d);
  CHECK(calls == 204, "freed handler still attached: calls %d", calls);
  CHECK_MPI(MPI_Errhandler_set(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
  CHECK_MPI(MPI_Errhandler_set(d, MPI_ERRORS_RETURN)); /* the freed handler's last user lets go */
  EXPECT_CLASS(MPI_Errhandler_set(d, eh2), MPI_ERR_ARG); /* freed: no new use */
  EXPECT_CLASS(MPI_Errhandler_free(&eh2), MPI_ERR_ARG);
  MPI_Errhandler fatal = MPI_ERRORS_ARE_FATAL;
  EXPECT_CLASS(MPI_Errhandler_free(&fatal), MPI_ERR_ARG);
  EXPECT_CLASS(MPI_Errhandler_set(d, MPI_ERRHANDLER_NULL), MPI_ERR_ARG);
  EXPECT_CLASS(MPI_Errhandler_create(handler, NULL), MPI_ERR_ARG);
  rc = MPI_Send(&v, 1, MPI_INT, size, 0, d);
  CHECK(calls == 204 && error_class_of(rc) == MPI_ERR_RANK, "MPI_ERRORS_RETURN: calls %d rc %d", calls, rc);
  CHECK_MPI(MPI_Comm_free(&d));
  CHECK_MPI(MPI_Errhandler_free(&eh));

  /* Pcontrol: any level, always success. */
  CHECK_MPI(MPI_Pcontrol(0));
  CHECK_MPI(MPI_Pcontrol(2, "extra"));
  CHECK_MPI(MPI_Pcontrol(1));

  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  if (rank == 0) printf("env_errors: ok\n");
  CHECK_MPI(MPI_Finalize());
  return 0;
}
