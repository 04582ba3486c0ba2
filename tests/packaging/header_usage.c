/* Compiled (not linked) as C89, C99, C11, C++98 and C++20 with
 * -Wall -Wextra -pedantic -Werror by check_header.cmake. It pins what other
 * code relies on: the handle encoding of docs/architecture.md, the MPI-1.2
 * constant values, the MPI_Status layout, distinct values where they must be
 * distinct, and the exact MPI-1 signatures (no const) through function
 * pointers of the standard's types. */
#include <mpi.h>
#include <stddef.h>

#define CHECK(name, cond) typedef char check_##name[(cond) ? 1 : -1]
#define HANDLE(kind, index) (((kind) << 26) | (index))

CHECK(comm_null, MPI_COMM_NULL == HANDLE(1, 0));
CHECK(comm_world, MPI_COMM_WORLD == HANDLE(1, 1));
CHECK(comm_self, MPI_COMM_SELF == HANDLE(1, 2));
CHECK(group_null, MPI_GROUP_NULL == HANDLE(2, 0));
CHECK(group_empty, MPI_GROUP_EMPTY == HANDLE(2, 1));
CHECK(type_null, MPI_DATATYPE_NULL == HANDLE(3, 0));
CHECK(type_char, MPI_CHAR == HANDLE(3, 1));
CHECK(type_byte, MPI_BYTE == HANDLE(3, 4));
CHECK(type_int, MPI_INT == HANDLE(3, 7));
CHECK(type_long_long, MPI_LONG_LONG == HANDLE(3, 11) && MPI_LONG_LONG == MPI_LONG_LONG_INT);
CHECK(type_double, MPI_DOUBLE == HANDLE(3, 14));
CHECK(type_wchar, MPI_WCHAR == HANDLE(3, 16));
CHECK(type_packed, MPI_PACKED == HANDLE(3, 17));
CHECK(type_lb_ub, MPI_LB == HANDLE(3, 18) && MPI_UB == HANDLE(3, 19));
CHECK(type_2int, MPI_2INT == HANDLE(3, 23));
CHECK(type_long_double_int, MPI_LONG_DOUBLE_INT == HANDLE(3, 25));
CHECK(type_integer, MPI_INTEGER == HANDLE(3, 26));
CHECK(type_2double_precision, MPI_2DOUBLE_PRECISION == HANDLE(3, 35));
CHECK(op_null, MPI_OP_NULL == HANDLE(4, 0));
CHECK(op_max, MPI_MAX == HANDLE(4, 1));
CHECK(op_bxor, MPI_BXOR == HANDLE(4, 10));
CHECK(op_minloc, MPI_MINLOC == HANDLE(4, 12));
CHECK(errh_null, MPI_ERRHANDLER_NULL == HANDLE(5, 0));
CHECK(errh_fatal, MPI_ERRORS_ARE_FATAL == HANDLE(5, 1));
CHECK(errh_return, MPI_ERRORS_RETURN == HANDLE(5, 2));
CHECK(request_null, MPI_REQUEST_NULL == HANDLE(6, 0));

CHECK(success, MPI_SUCCESS == 0);
CHECK(err_buffer, MPI_ERR_BUFFER == 1);
CHECK(err_comm, MPI_ERR_COMM == 5);
CHECK(err_arg, MPI_ERR_ARG == 13);
CHECK(err_truncate, MPI_ERR_TRUNCATE == 15);
CHECK(err_other, MPI_ERR_OTHER == 16);
CHECK(err_in_status, MPI_ERR_IN_STATUS == 18);
CHECK(err_last, MPI_ERR_PENDING == 19 && MPI_ERR_NO_MEM == 24 && MPI_ERR_LASTCODE == 24);
CHECK(restarted, MPI_INIT_RESTARTED_NODE == 128);

CHECK(wildcards, MPI_ANY_SOURCE == -2 && MPI_PROC_NULL == -1 && MPI_ANY_TAG == -1 &&
                     MPI_ROOT == -3 && MPI_UNDEFINED == -32766);
CHECK(limits, MPI_BSEND_OVERHEAD == 96 && MPI_MAX_PROCESSOR_NAME == 256 &&
                  MPI_MAX_ERROR_STRING == 512);
