! Point-to-point from a fixed-form program with include 'mpif.h': status
! arrays (aligned and not), MPI_STATUS_IGNORE / MPI_STATUSES_IGNORE, 1-based
! indices from WAITANY / WAITSOME / TESTSOME, LOGICAL flags, probe, every
! send mode, persistent requests, the optional sized datatypes.
      PROGRAM FP2P
      IMPLICIT NONE
      INCLUDE 'mpif.h'
      INTEGER RANK, NP, IERR, I, K, NEXT, PREV, CNT, IDX, OUTCNT
      INTEGER ST(MPI_STATUS_SIZE), STS(MPI_STATUS_SIZE, 16)
      INTEGER REQS(16), INDICES(16), IBUF(64), JBUF(64)
      INTEGER PAD, ODD(MPI_STATUS_SIZE, 2)
      COMMON /FODD/ PAD, ODD
      DOUBLE PRECISION DBUF(10), RBUF(10)
      INTEGER*8 I8(3), J8(3)
      REAL*8 R8(2), S8(2)
      INTEGER BSBUF(1000), BSIZE
! Buffers of persistent requests are read and written by MPI_STARTALL and
! MPI_WAITALL, which do not name them: in a common block the compiler must
! assume any call reads and writes them.
      INTEGER PSEND, PRECV
      COMMON /FPERS/ PSEND, PRECV
      LOGICAL FLAG
      CALL MPI_INIT(IERR)
      CALL CHKERR(IERR, 'init')
      CALL MPI_INITIALIZED(FLAG, IERR)
      CALL CHK(FLAG, 'MPI_INITIALIZED gives .TRUE.')
      CALL MPI_COMM_RANK(MPI_COMM_WORLD, RANK, IERR)
      CALL MPI_COMM_SIZE(MPI_COMM_WORLD, NP, IERR)
      CALL PMPI_COMM_RANK(MPI_COMM_WORLD, I, IERR)
      CALL CHK(I .EQ. RANK .AND. IERR .EQ. MPI_SUCCESS, 'PMPI_ name')
      NEXT = MOD(RANK + 1, NP)
      PREV = MOD(RANK + NP - 1, NP)

! Blocking ring with a full status.
      DO I = 1, 10
        DBUF(I) = RANK * 100 + I
        RBUF(I) = -1
      END DO
      CALL MPI_SEND(DBUF, 10, MPI_DOUBLE_PRECISION, NEXT, 7,
     &  MPI_COMM_WORLD, IERR)
      CALL MPI_RECV(RBUF, 10, MPI_DOUBLE_PRECISION, MPI_ANY_SOURCE,
     &  7, MPI_COMM_WORLD, ST, IERR)
      CALL CHKERR(IERR, 'recv')
      CALL CHK(ST(MPI_SOURCE) .EQ. PREV, 'status source')
      CALL CHK(ST(MPI_TAG) .EQ. 7, 'status tag')
      CALL MPI_GET_COUNT(ST, MPI_DOUBLE_PRECISION, CNT, IERR)
      CALL CHK(CNT .EQ. 10, 'get_count 10')
      CALL MPI_GET_ELEMENTS(ST, MPI_DOUBLE_PRECISION, CNT, IERR)
      CALL CHK(CNT .EQ. 10, 'get_elements 10')
      DO I = 1, 10
        CALL CHK(RBUF(I) .EQ. PREV * 100 + I, 'ring payload')
      END DO

