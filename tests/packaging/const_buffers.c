/* A program that keeps its input data const (as C and C++ code written
 * against MPI-3 does) compiles without a warning: every input buffer and
 * input array of the C API takes const. Compiled, not run, by
 * check_header.cmake as C89..C11 and C++98/C++20 with -Wall -Wextra
 * -pedantic -Werror (a const pointer passed to a non-const parameter is a
 * warning in C and an error in C++). */
#include <mpi.h>

int pass_const(MPI_Comm comm, MPI_Request *reqs, MPI_Status *st);
int pass_const(MPI_Comm comm, MPI_Request *reqs, MPI_Status *st) {
  static const double in[8] = {1, 2, 3, 4, 5, 6, 7, 8};
  static const int counts[2] = {1, 1}, displs[2] = {0, 1}, ranks[1] = {0};
  static const int dims[2] = {1, 1}, periods[2] = {0, 0}, coords[2] = {0, 0};
  static const int index[1] = {0}, edges[1] = {0}, lens[2] = {1, 1};
  static const MPI_Aint adispl[2] = {0, 8};
  static const MPI_Datatype types[2] = {MPI_DOUBLE, MPI_DOUBLE};
  static const char key[] = "key", value[] = "value", name[] = "name";
  const MPI_Status *cst = st;
  double out[8];
  char packed[64];
  int pos = 0, n = 0, rc = 0;
  MPI_Datatype t;
  MPI_Group g = MPI_GROUP_EMPTY, g2;
  MPI_Comm c2;
  MPI_Info info = MPI_INFO_NULL;
  MPI_Aint addr;
  rc |= MPI_Send(in, 1, MPI_DOUBLE, 0, 0, comm);
  rc |= MPI_Bsend(in, 1, MPI_DOUBLE, 0, 0, comm);
  rc |= MPI_Ssend(in, 1, MPI_DOUBLE, 0, 0, comm);
  rc |= MPI_Rsend(in, 1, MPI_DOUBLE, 0, 0, comm);
  rc |= MPI_Isend(in, 1, MPI_DOUBLE, 0, 0, comm, &reqs[0]);
  rc |= MPI_Issend(in, 1, MPI_DOUBLE, 0, 0, comm, &reqs[0]);
  rc |= MPI_Send_init(in, 1, MPI_DOUBLE, 0, 0, comm, &reqs[0]);
  rc |= PMPI_Send(in, 1, MPI_DOUBLE, 0, 0, comm);
  rc |= MPI_Sendrecv(in, 1, MPI_DOUBLE, 0, 0, out, 1, MPI_DOUBLE, 0, 0, comm, st);
  rc |= MPI_Get_count(cst, MPI_DOUBLE, &n);
  rc |= MPI_Get_elements(cst, MPI_DOUBLE, &n);
  rc |= MPI_Test_cancelled(cst, &n);
  rc |= MPI_Pack(in, 2, MPI_DOUBLE, packed, (int)sizeof packed, &pos, comm);
  pos = 0;
  rc |= MPI_Unpack((const void *)packed, (int)sizeof packed, &pos, out, 2, MPI_DOUBLE, comm);
  rc |= MPI_Type_indexed(2, lens, counts, MPI_DOUBLE, &t);
  rc |= MPI_Type_hindexed(2, lens, adispl, MPI_DOUBLE, &t);
  rc |= MPI_Type_struct(2, lens, adispl, types, &t);
  rc |= MPI_Type_create_struct(2, lens, adispl, types, &t);
  rc |= MPI_Type_create_darray(1, 0, 2, dims, counts, counts, dims, MPI_ORDER_C, MPI_DOUBLE, &t);
  rc |= MPI_Address(in, &addr);
  rc |= MPI_Get_address(in, &addr);
  rc |= MPI_Bcast(out, 1, MPI_DOUBLE, 0, comm);
  rc |= MPI_Gather(in, 1, MPI_DOUBLE, out, 1, MPI_DOUBLE, 0, comm);
  rc |= MPI_Gatherv(in, 1, MPI_DOUBLE, out, counts, displs, MPI_DOUBLE, 0, comm);
  rc |= MPI_Scatter(in, 1, MPI_DOUBLE, out, 1, MPI_DOUBLE, 0, comm);
  rc |= MPI_Scatterv(in, counts, displs, MPI_DOUBLE, out, 1, MPI_DOUBLE, 0, comm);
  rc |= MPI_Allgather(in, 1, MPI_DOUBLE, out, 1, MPI_DOUBLE, comm);
  rc |= MPI_Allgatherv(in, 1, MPI_DOUBLE, out, counts, displs, MPI_DOUBLE, comm);
  rc |= MPI_Alltoall(in, 1, MPI_DOUBLE, out, 1, MPI_DOUBLE, comm);
  rc |= MPI_Alltoallv(in, counts, displs, MPI_DOUBLE, out, counts, displs, MPI_DOUBLE, comm);
  rc |= MPI_Alltoallw(in, counts, displs, types, out, counts, displs, types, comm);
  rc |= MPI_Reduce(in, out, 1, MPI_DOUBLE, MPI_SUM, 0, comm);
  rc |= MPI_Allreduce(in, out, 1, MPI_DOUBLE, MPI_SUM, comm);
  rc |= MPI_Reduce_scatter(in, out, counts, MPI_DOUBLE, MPI_SUM, comm);
  rc |= MPI_Reduce_scatter_block(in, out, 1, MPI_DOUBLE, MPI_SUM, comm);
  rc |= MPI_Scan(in, out, 1, MPI_DOUBLE, MPI_SUM, comm);
  rc |= MPI_Exscan(in, out, 1, MPI_DOUBLE, MPI_SUM, comm);
  rc |= MPI_Reduce_local(in, out, 1, MPI_DOUBLE, MPI_SUM);
  rc |= MPI_Iallreduce(in, out, 1, MPI_DOUBLE, MPI_SUM, comm, &reqs[1]);
  rc |= MPI_Ialltoallv(in, counts, displs, MPI_DOUBLE, out, counts, displs, MPI_DOUBLE, comm, &reqs[1]);
  rc |= MPI_Group_incl(g, 1, ranks, &g2);
  rc |= MPI_Group_excl(g, 1, ranks, &g2);
  rc |= MPI_Group_translate_ranks(g, 1, ranks, g2, &n);
  rc |= MPI_Cart_create(comm, 2, dims, periods, 0, &c2);
  rc |= MPI_Cart_rank(c2, coords, &n);
  rc |= MPI_Cart_sub(c2, periods, &c2);
  rc |= MPI_Cart_map(comm, 2, dims, periods, &n);
  rc |= MPI_Graph_create(comm, 1, index, edges, 0, &c2);
  rc |= MPI_Graph_map(comm, 1, index, edges, &n);
  rc |= MPI_Info_set(info, key, value);
  rc |= MPI_Comm_set_name(comm, name);
  return rc;
}
