/* MPI-2/3 names of MPI-1 functionality and the small MPI-2 objects, in a
 * real job: communicator error handlers (create / set / get / call),
 * communicator keyvals and attributes (with MPI_ERR_KEYVAL), object names,
 * info objects and their error classes, MPI_Finalized, MPI_Alloc_mem,
 * MPI_Get_library_version and the thread-support calls. */
#include <stdlib.h>
#include <string.h>

#include "check.h"

static int g_handler_calls = 0;
static int g_handler_code = 0;
static MPI_Comm g_handler_comm = MPI_COMM_NULL;

static void handler(MPI_Comm* comm, int* code, ...) {
  ++g_handler_calls;
  g_handler_code = *code;
  g_handler_comm = *comm;
}

static int g_copies = 0, g_deletes = 0;

static int copy_fn(MPI_Comm oldcomm, int keyval, void* extra, void* in, void* out, int* flag) {
  (void)oldcomm;
  (void)keyval;
  CHECK(extra == &g_copies, "extra_state not passed through");
  ++g_copies;
  *(void**)out = (char*)in + 1;
  *flag = 1;
  return MPI_SUCCESS;
}

static int delete_fn(MPI_Comm comm, int keyval, void* value, void* extra) {
  (void)comm;
  (void)keyval;
  (void)value;
  (void)extra;
  ++g_deletes;
  return MPI_SUCCESS;
}

static void errhandlers(int rank) {
  MPI_Errhandler eh, got;
  CHECK_MPI(MPI_Comm_create_errhandler(handler, &eh));
  MPI_Comm dup;
  CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
  CHECK_MPI(MPI_Comm_set_errhandler(dup, eh));
  CHECK_MPI(MPI_Comm_get_errhandler(dup, &got));
  CHECK(got == eh, "get_errhandler returned another handler");
  /* A real error on dup runs the handler with the error class. */
  int rc = MPI_Send(&rank, 1, MPI_INT, 1 << 20, 0, dup);
  CHECK(g_handler_calls == 1 && g_handler_code == rc && cls(rc) == MPI_ERR_RANK && g_handler_comm == dup,
        "handler calls %d code %d rc %d", g_handler_calls, g_handler_code, rc);
  /* MPI_Comm_call_errhandler runs it with the application's code. */
  CHECK_MPI(MPI_Comm_call_errhandler(dup, MPI_ERR_TAG));
  CHECK(g_handler_calls == 2 && g_handler_code == MPI_ERR_TAG, "call_errhandler did not run the handler");
  /* Inherited by a dup. */
  MPI_Comm dup2;
  CHECK_MPI(MPI_Comm_dup(dup, &dup2));
  CHECK_MPI(MPI_Comm_get_errhandler(dup2, &got));
  CHECK(got == eh, "the dup did not inherit the handler");
  CHECK_MPI(MPI_Errhandler_free(&eh));
  CHECK(eh == MPI_ERRHANDLER_NULL, "free did not reset the handle");
  /* Still attached to dup and dup2: it keeps working. */
  CHECK_MPI(MPI_Comm_call_errhandler(dup2, MPI_ERR_COUNT));
  CHECK(g_handler_calls == 3 && g_handler_comm == dup2, "handler after free");
  /* Argument errors, reported through MPI_COMM_WORLD (MPI_ERRORS_RETURN). */
  CHECK(cls(MPI_Comm_set_errhandler(MPI_COMM_NULL, MPI_ERRORS_RETURN)) == MPI_ERR_COMM, "null comm");
  CHECK(cls(MPI_Comm_set_errhandler(dup, MPI_ERRHANDLER_NULL)) == MPI_ERR_ARG, "null handler");
  CHECK(cls(MPI_Comm_get_errhandler(dup, NULL)) == MPI_ERR_ARG, "null out pointer");
  CHECK_MPI(MPI_Comm_free(&dup2));
  CHECK_MPI(MPI_Comm_free(&dup));
}