! Everyone to everyone, statuses in an array (ODD: misaligned copy path).
      K = 0
      DO I = 0, NP - 1
        IF (I .NE. RANK) THEN
          K = K + 1
          CALL MPI_IRECV(JBUF(I + 1), 1, MPI_INTEGER, I, 100 + I,
     &      MPI_COMM_WORLD, REQS(K), IERR)
        END IF
      END DO
      DO I = 0, NP - 1
        IF (I .NE. RANK) THEN
          IBUF(I + 1) = RANK * 1000 + I
          K = K + 1
          CALL MPI_ISEND(IBUF(I + 1), 1, MPI_INTEGER, I, 100 + RANK,
     &      MPI_COMM_WORLD, REQS(K), IERR)
        END IF
      END DO
      CALL MPI_WAITALL(K, REQS, STS, IERR)
      CALL CHKERR(IERR, 'waitall')
      K = 0
      DO I = 0, NP - 1
        IF (I .NE. RANK) THEN
          K = K + 1
          CALL CHK(STS(MPI_SOURCE, K) .EQ. I, 'waitall source')
          CALL CHK(STS(MPI_TAG, K) .EQ. 100 + I, 'waitall tag')
          CALL CHK(JBUF(I + 1) .EQ. I * 1000 + RANK, 'waitall data')
          CALL CHK(REQS(K) .EQ. MPI_REQUEST_NULL, 'request freed')
        END IF
      END DO
      CALL MPI_IRECV(JBUF, 2, MPI_INTEGER, PREV, 5, MPI_COMM_WORLD,
     &  REQS(1), IERR)
      CALL MPI_IRECV(JBUF(3), 2, MPI_INTEGER, NEXT, 6,
     &  MPI_COMM_WORLD, REQS(2), IERR)
      IBUF(1) = RANK
      IBUF(2) = -RANK
      CALL MPI_SEND(IBUF, 2, MPI_INTEGER, NEXT, 5, MPI_COMM_WORLD, IERR)
      CALL MPI_SEND(IBUF, 2, MPI_INTEGER, PREV, 6, MPI_COMM_WORLD, IERR)
      CALL MPI_WAITALL(2, REQS, ODD, IERR)
      CALL CHK(ODD(MPI_SOURCE, 1) .EQ. PREV, 'odd status 1')
      CALL CHK(ODD(MPI_SOURCE, 2) .EQ. NEXT, 'odd status 2')
      CALL CHK(ODD(MPI_TAG, 2) .EQ. 6, 'odd tag 2')
      CALL CHK(JBUF(1) .EQ. PREV .AND. JBUF(4) .EQ. -NEXT, 'odd data')

! WAITANY gives a 1-based index; MPI_STATUS_IGNORE is accepted.
      CALL MPI_IRECV(JBUF, 1, MPI_INTEGER, PREV, 8, MPI_COMM_WORLD,
     &  REQS(1), IERR)
      CALL MPI_IRECV(JBUF(2), 1, MPI_INTEGER, PREV, 9, MPI_COMM_WORLD,
     &  REQS(2), IERR)
      CALL MPI_SEND(RANK, 1, MPI_INTEGER, NEXT, 9, MPI_COMM_WORLD, IERR)
      CALL MPI_WAITANY(2, REQS, IDX, ST, IERR)
      CALL CHK(IDX .EQ. 2, 'waitany index is 1-based')
      CALL CHK(ST(MPI_TAG) .EQ. 9, 'waitany status')
      CALL MPI_BARRIER(MPI_COMM_WORLD, IERR)
      CALL MPI_SEND(RANK, 1, MPI_INTEGER, NEXT, 8, MPI_COMM_WORLD, IERR)
      CALL MPI_WAIT(REQS(1), MPI_STATUS_IGNORE, IERR)
! Recognised by address: nothing was written into the placeholder.
      CALL CHK(MPI_STATUS_IGNORE(MPI_TAG) .EQ. 0 .AND.
     &  MPI_STATUS_IGNORE(MPI_SOURCE) .EQ. 0, 'MPI_STATUS_IGNORE')
      CALL CHK(JBUF(1) .EQ. PREV .AND. JBUF(2) .EQ. PREV, 'any data')
      CALL MPI_WAITANY(2, REQS, IDX, ST, IERR)
      CALL CHK(IDX .EQ. MPI_UNDEFINED, 'waitany on null requests')

