! The same with the `mpi` module.
program hello_mod
  use mpi
  implicit none
  integer :: rank, ierr, st(MPI_STATUS_SIZE)
  call MPI_INIT(ierr)
  call MPI_COMM_RANK(MPI_COMM_WORLD, rank, ierr)
  print *, 'rank', rank, MPI_WTIME() >= 0d0
  call MPI_FINALIZE(ierr)
end program hello_mod
