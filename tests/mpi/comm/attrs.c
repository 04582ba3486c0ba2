/* Attribute caching (MPI-1.2 §5.7): predefined attributes and their values,
 * read-only keys, copy callbacks on dup (MPI_DUP_FN, MPI_NULL_COPY_FN, a
 * user one), delete callbacks on free / delete / replace in the order the
 * attributes were set, freed keyvals, failing callbacks, error classes. */
#include <limits.h>
#include <string.h>

#include "comm_check.h"

static int wrank;

/* What the delete callbacks saw, in order. */
static struct {
  int keyval;
  long value;
  MPI_Comm comm;
} g_deleted[64];
static int g_ndeleted;
static int g_extra = 4242;

static int record_delete(MPI_Comm comm, int keyval, void* value, void* extra) {
  CHECK(extra == &g_extra, "delete callback got extra_state %p", extra);
  g_deleted[g_ndeleted].keyval = keyval;
  g_deleted[g_ndeleted].value = (long)value;
  g_deleted[g_ndeleted].comm = comm;
  ++g_ndeleted;
  return (long)value == 13 ? MPI_ERR_ARG : MPI_SUCCESS; /* 13: refuse */
}

static int doubling_copy(MPI_Comm oldcomm, int keyval, void* extra, void* in, void* out, int* flag) {
  CHECK(extra == &g_extra, "copy callback got extra_state %p", extra);
  *(void**)out = (void*)((long)in * 2);
  *flag = 1;
  return MPI_SUCCESS;
}

static int failing_copy(MPI_Comm oldcomm, int keyval, void* extra, void* in, void* out, int* flag) {
  *flag = 0;
  return MPI_ERR_OTHER;
}

static void expect_deleted(int n, const int* keyvals, const long* values, const char* what) {
  CHECK(g_ndeleted == n, "%s: %d delete callbacks ran, expected %d", what, g_ndeleted, n);
  for (int i = 0; i < n; ++i)
    CHECK(g_deleted[i].keyval == keyvals[i] && g_deleted[i].value == values[i],
          "%s: delete callback %d was (%d, %ld), expected (%d, %ld)", what, i, g_deleted[i].keyval,
          g_deleted[i].value, keyvals[i], values[i]);
  g_ndeleted = 0;
}

static long get_attr(MPI_Comm c, int keyval, int* flag) {
  void* v = NULL;
  CHECK_MPI(MPI_Attr_get(c, keyval, &v, flag));
  return (long)v;
}

static void test_predefined(MPI_Comm c, int rank_in_c) {
  int* v = NULL;
  int flag = 0;
  CHECK_MPI(MPI_Attr_get(c, MPI_TAG_UB, &v, &flag));
  CHECK(flag && *v == INT_MAX && *v >= 32767, "MPI_TAG_UB flag %d value %d", flag, flag ? *v : 0);
  CHECK_MPI(MPI_Attr_get(c, MPI_HOST, &v, &flag));
  CHECK(flag && *v == MPI_PROC_NULL, "MPI_HOST flag %d value %d", flag, flag ? *v : 0);
  CHECK_MPI(MPI_Attr_get(c, MPI_IO, &v, &flag));
  CHECK(flag && *v == rank_in_c, "MPI_IO flag %d value %d, expected my rank %d", flag, flag ? *v : 0, rank_in_c);
  CHECK_MPI(MPI_Attr_get(c, MPI_WTIME_IS_GLOBAL, &v, &flag));
  CHECK(flag && *v == 0, "MPI_WTIME_IS_GLOBAL flag %d value %d", flag, flag ? *v : 0);
}

