/* MPI-3's MPI_AINT, MPI_OFFSET and MPI_COUNT (sizes, names, reductions the
 * standard allows and the one it does not, a transfer) and the MPI-2
 * attributes MPI_UNIVERSE_SIZE and MPI_APPNUM of a job started by mpirun. */
#include <string.h>

#include "check.h"

static void sizes_and_names(void) {
  const MPI_Datatype t[3] = {MPI_AINT, MPI_OFFSET, MPI_COUNT};
  const char* names[3] = {"MPI_AINT", "MPI_OFFSET", "MPI_COUNT"};
  const int want[3] = {(int)sizeof(MPI_Aint), (int)sizeof(MPI_Offset), (int)sizeof(MPI_Count)};
  for (int i = 0; i < 3; ++i) {
    int size;
    MPI_Aint lb, ext;
    CHECK_MPI(MPI_Type_size(t[i], &size));
    CHECK_MPI(MPI_Type_get_extent(t[i], &lb, &ext));
    CHECK(size == want[i] && lb == 0 && ext == want[i], "%s: size %d extent %ld", names[i], size, (long)ext);
    char name[MPI_MAX_OBJECT_NAME];
    int len;
    CHECK_MPI(MPI_Type_get_name(t[i], name, &len));
    CHECK(strcmp(name, names[i]) == 0, "name %s, expected %s", name, names[i]);
    int ni, na, nt, comb;
    CHECK_MPI(MPI_Type_get_envelope(t[i], &ni, &na, &nt, &comb));
    CHECK(comb == MPI_COMBINER_NAMED, "%s: combiner %d", names[i], comb);
  }
  CHECK(MPI_AINT != MPI_LONG && MPI_OFFSET != MPI_LONG_LONG && MPI_COUNT != MPI_OFFSET, "handles are distinct");
}

static void reductions(int rank, int size) {
  /* Values beyond 32 bits, so that a 4-byte treatment shows. */
  MPI_Aint a = ((MPI_Aint)1 << 40) + rank, asum = 0;
  CHECK_MPI(MPI_Allreduce(&a, &asum, 1, MPI_AINT, MPI_SUM, MPI_COMM_WORLD));
  CHECK(asum == ((MPI_Aint)size << 40) + (MPI_Aint)size * (size - 1) / 2, "AINT sum %ld", (long)asum);
  MPI_Offset o = ((MPI_Offset)1 << (33 + rank % 8)), obor = 0, omax = 0;
  CHECK_MPI(MPI_Allreduce(&o, &obor, 1, MPI_OFFSET, MPI_BOR, MPI_COMM_WORLD));
  MPI_Offset expect = 0;
  for (int r = 0; r < size; ++r) expect |= (MPI_Offset)1 << (33 + r % 8);
  CHECK(obor == expect, "OFFSET bor %lld, expected %lld", (long long)obor, (long long)expect);
  CHECK_MPI(MPI_Allreduce(&o, &omax, 1, MPI_OFFSET, MPI_MAX, MPI_COMM_WORLD));
  CHECK(omax == (MPI_Offset)1 << (33 + (size > 8 ? 7 : size - 1)), "OFFSET max %lld", (long long)omax);
  MPI_Count c = rank + 2, cprod = 0;
  CHECK_MPI(MPI_Allreduce(&c, &cprod, 1, MPI_COUNT, MPI_PROD, MPI_COMM_WORLD));
  MPI_Count pe = 1;
  for (int r = 0; r < size; ++r) pe *= r + 2;
  CHECK(cprod == pe, "COUNT prod %lld, expected %lld", (long long)cprod, (long long)pe);
  /* Logical ops are not defined on the multi-language types (MPI-3.1 §5.9.2). */
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  int rc = MPI_Allreduce(&c, &cprod, 1, MPI_COUNT, MPI_LAND, MPI_COMM_WORLD);
  CHECK(cls(rc) == MPI_ERR_OP, "LAND on MPI_COUNT: class %d", cls(rc));
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
}

static void transfer(int rank, int size) {
  if (size < 2) return;
  MPI_Count v[3] = {0, 0, 0};
  if (rank == 0) {
    for (int i = 0; i < 3; ++i) v[i] = ((MPI_Count)7 << 50) + i;
    CHECK_MPI(MPI_Send(v, 3, MPI_COUNT, 1, 4, MPI_COMM_WORLD));
  } else if (rank == 1) {
    MPI_Status st;
    CHECK_MPI(MPI_Recv(v, 3, MPI_COUNT, 0, 4, MPI_COMM_WORLD, &st));
    int n;
    CHECK_MPI(MPI_Get_count(&st, MPI_COUNT, &n));
    CHECK(n == 3, "count %d", n);
    for (int i = 0; i < 3; ++i) CHECK(v[i] == ((MPI_Count)7 << 50) + i, "element %d: %lld", i, (long long)v[i]);
  }
}

static void attributes(int size) {
  int* v = NULL;
  int flag = 0;
  CHECK_MPI(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_UNIVERSE_SIZE, &v, &flag));
  CHECK(flag && *v == size, "MPI_UNIVERSE_SIZE: flag %d value %d, expected %d", flag, flag ? *v : -1, size);
  CHECK_MPI(MPI_Attr_get(MPI_COMM_WORLD, MPI_APPNUM, &v, &flag));
  CHECK(flag && *v == 0, "MPI_APPNUM: flag %d value %d", flag, flag ? *v : -1);
  /* Attributes of MPI_COMM_WORLD only. */
  CHECK_MPI(MPI_Comm_get_attr(MPI_COMM_SELF, MPI_UNIVERSE_SIZE, &v, &flag));
  CHECK(!flag, "MPI_UNIVERSE_SIZE set on MPI_COMM_SELF");
  MPI_Comm dup;
  CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
  CHECK_MPI(MPI_Comm_get_attr(dup, MPI_APPNUM, &v, &flag));
  CHECK(!flag, "MPI_APPNUM set on a duplicate of MPI_COMM_WORLD");
  CHECK_MPI(MPI_Comm_free(&dup));
  /* Read-only. */
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  CHECK(MPI_Comm_set_attr(MPI_COMM_WORLD, MPI_UNIVERSE_SIZE, &size) != MPI_SUCCESS, "UNIVERSE_SIZE writable");
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  sizes_and_names();
  reductions(rank, size);
  transfer(rank, size);
  attributes(size);
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) printf("multilang: ok\n");
  MPI_Finalize();
  return 0;
}
