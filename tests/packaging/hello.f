! The smallest Fortran 77 MPI program (include 'mpif.h'); the packaging
! tests compile and link it through mpif77/mpif90/mpifort, pkg-config,
! find_package(ftmpi) and find_package(MPI COMPONENTS Fortran).
      PROGRAM HELLO
      INCLUDE 'mpif.h'
      INTEGER RANK, IERR
      CALL MPI_INIT(IERR)
      CALL MPI_COMM_RANK(MPI_COMM_WORLD, RANK, IERR)
      PRINT *, 'rank', RANK
      CALL MPI_FINALIZE(IERR)
      END
