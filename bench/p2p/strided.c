/* Strided data: every other double of an 8 MiB array (a vector of 512 Ki
 * doubles, 4 MiB of data). Written against MPI-1.2 calls that Open MPI and
 * MPICH still provide, so the same source builds with all three libraries.
 * Ranks 0 and 1 do the work; other ranks only start and finalize. Output lines
 * (rank 0), each the median of the timed iterations in milliseconds:
 *   pack <ms>          MPI_Pack of the vector into a contiguous buffer
 *   unpack <ms>        MPI_Unpack back into the vector layout
 *   vec_vec <ms>       one message, vector type on both sides (half a round trip)
 *   vec_contig <ms>    one message, vector on one side, contiguous doubles on the other
 *   contig <ms>        the same 4 MiB as contiguous doubles on both sides (reference)
 * Iterations per metric are calibrated to about `target` seconds (argv[1]). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define N (1 << 20) /* doubles in the array: 8 MiB */
#define MAXIT 2000

static int rank;
static MPI_Comm pair; /* ranks 0 and 1 */

static int cmp(const void* a, const void* b) {
  double x = *(const double*)a, y = *(const double*)b;
  return x < y ? -1 : x > y;
}

static double median(double* t, int n) {
  qsort(t, (size_t)n, sizeof *t, cmp);
  return n % 2 ? t[n / 2] : 0.5 * (t[n / 2 - 1] + t[n / 2]);
}

/* Rank 0 decides, rank 1 follows. */
static int agree(int n) {
  MPI_Bcast(&n, 1, MPI_INT, 0, pair);
  return n;
}

static int calibrate(double per_iter, double target) {
  int n = per_iter > 0 ? (int)(target / per_iter) : MAXIT;
  return n < 5 ? 5 : n > MAXIT ? MAXIT : n;
}

typedef void (*step_fn)(void);

static double *arr, *packed;
static MPI_Datatype vec;
static int packed_bytes;

static void do_pack(void) {
  int pos = 0;
  MPI_Pack(arr, 1, vec, packed, packed_bytes, &pos, MPI_COMM_SELF);
}

static void do_unpack(void) {
  int pos = 0;
  MPI_Unpack(packed, packed_bytes, &pos, arr, 1, vec, MPI_COMM_SELF);
}

/* Half round trips: 0 -> 1 with (stype on 0, rtype on 1), then back. */
static MPI_Datatype s_type, r_type;
static int s_count, r_count;
static void do_pingpong(void) {
  void* sb = s_type == vec ? (void*)arr : (void*)packed;
  void* rb = r_type == vec ? (void*)arr : (void*)packed;
  if (rank == 0) {
    MPI_Send(sb, s_count, s_type, 1, 1, MPI_COMM_WORLD);
    MPI_Recv(sb, s_count, s_type, 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  } else {
    MPI_Recv(rb, r_count, r_type, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Send(rb, r_count, r_type, 0, 1, MPI_COMM_WORLD);
  }
}

/* Median milliseconds of `fn` (per message for ping-pongs: divide by 2). */
static double measure(step_fn fn, double target, int both, double scale) {
  static double t[MAXIT];
  if (both) MPI_Barrier(pair);
  fn(); /* warm-up: page faults, connections */
  double t0 = MPI_Wtime();
  fn();
  int iters = agree(calibrate(MPI_Wtime() - t0, target));
  for (int i = 0; i < iters; ++i) {
    if (both) MPI_Barrier(pair);
    double a = MPI_Wtime();
    fn();
    t[i] = (MPI_Wtime() - a) * 1e3 * scale;
  }
  return median(t, iters);
}

int main(int argc, char** argv) {
  int size;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  double target = argc > 1 ? atof(argv[1]) : 0.5;
  if (size < 2) {
    if (rank == 0) fprintf(stderr, "strided: needs 2 ranks\n");
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  arr = malloc(sizeof(double) * N);
  packed = malloc(sizeof(double) * N / 2);
  for (int i = 0; i < N; ++i) arr[i] = i;
  MPI_Type_vector(N / 2, 1, 2, MPI_DOUBLE, &vec);
  MPI_Type_commit(&vec);
  MPI_Pack_size(1, vec, MPI_COMM_SELF, &packed_bytes);
  if (packed_bytes > (int)(sizeof(double) * N / 2)) { /* some MPIs add slack */
    free(packed);
    packed = malloc((size_t)packed_bytes);
  }

  double r_pack = 0, r_unpack = 0, r_vv = 0, r_vc = 0, r_cc = 0;
  MPI_Comm_split(MPI_COMM_WORLD, rank < 2 ? 0 : MPI_UNDEFINED, rank, &pair);
  if (rank < 2) {
    /* pack / unpack: both ranks do it (rank 1 only to follow the iteration
     * count rank 0 broadcasts); rank 0 reports. */
    r_pack = measure(do_pack, target, 0, 1.0);
    /* check the packed stream once */
    for (int i = 0; i < N / 2; ++i)
      if (packed[i] != 2.0 * i) {
        fprintf(stderr, "strided: packed element %d is %g\n", i, packed[i]);
        MPI_Abort(MPI_COMM_WORLD, 2);
      }
    r_unpack = measure(do_unpack, target, 0, 1.0);
  }
  if (rank < 2) {
    s_type = vec, s_count = 1, r_type = vec, r_count = 1;
    r_vv = measure(do_pingpong, target, 1, 0.5);
    s_type = vec, s_count = 1, r_type = MPI_DOUBLE, r_count = N / 2;
    r_vc = measure(do_pingpong, target, 1, 0.5);
    if (rank == 1)
      for (int i = 0; i < N / 2; ++i)
        if (packed[i] != 2.0 * i) {
          fprintf(stderr, "strided: received element %d is %g\n", i, packed[i]);
          MPI_Abort(MPI_COMM_WORLD, 2);
        }
    s_type = MPI_DOUBLE, s_count = N / 2, r_type = MPI_DOUBLE, r_count = N / 2;
    r_cc = measure(do_pingpong, target, 1, 0.5);
    MPI_Comm_free(&pair);
  }
  if (rank == 0) {
    printf("pack %.3f\nunpack %.3f\nvec_vec %.3f\nvec_contig %.3f\ncontig %.3f\n", r_pack, r_unpack, r_vv, r_vc,
           r_cc);
    fflush(stdout);
  }
  MPI_Type_free(&vec);
  free(arr);
  free(packed);
  MPI_Finalize();
  return 0;
}
