/* Diskless checkpoints encoded with Reed-Solomon (Intel ISA-L) across the
 * processes of MPI_COMM_WORLD: k data ranks (0..k-1) each hold their own
 * block, m checksum ranks (k..k+m-1) each hold one Reed-Solomon parity block
 * of the k data blocks. Any m lost blocks can be rebuilt from the others.
 *
 * Both encoding and decoding are "every source multiplies its block by a
 * GF(2^8) coefficient, and the products are XORed together at the target",
 * i.e. ec_encode_data_update() followed by MPI_Reduce(MPI_BXOR): addition in
 * GF(2^8) is XOR, and ISA-L does the multiplications.
 *
 * Every process keeps two versions (v % 2 picks the buffer): a version is
 * only overwritten once every process completed the next one, so whatever a
 * failure interrupts, the survivors still share one complete version. */
#ifndef CG_CHECKPOINT_H
#define CG_CHECKPOINT_H
#include <mpi.h>
#include <stddef.h>

typedef struct {
  int k, m;             /* data ranks 0..k-1, checksum ranks k..k+m-1 of MPI_COMM_WORLD */
  int me;               /* my rank in MPI_COMM_WORLD */
  int len;              /* bytes per block, the same everywhere */
  int next;             /* the version the next ckpt_encode makes */
  int held[2];          /* version complete in buf[0] / buf[1]; -1: none */
  unsigned char* buf[2];     /* my block (data rank) or parity block (checksum rank), version v in buf[v % 2] */
  unsigned char* zero;       /* what a process that has nothing to add contributes */
  unsigned char** products;  /* m scratch blocks: my share of each target */
  unsigned char* matrix;     /* (k+m) x k encoding matrix: identity, then m Cauchy rows */
  unsigned char* enc_tables; /* ISA-L tables for the m parity rows */
} Checkpoint;

/* What the last ckpt_restore found and did (for the report). */
typedef struct {
  int version;   /* the version everybody rolls back to; -1: none, start over */
  int nlost;     /* processes that held nothing (restarted, or never checkpointed) */
  int lost[64];  /* their ranks (the first 64) */
  int rebuilt;   /* data blocks decoded */
  int too_many;  /* more blocks lost than checksum blocks left */
} RestoreReport;

/* len: bytes of a data block (rounded up to a multiple of 8 here). Needs
 * 1 <= k, 0 <= m, k + m <= 256. Returns 0, or -1 on a bad geometry. */
int ckpt_init(Checkpoint* ck, int k, int m, int me, size_t len);
void ckpt_free(Checkpoint* ck);

/* Where a data rank puts its state for the next ckpt_encode (the buffer is
 * no longer counted as holding its older version from now on). */
unsigned char* ckpt_begin(Checkpoint* ck);

/* Collective over MPI_COMM_WORLD: encode version ck->next, which the data
 * ranks filled through ckpt_begin (checksum ranks call ckpt_begin too, then
 * receive). Ends with a barrier: no process starts the version after (which
 * overwrites the one before) until every process holds this one. */
int ckpt_encode(Checkpoint* ck);

/* Collective over MPI_COMM_WORLD, after every start and every recovery:
 * agree on the newest version that every process still holding one holds,
 * and rebuild the blocks of the data ranks that hold nothing (restarted
 * processes) from the other data blocks and the parity. A checksum rank that
 * lost its parity gets it back at the next ckpt_encode. report->version is
 * -1 when nothing can be restored (no checkpoint yet, or more blocks lost
 * than parity blocks left): the application starts over. */
int ckpt_restore(Checkpoint* ck, RestoreReport* report);

/* A data rank's block of the version ckpt_restore chose. */
const unsigned char* ckpt_restored(const Checkpoint* ck, const RestoreReport* report);

#endif
