# The Fortran side of packaging: mpif90 (and its mpif77 / mpifort links) in
# BIN_DIR print the right flags and build mpif.h and `use mpi` programs that
# link libftmpi_fortran from LIBDIR; with PREFIX (an installed tree) also
# pkg-config ftmpi-fortran, find_package(ftmpi) -> ftmpi::ftmpi_fortran and
# CMake's FindMPI with Fortran pointed at our mpif90.
# Args: BIN_DIR INCDIRS (list) LIBDIR FC CC SOURCE_DIR WORK_DIR STATIC(0/1)
#       [PREFIX REL_LIBDIR GENERATOR]
include(${CMAKE_CURRENT_LIST_DIR}/common.cmake)
fresh_dir(${WORK_DIR})
set(clean ${CMAKE_COMMAND} -E env --unset=FTMPI_FC)
set(compile "")
foreach(dir IN LISTS INCDIRS)
  string(APPEND compile " -I${dir}")
endforeach()
string(STRIP "${compile}" compile)
set(link "-L${LIBDIR} -Wl,-rpath,${LIBDIR} -lftmpi_fortran -lftmpi")

run(out ${clean} ${BIN_DIR}/mpif90 -showme:compile)
expect_equal("mpif90 -showme:compile" "${out}" "${compile}")
run(out ${clean} ${BIN_DIR}/mpif90 -showme:link)
expect_equal("mpif90 -showme:link" "${out}" "${link}")
run(out ${clean} ${BIN_DIR}/mpif90 -showme:libs)
expect_equal("mpif90 -showme:libs" "${out}" "ftmpi_fortran ftmpi")
run(out ${clean} ${BIN_DIR}/mpif90 -show a.f90)
expect_equal("mpif90 -show a.f90" "${out}" "gfortran ${compile} a.f90 ${link}")
foreach(name mpif77 mpifort)
  run(out ${clean} ${BIN_DIR}/${name} -show a.f)
  expect_equal("${name} -show a.f" "${out}" "gfortran ${compile} a.f ${link}")
endforeach()
run(out ${clean} FTMPI_FC=myfc ${BIN_DIR}/mpif90 -show -c a.f90)
expect_equal("FTMPI_FC=myfc mpif90 -show -c" "${out}" "myfc ${compile} -c a.f90")
run(out ${clean} ${BIN_DIR}/mpif90 -show -static a.f)
if(STATIC)
  expect_equal("mpif90 -show -static a.f" "${out}"
    "gfortran ${compile} -static a.f ${LIBDIR}/libftmpi_fortran.a ${LIBDIR}/libftmpi.a -lcrypto -lstdc++ -lm -ldl -lpthread")
endif()

set(fc_env ${clean} FTMPI_FC=${FC})
run(out ${fc_env} ${BIN_DIR}/mpif77 ${SOURCE_DIR}/hello.f -o ${WORK_DIR}/hello_f77)
run(out ${fc_env} ${BIN_DIR}/mpif90 ${SOURCE_DIR}/hello_mod.f90 -J ${WORK_DIR} -o ${WORK_DIR}/hello_f90)
run(dyn readelf -d ${WORK_DIR}/hello_f90)
expect_contains("dynamic section of hello_f90" "${dyn}" "libftmpi_fortran.so")
expect_contains("dynamic section of hello_f90" "${dyn}" "[${LIBDIR}]")
if(STATIC)
  run(out ${fc_env} ${BIN_DIR}/mpifort -static ${SOURCE_DIR}/hello.f -o ${WORK_DIR}/hello_static)
  run(dyn readelf -d ${WORK_DIR}/hello_static)
  expect_not_contains("dynamic section of hello_static" "${dyn}" "libftmpi")
endif()

if(NOT PREFIX)
  return()
endif()
# pkg-config
set(pc ${CMAKE_COMMAND} -E env PKG_CONFIG_PATH=${PREFIX}/${REL_LIBDIR}/pkgconfig pkg-config)
run(cflags ${pc} --cflags ftmpi-fortran)
run(libs ${pc} --libs ftmpi-fortran)
expect_contains("pkg-config --libs ftmpi-fortran" "${libs}" "-lftmpi_fortran")
expect_contains("pkg-config --libs ftmpi-fortran" "${libs}" "-lftmpi")
separate_arguments(cflags UNIX_COMMAND "${cflags}")
separate_arguments(libs UNIX_COMMAND "${libs}")
run(out ${FC} ${cflags} ${SOURCE_DIR}/hello_mod.f90 -J ${WORK_DIR} -o ${WORK_DIR}/hello_pc ${libs})
expect_file(${WORK_DIR}/hello_pc)
# find_package(ftmpi) and find_package(MPI COMPONENTS Fortran)
foreach(kind ftmpi mpi)
  run(out ${CMAKE_COMMAND} -S ${SOURCE_DIR}/consumers/fortran -B ${WORK_DIR}/${kind} -G ${GENERATOR}
      -DCMAKE_Fortran_COMPILER=${FC} -DCMAKE_C_COMPILER=${CC} -DKIND=${kind} -DHELLO_DIR=${SOURCE_DIR}
      -DCMAKE_PREFIX_PATH=${PREFIX} -DMPI_Fortran_COMPILER=${BIN_DIR}/mpif90
      -DEXPECTED_LIB=${PREFIX}/${REL_LIBDIR}/libftmpi_fortran.so)
  run(out ${CMAKE_COMMAND} --build ${WORK_DIR}/${kind})
  expect_file(${WORK_DIR}/${kind}/hello_f77)
  expect_file(${WORK_DIR}/${kind}/hello_f90)
endforeach()