CHECK(compare, MPI_IDENT == 0 && MPI_CONGRUENT == 1 && MPI_SIMILAR == 2 && MPI_UNEQUAL == 3);
CHECK(topo, MPI_GRAPH != MPI_CART && MPI_GRAPH != MPI_UNDEFINED && MPI_CART != MPI_UNDEFINED);
CHECK(version, MPI_VERSION == 1 && MPI_SUBVERSION == 2 && FTMPI == 1);
CHECK(ft_comm_modes, FTMPI_COMM_MODE_ABORT == 0 && FTMPI_COMM_MODE_REBUILD == 1 &&
                         FTMPI_COMM_MODE_BLANK == 2 && FTMPI_COMM_MODE_SHRINK == 3);
CHECK(ft_msg_modes, FTMPI_MSG_MODE_RESET == 0 && FTMPI_MSG_MODE_CONT == 1);
CHECK(ft_coll_modes, FTMPI_COLL_MODE_NONATOMIC == 0 && FTMPI_COLL_MODE_ATOMIC == 1);
CHECK(ft_recovery_modes, FTMPI_RECOVERY_MODE_MANUAL == 0 && FTMPI_RECOVERY_MODE_AUTO == 1 &&
                             FTMPI_RECOVERY_MODE_IGNORE == 2);

/* docs/architecture.md: {int MPI_SOURCE, MPI_TAG, MPI_ERROR; int
 * ftmpi_cancelled; long long ftmpi_count}, and MPI_Aint is long. */
CHECK(status_source, offsetof(MPI_Status, MPI_SOURCE) == 0);
CHECK(status_tag, offsetof(MPI_Status, MPI_TAG) == sizeof(int));
CHECK(status_error, offsetof(MPI_Status, MPI_ERROR) == 2 * sizeof(int));
CHECK(status_cancelled, offsetof(MPI_Status, ftmpi_cancelled) == 3 * sizeof(int));
CHECK(status_count, offsetof(MPI_Status, ftmpi_count) == 4 * sizeof(int));
CHECK(status_count_width, sizeof(((MPI_Status *)0)->ftmpi_count) == 8);
CHECK(aint, sizeof(MPI_Aint) == sizeof(long) && sizeof(MPI_Aint) >= sizeof(void *));
CHECK(handles_are_int, sizeof(MPI_Comm) == sizeof(int) && sizeof(MPI_Request) == sizeof(int));

/* A duplicate case label is a compile error: these must be distinct. */
int distinct_keyvals(int k);
int distinct_keyvals(int k) {
  switch (k) {
    case MPI_KEYVAL_INVALID:
    case MPI_TAG_UB:
    case MPI_HOST:
    case MPI_IO:
    case MPI_WTIME_IS_GLOBAL:
    case FTMPI_RECOVERY_MODE:
    case FTMPI_COMM_MODE:
    case FTMPI_MSG_MODE:
    case FTMPI_COLL_MODE:
    case FTMPI_NUM_FAILED_PROCS:
    case FTMPI_ERROR_FAILURE:
      return 1;
    default:
      return 0;
  }
}

int distinct_handles(int h);
int distinct_handles(int h) {
  switch (h) {
    case MPI_COMM_NULL: case MPI_COMM_WORLD: case MPI_COMM_SELF:
    case MPI_GROUP_NULL: case MPI_GROUP_EMPTY:
    case MPI_DATATYPE_NULL: case MPI_CHAR: case MPI_SIGNED_CHAR:
    case MPI_UNSIGNED_CHAR: case MPI_BYTE: case MPI_SHORT:
    case MPI_UNSIGNED_SHORT: case MPI_INT: case MPI_UNSIGNED: case MPI_LONG:
    case MPI_UNSIGNED_LONG: case MPI_LONG_LONG_INT: case MPI_UNSIGNED_LONG_LONG:
    case MPI_FLOAT: case MPI_DOUBLE: case MPI_LONG_DOUBLE: case MPI_WCHAR:
    case MPI_PACKED: case MPI_LB: case MPI_UB: case MPI_FLOAT_INT:
    case MPI_DOUBLE_INT: case MPI_LONG_INT: case MPI_2INT: case MPI_SHORT_INT:
    case MPI_LONG_DOUBLE_INT: case MPI_INTEGER: case MPI_REAL:
    case MPI_DOUBLE_PRECISION: case MPI_COMPLEX: case MPI_DOUBLE_COMPLEX:
    case MPI_LOGICAL: case MPI_CHARACTER: case MPI_2INTEGER: case MPI_2REAL:
    case MPI_2DOUBLE_PRECISION:
    case MPI_OP_NULL: case MPI_MAX: case MPI_MIN: case MPI_SUM: case MPI_PROD:
    case MPI_LAND: case MPI_BAND: case MPI_LOR: case MPI_BOR: case MPI_LXOR:
    case MPI_BXOR: case MPI_MAXLOC: case MPI_MINLOC:
    case MPI_ERRHANDLER_NULL: case MPI_ERRORS_ARE_FATAL: case MPI_ERRORS_RETURN:
    case MPI_REQUEST_NULL:
      return 1;
    default:
      return 0;
  }
}

