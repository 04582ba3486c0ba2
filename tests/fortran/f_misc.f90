! Datatypes, MPI_ADDRESS through MPI_BOTTOM, pack/unpack, error handlers
! written in Fortran, MPI_ERRORS_RETURN, CHARACTER results, attributes with
! Fortran copy/delete callbacks, groups, communicators and topologies with
! LOGICAL arguments, from `use mpi`.
module fmisc_callbacks
  implicit none
  integer :: handler_calls = 0, last_code = 0, deletes = 0, copies = 0
contains
  subroutine on_error(comm, code)
    integer :: comm, code
    handler_calls = handler_calls + 1
    last_code = code
  end subroutine on_error

  subroutine copy_plus(oldcomm, keyval, extra, valin, valout, flag, ierr)
    integer :: oldcomm, keyval, extra, valin, valout, ierr
    logical :: flag
    copies = copies + 1
    valout = valin + extra
    flag = .true.
    ierr = 0
  end subroutine copy_plus

  subroutine count_delete(comm, keyval, val, extra, ierr)
    integer :: comm, keyval, val, extra, ierr
    deletes = deletes + val
    ierr = 0
  end subroutine count_delete
end module fmisc_callbacks

program fmisc
  use mpi
  use fmisc_callbacks
  implicit none
  integer :: rank, np, ierr, i, next, prev, vtype, stype, eh, code, cls, length, pos, size
  integer :: st(MPI_STATUS_SIZE), addr(3), blens(3), types(3), a(12), b(12), key, val, dup
  integer :: ext, lb, ub, tsize, version, subversion, newcomm, group, wgroup, sgroup, res, n
  integer :: cart, dims(2), coords(2), src, dst, sub, ranks(4), tr(4), ncart
  logical :: flag, periods(2), remain(2)
  character(len=MPI_MAX_ERROR_STRING) :: msg
  character(len=MPI_MAX_PROCESSOR_NAME) :: host
  character(len=4) :: short
  character :: packbuf(200)
  double precision :: d, t0
  ! A "struct": an INTEGER, a DOUBLE PRECISION, 3 LOGICALs, in separate variables.
  integer :: s_i, r_i
  double precision :: s_d, r_d
  logical :: s_l(3), r_l(3)

  call MPI_INIT(ierr)
  call MPI_COMM_RANK(MPI_COMM_WORLD, rank, ierr)
  call MPI_COMM_SIZE(MPI_COMM_WORLD, np, ierr)
  next = mod(rank + 1, np)
  prev = mod(rank + np - 1, np)
  call MPI_GET_VERSION(version, subversion, ierr)
  call chk(version == 1 .and. subversion == 2, 'get_version')
  t0 = MPI_WTIME()
  call chk(MPI_WTICK() > 0d0 .and. t0 > 0d0, 'wtime/wtick')

  ! Vector type: every other INTEGER of 12.
  call MPI_TYPE_VECTOR(6, 1, 2, MPI_INTEGER, vtype, ierr)
  call MPI_TYPE_COMMIT(vtype, ierr)
  call MPI_TYPE_EXTENT(vtype, ext, ierr)
  call MPI_TYPE_SIZE(vtype, tsize, ierr)
  call chk(ext == 11 * 4 .and. tsize == 24, 'vector extent/size')
  a = [(100 * rank + i, i = 1, 12)]
  b = -1
  call MPI_SENDRECV(a, 1, vtype, next, 1, b, 1, vtype, prev, 1, MPI_COMM_WORLD, st, ierr)
  call chk(all(b(1:11:2) == [(100 * prev + i, i = 1, 11, 2)]) .and. all(b(2:12:2) == -1), 'vector')
  call MPI_GET_ELEMENTS(st, MPI_INTEGER, n, ierr)
  call chk(n == 6, 'get_elements of a vector')
  call MPI_TYPE_FREE(vtype, ierr)

  ! Struct built from MPI_ADDRESS, sent from MPI_BOTTOM.
  s_i = rank
  s_d = rank + 0.25d0
  s_l = [.true., rank == 0, .false.]
  call MPI_ADDRESS(s_i, addr(1), ierr)
  call chkerr(ierr, 'address')
  call MPI_ADDRESS(s_d, addr(2), ierr)
  call MPI_ADDRESS(s_l, addr(3), ierr)
  blens = [1, 1, 3]
  types = [MPI_INTEGER, MPI_DOUBLE_PRECISION, MPI_LOGICAL]
  call MPI_TYPE_STRUCT(3, blens, addr, types, stype, ierr)
  call MPI_TYPE_COMMIT(stype, ierr)
  call MPI_SEND(MPI_BOTTOM, 1, stype, next, 2, MPI_COMM_WORLD, ierr)
  call chkerr(ierr, 'send from MPI_BOTTOM')
  call MPI_TYPE_FREE(stype, ierr)
  call MPI_ADDRESS(r_i, addr(1), ierr)
  call MPI_ADDRESS(r_d, addr(2), ierr)
  call MPI_ADDRESS(r_l, addr(3), ierr)
  call MPI_TYPE_STRUCT(3, blens, addr, types, stype, ierr)
  call MPI_TYPE_COMMIT(stype, ierr)
  call MPI_RECV(MPI_BOTTOM, 1, stype, prev, 2, MPI_COMM_WORLD, st, ierr)
  call chk(r_i == prev .and. r_d == prev + 0.25d0, 'struct int/double')
  call chk(r_l(1) .and. (r_l(2) .eqv. prev == 0) .and. .not. r_l(3), 'struct logicals')
  call MPI_TYPE_FREE(stype, ierr)
  ! Hindexed and LB/UB with INTEGER displacements.
  blens(1:2) = [2, 1]
  addr(1:2) = [8, 0]
  call MPI_TYPE_HINDEXED(2, blens, addr, MPI_INTEGER, stype, ierr)
  call MPI_TYPE_LB(stype, lb, ierr)
  call MPI_TYPE_UB(stype, ub, ierr)
  call chk(lb == 0 .and. ub == 16, 'hindexed lb/ub')
  call MPI_TYPE_FREE(stype, ierr)
  call MPI_TYPE_HVECTOR(2, 1, 12, MPI_INTEGER, stype, ierr)
  call MPI_TYPE_EXTENT(stype, ext, ierr)
  call chk(ext == 16, 'hvector extent')
  call MPI_TYPE_FREE(stype, ierr)

  ! Pack / unpack.
  call MPI_PACK_SIZE(3, MPI_INTEGER, MPI_COMM_WORLD, size, ierr)
  call chk(size >= 12, 'pack_size')
  pos = 0
  call MPI_PACK([rank, 2, 3], 3, MPI_INTEGER, packbuf, 200, pos, MPI_COMM_WORLD, ierr)
  call MPI_PACK(1.5d0, 1, MPI_DOUBLE_PRECISION, packbuf, 200, pos, MPI_COMM_WORLD, ierr)
  call MPI_SENDRECV(packbuf, pos, MPI_PACKED, next, 3, packbuf(101), 100, MPI_PACKED, prev, 3, &
                    MPI_COMM_WORLD, st, ierr)
  pos = 0
  call MPI_UNPACK(packbuf(101), 100, pos, a, 3, MPI_INTEGER, MPI_COMM_WORLD, ierr)
  call MPI_UNPACK(packbuf(101), 100, pos, d, 1, MPI_DOUBLE_PRECISION, MPI_COMM_WORLD, ierr)
  call chk(a(1) == prev .and. a(3) == 3 .and. d == 1.5d0, 'pack/unpack')

  ! Errors: MPI_ERRORS_RETURN, then a handler written in Fortran.
  call MPI_ERRHANDLER_SET(MPI_COMM_WORLD, MPI_ERRORS_RETURN, ierr)
  call MPI_SEND(a, 1, MPI_INTEGER, np + 5, 0, MPI_COMM_WORLD, ierr)
  call MPI_ERROR_CLASS(ierr, cls, code)
  call chk(cls == MPI_ERR_RANK, 'ERRORS_RETURN gives MPI_ERR_RANK')
  call MPI_ERROR_STRING(ierr, msg, length, code)
  call chk(length > 0 .and. length <= len(msg) .and. len_trim(msg) == length, 'error_string')
  call MPI_ERROR_STRING(ierr, short, length, code)
  call chk(length == 4 .and. short == msg(1:4), 'error_string truncated')
  call MPI_ERRHANDLER_CREATE(on_error, eh, ierr)
  call chkerr(ierr, 'errhandler_create')
  call MPI_ERRHANDLER_SET(MPI_COMM_WORLD, eh, ierr)
  call MPI_SEND(a, -1, MPI_INTEGER, next, 0, MPI_COMM_WORLD, ierr)
  call MPI_ERROR_CLASS(last_code, cls, code)
  call chk(handler_calls == 1 .and. cls == MPI_ERR_COUNT .and. ierr == last_code, 'Fortran handler')
  call MPI_ERRHANDLER_GET(MPI_COMM_WORLD, i, ierr)
  call chk(i == eh, 'errhandler_get')
  call MPI_ERRHANDLER_SET(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL, ierr)
  call MPI_ERRHANDLER_FREE(eh, ierr)
  call chk(eh == MPI_ERRHANDLER_NULL, 'errhandler_free')

  call MPI_GET_PROCESSOR_NAME(host, length, ierr)
  call chk(length > 0 .and. len_trim(host) == length, 'processor name')

  ! Attributes: predefined, FT-MPI, and a keyval with Fortran callbacks.
  call MPI_ATTR_GET(MPI_COMM_WORLD, MPI_TAG_UB, val, flag, ierr)
  call chk(flag .and. val >= 32767, 'MPI_TAG_UB')
  call MPI_ATTR_GET(MPI_COMM_WORLD, FTMPI_NUM_FAILED_PROCS, val, flag, ierr)
  call chk(flag .and. val == 0, 'FTMPI_NUM_FAILED_PROCS')
  call MPI_ATTR_GET(MPI_COMM_WORLD, FTMPI_COMM_MODE, val, flag, ierr)
  call chk(flag .and. val >= FTMPI_COMM_MODE_ABORT .and. val <= FTMPI_COMM_MODE_SHRINK, 'FTMPI_COMM_MODE')
  call MPI_KEYVAL_CREATE(copy_plus, count_delete, key, 1000, ierr)
  call chkerr(ierr, 'keyval_create')
  call MPI_ATTR_PUT(MPI_COMM_WORLD, key, 7, ierr)
  call MPI_COMM_DUP(MPI_COMM_WORLD, dup, ierr)
  call MPI_ATTR_GET(dup, key, val, flag, ierr)
  call chk(flag .and. val == 1007 .and. copies == 1, 'Fortran copy callback')
  call MPI_COMM_FREE(dup, ierr)
  call chk(deletes == 1007 .and. dup == MPI_COMM_NULL, 'Fortran delete callback')
  call MPI_ATTR_DELETE(MPI_COMM_WORLD, key, ierr)
  call chk(deletes == 1014, 'attr_delete')
  call MPI_ATTR_GET(MPI_COMM_WORLD, key, val, flag, ierr)
  call chk(.not. flag, 'deleted attribute')
  call MPI_KEYVAL_FREE(key, ierr)
  call MPI_KEYVAL_CREATE(MPI_DUP_FN, MPI_NULL_DELETE_FN, key, 0, ierr)
  call MPI_ATTR_PUT(MPI_COMM_WORLD, key, 42, ierr)
  call MPI_COMM_DUP(MPI_COMM_WORLD, dup, ierr)
  call MPI_ATTR_GET(dup, key, val, flag, ierr)
  call chk(flag .and. val == 42, 'MPI_DUP_FN')
  call MPI_COMM_FREE(dup, ierr)
  call MPI_ATTR_DELETE(MPI_COMM_WORLD, key, ierr)
  call MPI_KEYVAL_FREE(key, ierr)
  call chk(key == MPI_KEYVAL_INVALID, 'keyval_free')

  ! Groups and communicators.
  call MPI_COMM_GROUP(MPI_COMM_WORLD, wgroup, ierr)
  call MPI_GROUP_EXCL(wgroup, 1, [0], group, ierr)
  call MPI_GROUP_SIZE(group, n, ierr)
  call chk(n == np - 1, 'group_excl size')
  ranks(1:2) = [1, np - 1]
  call MPI_GROUP_TRANSLATE_RANKS(group, 2, [0, np - 2], wgroup, tr, ierr)
  call chk(tr(1) == 1 .and. tr(2) == np - 1, 'translate_ranks')
  call MPI_GROUP_RANGE_INCL(wgroup, 1, reshape([0, np - 1, 2], [3, 1]), sgroup, ierr)
  call MPI_GROUP_SIZE(sgroup, n, ierr)
  call chk(n == (np + 1) / 2, 'group_range_incl')
  call MPI_GROUP_COMPARE(wgroup, wgroup, res, ierr)
  call chk(res == MPI_IDENT, 'group_compare')
  call MPI_COMM_CREATE(MPI_COMM_WORLD, group, newcomm, ierr)
  if (rank == 0) then
    call chk(newcomm == MPI_COMM_NULL, 'comm_create outside')
  else
    call MPI_COMM_RANK(newcomm, i, ierr)
    call chk(i == rank - 1, 'comm_create rank')
    call MPI_COMM_FREE(newcomm, ierr)
  end if
  call MPI_GROUP_FREE(group, ierr)
  call MPI_GROUP_FREE(sgroup, ierr)
  call MPI_GROUP_FREE(wgroup, ierr)
  call MPI_COMM_SPLIT(MPI_COMM_WORLD, mod(rank, 2), -rank, newcomm, ierr)
  call MPI_COMM_SIZE(newcomm, n, ierr)
  call MPI_COMM_RANK(newcomm, i, ierr)
  call chk(n == (np + 1 - mod(rank, 2)) / 2 .and. i == (n - 1) - rank / 2, 'comm_split')
  call MPI_COMM_TEST_INTER(newcomm, flag, ierr)
  call chk(.not. flag, 'comm_test_inter')
  call MPI_COMM_FREE(newcomm, ierr)

  ! Cartesian topology with LOGICAL periods.
  dims = 0
  call MPI_DIMS_CREATE(np, 2, dims, ierr)
  call chk(dims(1) * dims(2) == np, 'dims_create')
  periods = [.true., .false.]
  call MPI_CART_CREATE(MPI_COMM_WORLD, 2, dims, periods, .false., cart, ierr)
  call MPI_CART_GET(cart, 2, dims, periods, coords, ierr)
  call chk(periods(1) .and. .not. periods(2), 'cart_get periods')
  call MPI_CART_COORDS(cart, rank, 2, coords, ierr)
  call MPI_CART_RANK(cart, coords, i, ierr)
  call chk(i == rank, 'cart_rank')
  call MPI_CART_SHIFT(cart, 0, 1, src, dst, ierr)
  call chk(dst == mod(coords(1) + 1, dims(1)) * dims(2) + coords(2), 'cart_shift periodic')
  call MPI_CART_SHIFT(cart, 1, 1, src, dst, ierr)
  if (coords(2) == dims(2) - 1) call chk(dst == MPI_PROC_NULL, 'cart_shift edge')
  remain = [.false., .true.]
  call MPI_CART_SUB(cart, remain, sub, ierr)
  call MPI_COMM_SIZE(sub, n, ierr)
  call chk(n == dims(2), 'cart_sub')
  call MPI_CARTDIM_GET(cart, ncart, ierr)
  call chk(ncart == 2, 'cartdim_get')
  call MPI_TOPO_TEST(cart, i, ierr)
  call chk(i == MPI_CART, 'topo_test')
  call MPI_COMM_FREE(sub, ierr)
  call MPI_COMM_FREE(cart, ierr)

  call MPI_BARRIER(MPI_COMM_WORLD, ierr)
  if (rank == 0) print '(A)', 'f_misc: ok'
  call MPI_FINALIZE(ierr)
end program fmisc
