! FT-MPI from Fortran (spec/ft-semantics.md), run at np 4 in MANUAL recovery
! mode with the communicator mode the launcher gives (REBUILD or SHRINK):
! rank 2 SIGKILLs itself; the survivors see MPI_ERR_OTHER through
! MPI_ERRORS_RETURN, read FTMPI_NUM_FAILED_PROCS and FTMPI_ERROR_FAILURE,
! recover with MPI_COMM_DUP(MPI_COMM_WORLD), and check the new world (REBUILD:
! size 4, the respawned rank 2 got MPI_INIT_RESTARTED_NODE; SHRINK: size 3,
! rank 3 became 2) by communicating over it.
program fft
  use mpi
  use, intrinsic :: iso_c_binding, only: c_int
  implicit none
  interface
    integer(c_int) function c_raise(sig) bind(C, name='raise')
      import :: c_int
      integer(c_int), value :: sig
    end function c_raise
  end interface
  integer, parameter :: victim = 2
  integer :: ierr, rc, rank, rank0, np, np0, mode, nfailed, errcode, cls, x, total, newcomm, length, i
  integer :: st(MPI_STATUS_SIZE)
  logical :: flag, restarted
  character(len=MPI_MAX_ERROR_STRING) :: msg

  call MPI_INIT(rc)
  restarted = rc == MPI_INIT_RESTARTED_NODE
  call chk(rc == MPI_SUCCESS .or. restarted, 'MPI_INIT')
  call MPI_ERRHANDLER_SET(MPI_COMM_WORLD, MPI_ERRORS_RETURN, ierr)
  call MPI_ATTR_GET(MPI_COMM_WORLD, FTMPI_COMM_MODE, mode, flag, ierr)
  call chk(flag .and. (mode == FTMPI_COMM_MODE_REBUILD .or. mode == FTMPI_COMM_MODE_SHRINK), &
           'run with --ft-comm-mode=rebuild or shrink')
  call MPI_ATTR_GET(MPI_COMM_WORLD, FTMPI_RECOVERY_MODE, x, flag, ierr)
  call chk(flag .and. x == FTMPI_RECOVERY_MODE_MANUAL, 'recovery mode MANUAL')
  call MPI_COMM_RANK(MPI_COMM_WORLD, rank0, ierr)
  call MPI_COMM_SIZE(MPI_COMM_WORLD, np0, ierr)
  call chk(np0 == 4, 'run at np 4')
  call chk(.not. restarted .or. (mode == FTMPI_COMM_MODE_REBUILD .and. rank0 == victim), &
           'only the REBUILD victim is restarted')

  if (.not. restarted) then
    call MPI_ALLREDUCE(1, total, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
    call chk(ierr == MPI_SUCCESS .and. total == np0, 'allreduce before the failure')
    ! The victim may leave the allreduce before its last message reached
    ! every peer; dying then would fail their allreduce (a dead rank's
    ! messages are discarded). It dies once each peer says it is through.
    if (rank0 /= victim) then
      call MPI_SEND(rank0, 1, MPI_INTEGER, victim, 98, MPI_COMM_WORLD, ierr)
      call chk(ierr == MPI_SUCCESS, 'send to the victim before the failure')
    else
      do i = 1, np0 - 1
        call MPI_RECV(x, 1, MPI_INTEGER, MPI_ANY_SOURCE, 98, MPI_COMM_WORLD, st, ierr)
        call chk(ierr == MPI_SUCCESS, 'the victim hears every peer')
      end do
    end if
    if (rank0 == victim) then
      call flush(6)
      x = c_raise(9_c_int)
      call chk(.false., 'still alive after SIGKILL')
    end if
    ! Nothing is ever sent with tag 99: only the failure ends this receive.
    call MPI_RECV(x, 1, MPI_INTEGER, victim, 99, MPI_COMM_WORLD, st, ierr)
    call MPI_ERROR_CLASS(ierr, cls, rc)
    call chk(cls == MPI_ERR_OTHER, 'a receive from the dead rank gives MPI_ERR_OTHER')
    call MPI_ATTR_GET(MPI_COMM_WORLD, FTMPI_NUM_FAILED_PROCS, nfailed, flag, ierr)
    call chk(flag .and. nfailed == 1, 'FTMPI_NUM_FAILED_PROCS = 1')
    call MPI_ATTR_GET(MPI_COMM_WORLD, FTMPI_ERROR_FAILURE, errcode, flag, ierr)
    call chk(flag, 'FTMPI_ERROR_FAILURE is set')
    call MPI_ERROR_STRING(errcode, msg, length, ierr)
    call chk(ierr == MPI_SUCCESS .and. length > 0, 'FTMPI_ERROR_FAILURE has a message')
    ! Until the recovery, communication is refused.
    call MPI_SEND(x, 1, MPI_INTEGER, 0, 1, MPI_COMM_WORLD, ierr)
    call MPI_ERROR_CLASS(ierr, cls, rc)
    call chk(cls == MPI_ERR_OTHER, 'send before the recovery gives MPI_ERR_OTHER')
    call MPI_COMM_DUP(MPI_COMM_WORLD, newcomm, ierr)
    call chk(ierr == MPI_SUCCESS, 'recovery by MPI_COMM_DUP(MPI_COMM_WORLD)')
  end if

  call MPI_COMM_SIZE(MPI_COMM_WORLD, np, ierr)
  call MPI_COMM_RANK(MPI_COMM_WORLD, rank, ierr)
  if (mode == FTMPI_COMM_MODE_REBUILD) then
    call chk(np == np0 .and. rank == rank0, 'REBUILD keeps size and ranks')
  else
    call chk(np == np0 - 1, 'SHRINK closes the hole')
    call chk(rank == merge(rank0 - 1, rank0, rank0 > victim), 'SHRINK renumbers')
  end if
  call MPI_ALLREDUCE(rank0, total, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  call chk(ierr == MPI_SUCCESS, 'allreduce after the recovery')
  if (mode == FTMPI_COMM_MODE_REBUILD) then
    call chk(total == np0 * (np0 - 1) / 2, 'sum over the rebuilt world')
  else
    call chk(total == np0 * (np0 - 1) / 2 - victim, 'sum over the shrunk world')
  end if
  call MPI_SENDRECV(rank0, 1, MPI_INTEGER, mod(rank + 1, np), 5, x, 1, MPI_INTEGER, &
                    mod(rank + np - 1, np), 5, MPI_COMM_WORLD, st, ierr)
  call chk(ierr == MPI_SUCCESS .and. st(MPI_SOURCE) == mod(rank + np - 1, np), 'ring after the recovery')
  call MPI_BARRIER(MPI_COMM_WORLD, ierr)
  if (rank == 0) print '(A,I0)', 'f_ft: ok, world size ', np
  call MPI_FINALIZE(ierr)
end program fft