int main(int argc, char** argv) {
  int size, flag, k_dup, k_nocopy, k_double, k_null, k_fail;
  MPI_Comm d0, d1, d2;
  CHECK_MPI(MPI_Init(&argc, &argv));
  CHECK_MPI(MPI_Comm_rank(MPI_COMM_WORLD, &wrank));
  CHECK_MPI(MPI_Comm_size(MPI_COMM_WORLD, &size));
  CHECK_MPI(MPI_Errhandler_set(MPI_COMM_WORLD, MPI_ERRORS_RETURN));

  test_predefined(MPI_COMM_WORLD, wrank);
  CHECK_MPI(MPI_Comm_split(MPI_COMM_WORLD, 0, -wrank, &d0));
  test_predefined(d0, size - 1 - wrank);
  CHECK_MPI(MPI_Comm_free(&d0));

  /* FTMPI_* keys: read-only; if set, a valid mode value. */
  for (int k = FTMPI_RECOVERY_MODE; k <= FTMPI_COLL_MODE; ++k) {
    int* v = NULL;
    CHECK_MPI(MPI_Attr_get(MPI_COMM_WORLD, k, &v, &flag));
    CHECK(!flag || (*v >= 0 && *v <= 3), "FTMPI key %d has value %d", k, *v);
    EXPECT_CLASS(MPI_Attr_put(MPI_COMM_WORLD, k, &flag), MPI_ERR_ARG);
    EXPECT_CLASS(MPI_Attr_delete(MPI_COMM_WORLD, k), MPI_ERR_ARG);
  }
  EXPECT_CLASS(MPI_Attr_put(MPI_COMM_WORLD, MPI_TAG_UB, &flag), MPI_ERR_ARG);
  EXPECT_CLASS(MPI_Attr_delete(MPI_COMM_WORLD, MPI_IO), MPI_ERR_ARG);
  int predefined = MPI_HOST;
  EXPECT_CLASS(MPI_Keyval_free(&predefined), MPI_ERR_ARG);

  CHECK_MPI(MPI_Keyval_create(MPI_DUP_FN, record_delete, &k_dup, &g_extra));
  CHECK_MPI(MPI_Keyval_create(MPI_NULL_COPY_FN, record_delete, &k_nocopy, &g_extra));
  CHECK_MPI(MPI_Keyval_create(doubling_copy, record_delete, &k_double, &g_extra));
  CHECK_MPI(MPI_Keyval_create(MPI_NULL_COPY_FN, MPI_NULL_DELETE_FN, &k_null, NULL));
  CHECK(k_dup >= 16 && k_nocopy > k_dup && k_double > k_nocopy && k_null > k_double, "keyvals %d %d %d %d", k_dup,
        k_nocopy, k_double, k_null);

  /* Set order: double, dup, nocopy; then replace double (runs its delete). */
  CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &d0));
  CHECK_MPI(MPI_Attr_put(d0, k_double, (void*)1L));
  CHECK_MPI(MPI_Attr_put(d0, k_dup, (void*)2L));
  CHECK_MPI(MPI_Attr_put(d0, k_nocopy, (void*)3L));
  CHECK(get_attr(d0, k_dup, &flag) == 2 && flag, "get k_dup");
  CHECK_MPI(MPI_Attr_put(d0, k_double, (void*)4L));
  expect_deleted(1, (int[]){k_double}, (long[]){1}, "replace");
  CHECK(g_deleted[0].comm == d0, "delete callback got the wrong communicator");
  CHECK(get_attr(d0, k_double, &flag) == 4 && flag, "get replaced k_double");
  CHECK_MPI(MPI_Attr_put(d0, k_null, (void*)5L));

  /* Dup: MPI_DUP_FN copies, MPI_NULL_COPY_FN does not, the user's doubles. */
  CHECK_MPI(MPI_Comm_dup(d0, &d1));
  CHECK(get_attr(d1, k_dup, &flag) == 2 && flag, "dup copied k_dup");
  get_attr(d1, k_nocopy, &flag);
  CHECK(!flag, "MPI_NULL_COPY_FN attribute was copied");
  CHECK(get_attr(d1, k_double, &flag) == 8 && flag, "doubling copy");
  get_attr(d1, k_null, &flag);
  CHECK(!flag, "k_null was copied");
  CHECK(get_attr(d0, k_double, &flag) == 4 && flag, "the original keeps its value");
  CHECK(g_ndeleted == 0, "dup ran a delete callback");

  /* Free: delete callbacks in set order (replacing kept k_double's place). */
  CHECK_MPI(MPI_Comm_free(&d0));
  expect_deleted(3, (int[]){k_double, k_dup, k_nocopy}, (long[]){4, 2, 3}, "free d0");

  /* Another order on d1: it holds double(8), dup(2) as copied; add nocopy. */
  CHECK_MPI(MPI_Attr_put(d1, k_nocopy, (void*)6L));
  CHECK_MPI(MPI_Attr_delete(d1, k_dup));
  expect_deleted(1, (int[]){k_dup}, (long[]){2}, "Attr_delete");
  get_attr(d1, k_dup, &flag);
  CHECK(!flag, "deleted attribute still there");
  CHECK_MPI(MPI_Attr_delete(d1, k_dup)); /* not set: nothing happens */
  CHECK(g_ndeleted == 0, "deleting an absent attribute ran a callback");
  CHECK_MPI(MPI_Attr_put(d1, k_dup, (void*)7L));

  /* A freed keyval (MPI-1.1 §5.7.1): no new use, but the key lives on until
   * its last attribute is gone: its attributes can be read, copied and
   * deleted. */
  int freed = k_double;
  CHECK_MPI(MPI_Keyval_free(&freed));
  CHECK(freed == MPI_KEYVAL_INVALID, "Keyval_free sets MPI_KEYVAL_INVALID");
  EXPECT_CLASS(MPI_Attr_put(d1, k_double, (void*)9L), MPI_ERR_ARG);
  CHECK(get_attr(d1, k_double, &flag) == 8 && flag, "the attribute of a freed key in use cannot be read");
  get_attr(MPI_COMM_WORLD, k_double, &flag);
  CHECK(!flag, "a freed key in use elsewhere reads as set on MPI_COMM_WORLD");
  CHECK_MPI(MPI_Comm_dup(d1, &d2)); /* copying it still runs its copy callback */
  CHECK(get_attr(d2, k_double, &flag) == 16 && flag, "dup of a freed key's attribute");
  CHECK_MPI(MPI_Attr_delete(d2, k_double));
  expect_deleted(1, (int[]){k_double}, (long[]){16}, "Attr_delete of a freed key in use");
  CHECK_MPI(MPI_Comm_free(&d1));
  expect_deleted(3, (int[]){k_double, k_nocopy, k_dup}, (long[]){8, 6, 7}, "free d1");
  /* Its last attribute is gone: now the key is really freed. */
  EXPECT_CLASS(MPI_Attr_get(d2, k_double, &freed, &flag), MPI_ERR_ARG);
  EXPECT_CLASS(MPI_Attr_delete(d2, k_double), MPI_ERR_ARG);
  CHECK_MPI(MPI_Comm_free(&d2));
  expect_deleted(1, (int[]){k_dup}, (long[]){7}, "free d2");

  /* Failing callbacks: a copy makes the dup fail; a delete keeps the value. */
  CHECK_MPI(MPI_Keyval_create(failing_copy, MPI_NULL_DELETE_FN, &k_fail, NULL));
  CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &d0));
  CHECK_MPI(MPI_Attr_put(d0, k_dup, (void*)1L));
  CHECK_MPI(MPI_Attr_put(d0, k_fail, (void*)1L));
  d1 = MPI_COMM_WORLD;
  EXPECT_CLASS(MPI_Comm_dup(d0, &d1), MPI_ERR_OTHER);
  CHECK(d1 == MPI_COMM_NULL, "failed dup returned a communicator");
  expect_deleted(1, (int[]){k_dup}, (long[]){1}, "the partial copy is deleted");
  CHECK_MPI(MPI_Attr_put(d0, k_nocopy, (void*)13L));
  EXPECT_CLASS(MPI_Attr_delete(d0, k_nocopy), MPI_ERR_ARG);
  CHECK(get_attr(d0, k_nocopy, &flag) == 13 && flag, "refused delete removed the attribute");
  g_ndeleted = 0;
  /* Replacing runs the old value's delete callback, which refuses. */
  EXPECT_CLASS(MPI_Attr_put(d0, k_nocopy, (void*)14L), MPI_ERR_ARG);
  CHECK(get_attr(d0, k_nocopy, &flag) == 13 && flag, "refused replace changed the value");
  g_ndeleted = 0;
  /* Free runs every callback (in set order), reports the refusal, and the
   * communicator is gone all the same. */
  EXPECT_CLASS(MPI_Comm_free(&d0), MPI_ERR_ARG);
  CHECK(d0 == MPI_COMM_NULL, "Comm_free with a refusing callback left the handle");
  expect_deleted(2, (int[]){k_dup, k_nocopy}, (long[]){1, 13}, "free with a refusing callback");

  CHECK_MPI(MPI_Keyval_free(&k_dup));
  CHECK_MPI(MPI_Keyval_free(&k_nocopy));
  CHECK_MPI(MPI_Keyval_free(&k_null));
  CHECK_MPI(MPI_Keyval_free(&k_fail));
  EXPECT_CLASS(MPI_Keyval_free(&k_double), MPI_ERR_ARG); /* freed above */
  EXPECT_CLASS(MPI_Attr_put(MPI_COMM_NULL, 16, NULL), MPI_ERR_COMM);
  EXPECT_CLASS(MPI_Attr_get(MPI_COMM_WORLD, 123456, &flag, &flag), MPI_ERR_ARG);
  EXPECT_CLASS(MPI_Attr_get(MPI_COMM_WORLD, MPI_TAG_UB, NULL, &flag), MPI_ERR_ARG);
  EXPECT_CLASS(MPI_Keyval_create(MPI_DUP_FN, MPI_NULL_DELETE_FN, NULL, NULL), MPI_ERR_ARG);

  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  if (wrank == 0) printf("attrs: ok\n");
  CHECK_MPI(MPI_Finalize());
  return 0;
}