int distinct_error_classes(int e);
int distinct_error_classes(int e) {
  switch (e) {
    case MPI_SUCCESS: case MPI_ERR_BUFFER: case MPI_ERR_COUNT: case MPI_ERR_TYPE:
    case MPI_ERR_TAG: case MPI_ERR_COMM: case MPI_ERR_RANK: case MPI_ERR_REQUEST:
    case MPI_ERR_ROOT: case MPI_ERR_GROUP: case MPI_ERR_OP: case MPI_ERR_TOPOLOGY:
    case MPI_ERR_DIMS: case MPI_ERR_ARG: case MPI_ERR_UNKNOWN: case MPI_ERR_TRUNCATE:
    case MPI_ERR_OTHER: case MPI_ERR_INTERN: case MPI_ERR_IN_STATUS:
    case MPI_ERR_PENDING: case MPI_INIT_RESTARTED_NODE:
      return 1;
    default:
      return 0;
  }
}

/* Callbacks of the standard's types, written the way MPI-1 programs do. */
static void sum_op(void *in, void *inout, int *len, MPI_Datatype *type) {
  (void)in; (void)inout; (void)len; (void)type;
}
static void on_error(MPI_Comm *comm, int *code, ...) {
  (void)comm; (void)code;
}

/* MPI-1.2 signatures with MPI-3's const on input buffers and arrays. */
int signatures_are_mpi1(void);
int signatures_are_mpi1(void) {
  int (*send)(const void *, int, MPI_Datatype, int, int, MPI_Comm) = MPI_Send;
  int (*psend)(const void *, int, MPI_Datatype, int, int, MPI_Comm) = PMPI_Send;
  int (*recv)(void *, int, MPI_Datatype, int, int, MPI_Comm, MPI_Status *) = MPI_Recv;
  int (*type_struct)(int, const int *, const MPI_Aint *, const MPI_Datatype *, MPI_Datatype *) =
      MPI_Type_struct;
  int (*range_incl)(MPI_Group, int, int[][3], MPI_Group *) = MPI_Group_range_incl;
  int (*attr_get)(MPI_Comm, int, void *, int *) = MPI_Attr_get;
  int (*keyval_create)(MPI_Copy_function *, MPI_Delete_function *, int *, void *) =
      MPI_Keyval_create;
  int (*errh_create)(MPI_Handler_function *, MPI_Errhandler *) = MPI_Errhandler_create;
  int (*op_create)(MPI_User_function *, int, MPI_Op *) = MPI_Op_create;
  int (*get_version)(int *, int *) = MPI_Get_version;
  int (*pcontrol)(const int, ...) = MPI_Pcontrol;
  double (*wtime)(void) = MPI_Wtime;
  double (*pwtick)(void) = PMPI_Wtick;
  MPI_Copy_function *copy_fns[2];
  MPI_Delete_function *delete_fn = MPI_NULL_DELETE_FN;
  MPI_User_function *user_fn = sum_op;
  MPI_Handler_function *handler = on_error;
  MPI_Status *ignore = MPI_STATUS_IGNORE;
  MPI_Status *ignore_all = MPI_STATUSES_IGNORE;
  void *bottom = MPI_BOTTOM;
  copy_fns[0] = MPI_NULL_COPY_FN;
  copy_fns[1] = MPI_DUP_FN;
  return send != 0 && psend != 0 && recv != 0 && type_struct != 0 && range_incl != 0 &&
         attr_get != 0 && keyval_create != 0 && errh_create != 0 && op_create != 0 &&
         get_version != 0 && pcontrol != 0 && wtime != 0 && pwtick != 0 &&
         copy_fns[0] != 0 && copy_fns[1] != 0 && delete_fn != 0 && user_fn != 0 &&
         handler != 0 && ignore != 0 && ignore_all != 0 && bottom == 0;
}
