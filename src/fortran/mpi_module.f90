! The `mpi` module of MPI-1.2 programs that say `use mpi`: the constants and
! declarations of mpif.h (generated from mpi.h) and nothing more, so a
! module user and an mpif.h user see the same names and common blocks. The
! subroutines have implicit interfaces, as with mpif.h: choice buffers of
! any type and rank need no explicit interface.
module mpi
  implicit none
  include 'mpif.h'
end module mpi
