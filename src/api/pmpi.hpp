// Every MPI function is defined under its PMPI_ name; the MPI_ name is a weak
// alias, so a profiling library's own MPI_Send takes precedence and reaches
// ours through PMPI_Send (MPI-1.2 chapter 8). Library-internal calls always
// use the PMPI_ names so that they are not counted as user calls.
#pragma once

#define FTMPI_WEAK_ALIAS(name, target) _Pragma(FTMPI_STR(weak name = target))
#define FTMPI_STR(x) #x