! WAITSOME / TESTSOME indices; TEST and IPROBE flags are LOGICAL.
      CALL MPI_IRECV(JBUF, 1, MPI_INTEGER, PREV, 11, MPI_COMM_WORLD,
     &  REQS(1), IERR)
      CALL MPI_IRECV(JBUF(2), 1, MPI_INTEGER, PREV, 12,
     &  MPI_COMM_WORLD, REQS(2), IERR)
      CALL MPI_TESTSOME(2, REQS, OUTCNT, INDICES, STS, IERR)
      CALL MPI_TEST(REQS(2), FLAG, ST, IERR)
      CALL CHK(.NOT. FLAG, 'test before the send')
      CALL MPI_BARRIER(MPI_COMM_WORLD, IERR)
      CALL MPI_SEND(RANK, 1, MPI_INTEGER, NEXT, 12, MPI_COMM_WORLD,
     &  IERR)
      CALL MPI_WAITSOME(2, REQS, OUTCNT, INDICES, STS, IERR)
      CALL CHK(OUTCNT .EQ. 1 .AND. INDICES(1) .EQ. 2, 'waitsome')
      CALL CHK(STS(MPI_TAG, 1) .EQ. 12, 'waitsome status')
      CALL MPI_BARRIER(MPI_COMM_WORLD, IERR)
      CALL MPI_SEND(RANK, 1, MPI_INTEGER, NEXT, 11, MPI_COMM_WORLD,
     &  IERR)
      CALL MPI_SEND(RANK, 1, MPI_INTEGER, NEXT, 21, MPI_COMM_WORLD,
     &  IERR)
      FLAG = .FALSE.
      DO WHILE (.NOT. FLAG)
        CALL MPI_IPROBE(MPI_ANY_SOURCE, 21, MPI_COMM_WORLD, FLAG, ST,
     &    IERR)
      END DO
      CALL CHK(ST(MPI_SOURCE) .EQ. PREV, 'iprobe status')
      CALL MPI_RECV(JBUF(3), 1, MPI_INTEGER, PREV, 21, MPI_COMM_WORLD,
     &  MPI_STATUS_IGNORE, IERR)
      OUTCNT = 0
      DO WHILE (OUTCNT .EQ. 0)
        CALL MPI_TESTSOME(2, REQS, OUTCNT, INDICES, MPI_STATUSES_IGNORE,
     &    IERR)
      END DO
      CALL CHK(OUTCNT .EQ. 1 .AND. INDICES(1) .EQ. 1, 'testsome')
      CALL MPI_TESTALL(2, REQS, FLAG, STS, IERR)
      CALL CHK(FLAG, 'testall on null requests')

! PROBE then a receive of the probed size; SENDRECV_REPLACE.
      DO I = 1, 5
        IBUF(I) = RANK + I
      END DO
      CALL MPI_SEND(IBUF, RANK + 1, MPI_INTEGER, NEXT, 13,
     &  MPI_COMM_WORLD, IERR)
      CALL MPI_PROBE(MPI_ANY_SOURCE, 13, MPI_COMM_WORLD, ST, IERR)
      CALL MPI_GET_COUNT(ST, MPI_INTEGER, CNT, IERR)
      CALL CHK(CNT .EQ. PREV + 1, 'probed count')
      CALL MPI_RECV(JBUF, CNT, MPI_INTEGER, ST(MPI_SOURCE), 13,
     &  MPI_COMM_WORLD, MPI_STATUS_IGNORE, IERR)
      CALL CHK(JBUF(CNT) .EQ. PREV + CNT, 'probed data')
      IBUF(1) = RANK
      CALL MPI_SENDRECV_REPLACE(IBUF, 1, MPI_INTEGER, NEXT, 14, PREV,
     &  14, MPI_COMM_WORLD, ST, IERR)
      CALL CHK(IBUF(1) .EQ. PREV, 'sendrecv_replace')