static void attributes(void) {
  int key = MPI_KEYVAL_INVALID;
  CHECK_MPI(MPI_Comm_create_keyval(copy_fn, delete_fn, &key, &g_copies));
  static char value[4];
  CHECK_MPI(MPI_Comm_set_attr(MPI_COMM_WORLD, key, value));
  void* got = NULL;
  int flag = 0;
  CHECK_MPI(MPI_Comm_get_attr(MPI_COMM_WORLD, key, &got, &flag));
  CHECK(flag && got == value, "get_attr: flag %d", flag);
  MPI_Comm dup;
  CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
  CHECK(g_copies == 1, "copy callback ran %d times", g_copies);
  CHECK_MPI(MPI_Comm_get_attr(dup, key, &got, &flag));
  CHECK(flag && got == value + 1, "the dup's attribute is not the copy callback's value");
  CHECK_MPI(MPI_Comm_delete_attr(dup, key));
  CHECK(g_deletes == 1, "delete callback ran %d times", g_deletes);
  CHECK_MPI(MPI_Comm_get_attr(dup, key, &got, &flag));
  CHECK(!flag, "attribute still there after delete");
  /* Predefined attributes through the MPI-2 name. */
  int* tag_ub = NULL;
  CHECK_MPI(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &tag_ub, &flag));
  CHECK(flag && *tag_ub >= 32767, "MPI_TAG_UB");
  /* MPI_COMM_NULL_COPY_FN / MPI_COMM_DUP_FN. */
  int k2, k3;
  CHECK_MPI(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN, &k2, NULL));
  CHECK_MPI(MPI_Comm_create_keyval(MPI_COMM_DUP_FN, MPI_COMM_NULL_DELETE_FN, &k3, NULL));
  CHECK_MPI(MPI_Comm_set_attr(dup, k2, value));
  CHECK_MPI(MPI_Comm_set_attr(dup, k3, value + 2));
  MPI_Comm dup2;
  CHECK_MPI(MPI_Comm_dup(dup, &dup2));
  CHECK_MPI(MPI_Comm_get_attr(dup2, k2, &got, &flag));
  CHECK(!flag, "MPI_COMM_NULL_COPY_FN copied");
  CHECK_MPI(MPI_Comm_get_attr(dup2, k3, &got, &flag));
  CHECK(flag && got == value + 2, "MPI_COMM_DUP_FN did not copy");
  /* MPI_ERR_KEYVAL for invalid and predefined keyvals. */
  CHECK(cls(MPI_Comm_set_attr(dup, 999999, value)) == MPI_ERR_KEYVAL, "set_attr bad keyval");
  CHECK(cls(MPI_Comm_get_attr(dup, 999999, &got, &flag)) == MPI_ERR_KEYVAL, "get_attr bad keyval");
  CHECK(cls(MPI_Comm_set_attr(dup, MPI_TAG_UB, value)) == MPI_ERR_KEYVAL, "set_attr predefined");
  CHECK(cls(MPI_Comm_delete_attr(dup, 999999)) == MPI_ERR_KEYVAL, "delete_attr bad keyval");
  CHECK_MPI(MPI_Comm_free_keyval(&k2));
  CHECK(k2 == MPI_KEYVAL_INVALID, "free_keyval did not reset");
  CHECK(cls(MPI_Comm_free_keyval(&k2)) == MPI_ERR_KEYVAL, "free of an invalid keyval");
  CHECK_MPI(MPI_Comm_free_keyval(&k3));
  CHECK_MPI(MPI_Comm_free(&dup2));
  CHECK_MPI(MPI_Comm_free(&dup));
  CHECK_MPI(MPI_Comm_delete_attr(MPI_COMM_WORLD, key));
  CHECK_MPI(MPI_Comm_free_keyval(&key));
}

