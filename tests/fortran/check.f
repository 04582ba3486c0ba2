! CHK(COND, WHAT): a failed check prints where and why, then ends the
! whole job with MPI_ABORT (the Fortran twin of tests/mpi/common/check.h).
! CHKERR(IERR, WHAT): the same for an MPI return code.
      SUBROUTINE CHK(COND, WHAT)
      IMPLICIT NONE
      INCLUDE 'mpif.h'
      LOGICAL COND
      CHARACTER*(*) WHAT
      INTEGER RANK, IERR
      IF (.NOT. COND) THEN
        CALL MPI_COMM_RANK(MPI_COMM_WORLD, RANK, IERR)
        WRITE (*, '(A,I3,A,A)') 'CHECK FAILED on rank ', RANK,
     &    ': ', WHAT
        CALL FLUSH(6)
        CALL MPI_ABORT(MPI_COMM_WORLD, 3, IERR)
      END IF
      END

      SUBROUTINE CHKERR(IERR, WHAT)
      IMPLICIT NONE
      INCLUDE 'mpif.h'
      INTEGER IERR
      CHARACTER*(*) WHAT
      CALL CHK(IERR .EQ. MPI_SUCCESS, WHAT)
      END