! Synchronous, ready (after a barrier) and buffered sends.
      CALL MPI_IRECV(JBUF, 1, MPI_INTEGER, PREV, 15, MPI_COMM_WORLD,
     &  REQS(1), IERR)
      CALL MPI_IRECV(JBUF(2), 1, MPI_INTEGER, PREV, 16,
     &  MPI_COMM_WORLD, REQS(2), IERR)
      CALL MPI_IRECV(JBUF(3), 1, MPI_INTEGER, PREV, 17,
     &  MPI_COMM_WORLD, REQS(3), IERR)
      CALL MPI_BARRIER(MPI_COMM_WORLD, IERR)
      CALL MPI_RSEND(RANK, 1, MPI_INTEGER, NEXT, 16, MPI_COMM_WORLD,
     &  IERR)
      CALL MPI_BUFFER_ATTACH(BSBUF, 4000, IERR)
      CALL CHKERR(IERR, 'buffer_attach')
      CALL MPI_BSEND(RANK, 1, MPI_INTEGER, NEXT, 17, MPI_COMM_WORLD,
     &  IERR)
      CALL CHKERR(IERR, 'bsend')
      CALL MPI_SSEND(RANK, 1, MPI_INTEGER, NEXT, 15, MPI_COMM_WORLD,
     &  IERR)
      CALL MPI_WAITALL(3, REQS, MPI_STATUSES_IGNORE, IERR)
      CALL CHK(MPI_STATUSES_IGNORE(MPI_TAG, 1) .EQ. 0,
     &  'MPI_STATUSES_IGNORE')
      CALL MPI_BUFFER_DETACH(BSBUF, BSIZE, IERR)
      CALL CHK(BSIZE .EQ. 4000, 'buffer_detach size')
      DO I = 1, 3
        CALL CHK(JBUF(I) .EQ. PREV, 'send modes')
      END DO

! Persistent requests, twice.
      CALL MPI_SEND_INIT(PSEND, 1, MPI_INTEGER, NEXT, 18,
     &  MPI_COMM_WORLD, REQS(1), IERR)
      CALL MPI_RECV_INIT(PRECV, 1, MPI_INTEGER, PREV, 18,
     &  MPI_COMM_WORLD, REQS(2), IERR)
      DO K = 1, 2
        PSEND = RANK * 10 + K
        CALL MPI_STARTALL(2, REQS, IERR)
        CALL MPI_WAITALL(2, REQS, STS, IERR)
        CALL CHK(PRECV .EQ. PREV * 10 + K, 'persistent data')
        CALL CHK(STS(MPI_SOURCE, 2) .EQ. PREV, 'persistent status')
      END DO
      CALL MPI_REQUEST_FREE(REQS(1), IERR)
      CALL MPI_REQUEST_FREE(REQS(2), IERR)
      CALL CHK(REQS(1) .EQ. MPI_REQUEST_NULL, 'request_free')

! The optional sized types.
      I8(1) = 5000000000_8 + RANK
      I8(2) = -7
      I8(3) = RANK
      R8(1) = 0.5D0 * RANK
      R8(2) = 1.0D300
      CALL MPI_SENDRECV(I8, 3, MPI_INTEGER8, NEXT, 19, J8, 3,
     &  MPI_INTEGER8, PREV, 19, MPI_COMM_WORLD, ST, IERR)
      CALL CHK(J8(1) .EQ. 5000000000_8 + PREV .AND. J8(3) .EQ. PREV,
     &  'integer8')
      CALL MPI_GET_COUNT(ST, MPI_INTEGER8, CNT, IERR)
      CALL CHK(CNT .EQ. 3, 'integer8 count')
      CALL MPI_SENDRECV(R8, 2, MPI_REAL8, NEXT, 20, S8, 2, MPI_REAL8,
     &  PREV, 20, MPI_COMM_WORLD, ST, IERR)
      CALL CHK(S8(1) .EQ. 0.5D0 * PREV .AND. S8(2) .EQ. 1.0D300,
     &  'real8')

      CALL MPI_BARRIER(MPI_COMM_WORLD, IERR)
      IF (RANK .EQ. 0) PRINT '(A)', 'f_p2p: ok'
      CALL MPI_FINALIZE(IERR)
      END
