! Every MPI-1.2 collective from a free-form program with `use mpi`, with
! Fortran types (INTEGER, REAL, DOUBLE PRECISION, COMPLEX, LOGICAL, the pair
! types with MAXLOC/MINLOC) and a reduction operator written in Fortran.
module fcoll_ops
  implicit none
contains
  ! Elementwise a*b+... no: a non-commutative op (2x2 integer matrix
  ! product, matrices stored as 4 INTEGERs), so operand order is checked.
  subroutine matmul2(invec, inoutvec, len, datatype)
    integer :: len, datatype
    integer :: invec(4, len), inoutvec(4, len)
    integer :: i, c(4)
    do i = 1, len
      c(1) = invec(1, i) * inoutvec(1, i) + invec(2, i) * inoutvec(3, i)
      c(2) = invec(1, i) * inoutvec(2, i) + invec(2, i) * inoutvec(4, i)
      c(3) = invec(3, i) * inoutvec(1, i) + invec(4, i) * inoutvec(3, i)
      c(4) = invec(3, i) * inoutvec(2, i) + invec(4, i) * inoutvec(4, i)
      inoutvec(:, i) = c
    end do
  end subroutine matmul2
end module fcoll_ops

program fcoll
  use mpi
  use fcoll_ops
  implicit none
  integer :: rank, np, ierr, i, j, root, op, mtype, total
  integer, allocatable :: sbuf(:), rbuf(:), counts(:), displs(:), rcounts(:), rdispls(:)
  integer :: m(4), mprod(4), expect(4), r4(4)
  real :: rsum
  double precision :: pair(2, 2), pres(2, 2)
  complex :: z, zsum
  logical :: l, land, lor
  call MPI_INIT(ierr)
  call MPI_COMM_RANK(MPI_COMM_WORLD, rank, ierr)
  call MPI_COMM_SIZE(MPI_COMM_WORLD, np, ierr)
  ! At least 3: the broadcasts below send 3 elements (np 1 wrote past 2).
  allocate(sbuf(max(np * np * 2, 3)), rbuf(max(np * np * 2, 3)), counts(np), displs(np), rcounts(np), rdispls(np))

  call MPI_BARRIER(MPI_COMM_WORLD, ierr)
  call chkerr(ierr, 'barrier')

  do root = 0, np - 1
    sbuf(1:3) = merge([root, 2 * root, 3 * root], [-1, -1, -1], rank == root)
    call MPI_BCAST(sbuf, 3, MPI_INTEGER, root, MPI_COMM_WORLD, ierr)
    call chk(all(sbuf(1:3) == [root, 2 * root, 3 * root]), 'bcast')
  end do

  ! GATHER / GATHERV / SCATTER / SCATTERV at root np-1.
  root = np - 1
  sbuf(1:2) = [rank, -rank]
  rbuf = -99
  call MPI_GATHER(sbuf, 2, MPI_INTEGER, rbuf, 2, MPI_INTEGER, root, MPI_COMM_WORLD, ierr)
  if (rank == root) then
    do i = 0, np - 1
      call chk(rbuf(2 * i + 1) == i .and. rbuf(2 * i + 2) == -i, 'gather')
    end do
  end if
  do i = 0, np - 1
    counts(i + 1) = i + 1
    displs(i + 1) = i * (i + 1) / 2 + i   ! one hole after each block
  end do
  sbuf(1:rank + 1) = [(100 * rank + j, j = 1, rank + 1)]
  rbuf = -99
  call MPI_GATHERV(sbuf, rank + 1, MPI_INTEGER, rbuf, counts, displs, MPI_INTEGER, root, &
                   MPI_COMM_WORLD, ierr)
  if (rank == root) then
    do i = 0, np - 1
      do j = 1, i + 1
        call chk(rbuf(displs(i + 1) + j) == 100 * i + j, 'gatherv')
      end do
      call chk(rbuf(displs(i + 1) + i + 2) == -99 .or. i == np - 1, 'gatherv hole')
    end do
  end if
  if (rank == root) sbuf(1:2 * np) = [(j, j = 1, 2 * np)]
  call MPI_SCATTER(sbuf, 2, MPI_INTEGER, r4, 2, MPI_INTEGER, root, MPI_COMM_WORLD, ierr)
  call chk(r4(1) == 2 * rank + 1 .and. r4(2) == 2 * rank + 2, 'scatter')
  if (rank == root) then
    do i = 0, np - 1
      do j = 1, i + 1
        sbuf(displs(i + 1) + j) = 1000 * i + j
      end do
    end do
  end if
  rbuf = -99
  call MPI_SCATTERV(sbuf, counts, displs, MPI_INTEGER, rbuf, rank + 1, MPI_INTEGER, root, &
                    MPI_COMM_WORLD, ierr)
  call chk(all(rbuf(1:rank + 1) == [(1000 * rank + j, j = 1, rank + 1)]), 'scatterv')

  ! ALLGATHER(V), ALLTOALL(V).
  call MPI_ALLGATHER(rank * 7, 1, MPI_INTEGER, rbuf, 1, MPI_INTEGER, MPI_COMM_WORLD, ierr)
  call chk(all(rbuf(1:np) == [(7 * i, i = 0, np - 1)]), 'allgather')
  sbuf(1:rank + 1) = rank
  rbuf = -99
  call MPI_ALLGATHERV(sbuf, rank + 1, MPI_INTEGER, rbuf, counts, displs, MPI_INTEGER, &
                      MPI_COMM_WORLD, ierr)
  do i = 0, np - 1
    call chk(all(rbuf(displs(i + 1) + 1:displs(i + 1) + i + 1) == i), 'allgatherv')
  end do
  do i = 0, np - 1
    sbuf(i + 1) = 100 * rank + i
  end do
  call MPI_ALLTOALL(sbuf, 1, MPI_INTEGER, rbuf, 1, MPI_INTEGER, MPI_COMM_WORLD, ierr)
  call chk(all(rbuf(1:np) == [(100 * i + rank, i = 0, np - 1)]), 'alltoall')
  ! ALLTOALLV: rank r sends j+1 copies of (10*r+j) to rank j.
  total = 0
  do j = 0, np - 1
    counts(j + 1) = j + 1
    displs(j + 1) = total
    sbuf(total + 1:total + j + 1) = 10 * rank + j
    total = total + j + 1
    rcounts(j + 1) = rank + 1
    rdispls(j + 1) = j * (rank + 1)
  end do
  rbuf = -99
  call MPI_ALLTOALLV(sbuf, counts, displs, MPI_INTEGER, rbuf, rcounts, rdispls, MPI_INTEGER, &
                     MPI_COMM_WORLD, ierr)
  do j = 0, np - 1
    call chk(all(rbuf(rdispls(j + 1) + 1:rdispls(j + 1) + rank + 1) == 10 * j + rank), 'alltoallv')
  end do

  ! REDUCE / ALLREDUCE with Fortran types and predefined ops.
  call MPI_REDUCE(rank + 1, total, 1, MPI_INTEGER, MPI_SUM, 0, MPI_COMM_WORLD, ierr)
  if (rank == 0) call chk(total == np * (np + 1) / 2, 'reduce sum')
  call MPI_ALLREDUCE(real(rank) + 0.5, rsum, 1, MPI_REAL, MPI_SUM, MPI_COMM_WORLD, ierr)
  call chk(abs(rsum - (np * (np - 1) / 2.0 + 0.5 * np)) < 1e-5, 'allreduce real')
  z = cmplx(rank, 1)
  call MPI_ALLREDUCE(z, zsum, 1, MPI_COMPLEX, MPI_SUM, MPI_COMM_WORLD, ierr)
  call chk(abs(zsum - cmplx(np * (np - 1) / 2, np)) < 1e-5, 'allreduce complex')
  l = rank == np - 1
  call MPI_ALLREDUCE(l, lor, 1, MPI_LOGICAL, MPI_LOR, MPI_COMM_WORLD, ierr)
  call MPI_ALLREDUCE(l, land, 1, MPI_LOGICAL, MPI_LAND, MPI_COMM_WORLD, ierr)
  call chk(lor .and. (land .eqv. np == 1), 'allreduce logical')
  ! MAXLOC on MPI_2DOUBLE_PRECISION: (value, rank) pairs.
  pair(1, 1) = np - 1 - rank
  pair(2, 1) = rank
  pair(1, 2) = -rank
  pair(2, 2) = rank
  call MPI_ALLREDUCE(pair, pres, 2, MPI_2DOUBLE_PRECISION, MPI_MAXLOC, MPI_COMM_WORLD, ierr)
  call chk(pres(1, 1) == np - 1 .and. pres(2, 1) == 0 .and. pres(1, 2) == 0 .and. pres(2, 2) == 0, 'maxloc')
  call MPI_ALLREDUCE(pair, pres, 2, MPI_2DOUBLE_PRECISION, MPI_MINLOC, MPI_COMM_WORLD, ierr)
  call chk(pres(1, 2) == -(np - 1) .and. pres(2, 2) == np - 1, 'minloc')

  ! REDUCE_SCATTER and SCAN.
  do i = 1, np
    sbuf(2 * i - 1) = rank + i
    sbuf(2 * i) = 1
    counts(i) = 2
  end do
  call MPI_REDUCE_SCATTER(sbuf, r4, counts, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  call chk(r4(1) == np * (np - 1) / 2 + np * (rank + 1) .and. r4(2) == np, 'reduce_scatter')
  call MPI_SCAN(rank + 1, total, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  call chk(total == (rank + 1) * (rank + 2) / 2, 'scan')

  ! A Fortran user op, non-commutative: the product in rank order.
  call MPI_TYPE_CONTIGUOUS(4, MPI_INTEGER, mtype, ierr)
  call MPI_TYPE_COMMIT(mtype, ierr)
  call MPI_OP_CREATE(matmul2, .false., op, ierr)
  call chkerr(ierr, 'op_create')
  m = [1, rank + 1, 0, 1]    ! [[1, r+1], [0, 1]]: products add the upper corners
  call MPI_ALLREDUCE(m, mprod, 1, mtype, op, MPI_COMM_WORLD, ierr)
  call chkerr(ierr, 'allreduce user op')
  expect = [1, np * (np + 1) / 2, 0, 1]
  call chk(all(mprod == expect), 'user op allreduce')
  m = [1, 0, rank + 2, 1] ! lower-triangular: also commute, so check order with a mix
  if (mod(rank, 2) == 1) m = [0, 1, 1, 0]   ! a swap matrix does not commute
  call MPI_REDUCE(m, mprod, 1, mtype, op, 0, MPI_COMM_WORLD, ierr)
  if (rank == 0) then
    expect = [1, 0, 0, 1]
    do i = 0, np - 1   ! left-to-right product m(0) * m(1) * ...
      if (mod(i, 2) == 1) then
        r4 = [0, 1, 1, 0]
      else
        r4 = [1, 0, i + 2, 1]
      end if
      expect = [expect(1) * r4(1) + expect(2) * r4(3), expect(1) * r4(2) + expect(2) * r4(4), &
                expect(3) * r4(1) + expect(4) * r4(3), expect(3) * r4(2) + expect(4) * r4(4)]
    end do
    call chk(all(mprod == expect), 'user op reduce order')
  end if
  call MPI_SCAN(m, mprod, 1, mtype, op, MPI_COMM_WORLD, ierr)
  call chkerr(ierr, 'scan user op')
  call MPI_OP_FREE(op, ierr)
  call chk(op == MPI_OP_NULL, 'op_free')
  call MPI_TYPE_FREE(mtype, ierr)

  call MPI_BARRIER(MPI_COMM_WORLD, ierr)
  if (rank == 0) print '(A)', 'f_coll: ok'
  ! A main program's allocatables are never freed for it (LeakSanitizer's reports).
  deallocate(sbuf, rbuf, counts, displs, rcounts, rdispls)
  call MPI_FINALIZE(ierr)
end program fcoll