static void names(void) {
  char name[MPI_MAX_OBJECT_NAME];
  int len = -1;
  CHECK_MPI(MPI_Comm_get_name(MPI_COMM_WORLD, name, &len));
  CHECK(strcmp(name, "MPI_COMM_WORLD") == 0 && len == 14, "world is named '%s'", name);
  CHECK_MPI(MPI_Comm_get_name(MPI_COMM_SELF, name, &len));
  CHECK(strcmp(name, "MPI_COMM_SELF") == 0, "self is named '%s'", name);
  MPI_Comm dup;
  CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
  CHECK_MPI(MPI_Comm_get_name(dup, name, &len));
  CHECK(len == 0 && name[0] == '\0', "a dup has no name, got '%s'", name);
  CHECK_MPI(MPI_Comm_set_name(dup, "solver"));
  CHECK_MPI(MPI_Comm_get_name(dup, name, &len));
  CHECK(strcmp(name, "solver") == 0 && len == 6, "set_name: got '%s'", name);
  char long_name[300];
  memset(long_name, 'x', sizeof long_name - 1);
  long_name[sizeof long_name - 1] = '\0';
  CHECK_MPI(MPI_Comm_set_name(dup, long_name));
  CHECK_MPI(MPI_Comm_get_name(dup, name, &len));
  CHECK(len == MPI_MAX_OBJECT_NAME - 1, "a long name is truncated to %d, got %d", MPI_MAX_OBJECT_NAME - 1, len);
  CHECK_MPI(MPI_Type_get_name(MPI_DOUBLE, name, &len));
  CHECK(strcmp(name, "MPI_DOUBLE") == 0, "MPI_DOUBLE is named '%s'", name);
  MPI_Datatype t;
  CHECK_MPI(MPI_Type_contiguous(2, MPI_INT, &t));
  CHECK_MPI(MPI_Type_get_name(t, name, &len));
  CHECK(len == 0, "a new type has no name");
  CHECK_MPI(MPI_Type_set_name(t, "pair"));
  CHECK_MPI(MPI_Type_get_name(t, name, &len));
  CHECK(strcmp(name, "pair") == 0 && len == 4, "type name '%s'", name);
  CHECK(cls(MPI_Comm_set_name(MPI_COMM_NULL, "x")) == MPI_ERR_COMM, "set_name on MPI_COMM_NULL");
  CHECK(cls(MPI_Type_set_name(MPI_DATATYPE_NULL, "x")) == MPI_ERR_TYPE, "set_name on MPI_DATATYPE_NULL");
  CHECK_MPI(MPI_Type_free(&t));
  CHECK_MPI(MPI_Comm_free(&dup));
}

static void infos(void) {
  MPI_Info info, copy;
  CHECK_MPI(MPI_Info_create(&info));
  int n = -1;
  CHECK_MPI(MPI_Info_get_nkeys(info, &n));
  CHECK(n == 0, "a new info has %d keys", n);
  CHECK_MPI(MPI_Info_set(info, "cb_nodes", "4"));
  CHECK_MPI(MPI_Info_set(info, "striping_unit", "1048576"));
  CHECK_MPI(MPI_Info_set(info, "cb_nodes", "8"));  /* replaces, keeps its place */
  CHECK_MPI(MPI_Info_get_nkeys(info, &n));
  CHECK(n == 2, "nkeys %d", n);
  char key[MPI_MAX_INFO_KEY + 1], value[MPI_MAX_INFO_VAL + 1];
  CHECK_MPI(MPI_Info_get_nthkey(info, 0, key));
  CHECK(strcmp(key, "cb_nodes") == 0, "key 0 is '%s'", key);
  CHECK_MPI(MPI_Info_get_nthkey(info, 1, key));
  CHECK(strcmp(key, "striping_unit") == 0, "key 1 is '%s'", key);
  int flag = 0, len = 0;
  CHECK_MPI(MPI_Info_get(info, "cb_nodes", MPI_MAX_INFO_VAL, value, &flag));
  CHECK(flag && strcmp(value, "8") == 0, "cb_nodes = '%s'", value);
  CHECK_MPI(MPI_Info_get_valuelen(info, "striping_unit", &len, &flag));
  CHECK(flag && len == 7, "valuelen %d", len);
  CHECK_MPI(MPI_Info_get(info, "striping_unit", 3, value, &flag));
  CHECK(flag && strcmp(value, "104") == 0, "a short valuelen truncates: '%s'", value);
  CHECK_MPI(MPI_Info_get(info, "absent", MPI_MAX_INFO_VAL, value, &flag));
  CHECK(!flag, "absent key found");
  CHECK_MPI(MPI_Info_dup(info, &copy));
  CHECK_MPI(MPI_Info_delete(info, "cb_nodes"));
  CHECK_MPI(MPI_Info_get_nkeys(info, &n));
  CHECK(n == 1, "after delete: %d keys", n);
  CHECK_MPI(MPI_Info_get_nkeys(copy, &n));
  CHECK(n == 2, "the dup changed with the original: %d keys", n);
  CHECK(cls(MPI_Info_delete(info, "cb_nodes")) == MPI_ERR_INFO_NOKEY, "delete of an absent key");
  CHECK(cls(MPI_Info_get_nthkey(info, 1, key)) == MPI_ERR_ARG, "nthkey out of range");
  char long_key[MPI_MAX_INFO_KEY + 2];
  memset(long_key, 'k', sizeof long_key - 1);
  long_key[sizeof long_key - 1] = '\0';
  CHECK(cls(MPI_Info_set(info, long_key, "v")) == MPI_ERR_INFO_KEY, "a too long key");
  CHECK(cls(MPI_Info_set(info, "", "v")) == MPI_ERR_INFO_KEY, "an empty key");
  char* long_value = malloc(MPI_MAX_INFO_VAL + 2);
  memset(long_value, 'v', MPI_MAX_INFO_VAL + 1);
  long_value[MPI_MAX_INFO_VAL + 1] = '\0';
  CHECK(cls(MPI_Info_set(info, "k", long_value)) == MPI_ERR_INFO_VALUE, "a too long value");
  free(long_value);
  CHECK(cls(MPI_Info_get_nkeys(MPI_INFO_NULL, &n)) == MPI_ERR_ARG, "MPI_INFO_NULL");
  CHECK_MPI(MPI_Info_free(&info));
  CHECK(info == MPI_INFO_NULL, "free did not reset the handle");
  CHECK(cls(MPI_Info_get_nkeys(info, &n)) == MPI_ERR_ARG, "use after free");
  CHECK_MPI(MPI_Info_free(&copy));
}

static void environment(void) {
  int flag = 1;
  CHECK_MPI(MPI_Finalized(&flag));
  CHECK(flag == 0, "finalized before MPI_Finalize");
  double* mem = NULL;
  CHECK_MPI(MPI_Alloc_mem(1000 * sizeof(double), MPI_INFO_NULL, &mem));
  CHECK(mem != NULL, "Alloc_mem gave null");
  for (int i = 0; i < 1000; ++i) mem[i] = i;
  CHECK(mem[999] == 999.0, "memory not usable");
  CHECK_MPI(MPI_Free_mem(mem));
  CHECK(cls(MPI_Alloc_mem(-1, MPI_INFO_NULL, &mem)) == MPI_ERR_ARG, "negative size");
  char version[MPI_MAX_LIBRARY_VERSION_STRING];
  int len = 0;
  CHECK_MPI(MPI_Get_library_version(version, &len));
  CHECK(len > 0 && strncmp(version, "ftmpi", 5) == 0 && (int)strlen(version) == len, "version '%s'", version);
  int provided = -1;
  CHECK_MPI(MPI_Query_thread(&provided));
  CHECK(provided == MPI_THREAD_SERIALIZED, "asked MULTIPLE, Query_thread says %d", provided);
  CHECK_MPI(MPI_Is_thread_main(&flag));
  CHECK(flag == 1, "the initialising thread is not main");
}

int main(int argc, char** argv) {
  int flag = 1;
  CHECK(MPI_Finalized(&flag) == MPI_SUCCESS && flag == 0, "Finalized before Init");
  char version[MPI_MAX_LIBRARY_VERSION_STRING];
  int len = 0;
  CHECK(MPI_Get_library_version(version, &len) == MPI_SUCCESS && len > 0, "library version before Init");
  int provided = -1;
  CHECK(MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided) == MPI_SUCCESS, "Init_thread");
  CHECK(provided == MPI_THREAD_SERIALIZED, "provided %d: only SERIALIZED is really supported", provided);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  errhandlers(rank);
  attributes();
  names();
  infos();
  environment();
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) printf("env_objects: ok\n");
  MPI_Finalize();
  CHECK(MPI_Finalized(&flag) == MPI_SUCCESS && flag == 1, "Finalized after MPI_Finalize");
  return 0;
}
