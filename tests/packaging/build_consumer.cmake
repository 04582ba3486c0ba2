# A user project builds hello.c against the installed PREFIX through one
# route. Args: KIND (pkgconfig | ftmpi | mpi | mpi_home) PREFIX REL_BINDIR REL_INCDIR REL_LIBDIR
# VERSION RUNTIME(0/1) CC CXX GENERATOR SOURCE_DIR WORK_DIR
include(${CMAKE_CURRENT_LIST_DIR}/common.cmake)
fresh_dir(${WORK_DIR})

if(KIND STREQUAL "pkgconfig")
  set(pc ${CMAKE_COMMAND} -E env PKG_CONFIG_PATH=${PREFIX}/${REL_LIBDIR}/pkgconfig pkg-config)
  run(version ${pc} --modversion ftmpi)
  expect_equal("pkg-config --modversion ftmpi" "${version}" "${VERSION}")
  run(cflags ${pc} --cflags ftmpi)
  run(libs ${pc} --libs ftmpi)
  run(static_libs ${pc} --static --libs ftmpi)
  expect_contains("pkg-config --static --libs" "${static_libs}" "-lcrypto")
  # ${pcfiledir} yields paths like <prefix>/lib/pkgconfig/../../include.
  if(NOT cflags MATCHES "^-I([^ ]+)$")
    message(FATAL_ERROR "unexpected pkg-config --cflags: '${cflags}'")
  endif()
  file(REAL_PATH "${CMAKE_MATCH_1}" incdir)
  file(REAL_PATH "${PREFIX}/${REL_INCDIR}" want_incdir)
  expect_equal("pkg-config include dir" "${incdir}" "${want_incdir}")
  if(NOT libs MATCHES "^-L([^ ]+) -lftmpi$")
    message(FATAL_ERROR "unexpected pkg-config --libs: '${libs}'")
  endif()
  file(REAL_PATH "${CMAKE_MATCH_1}" libdir)
  file(REAL_PATH "${PREFIX}/${REL_LIBDIR}" want_libdir)
  expect_equal("pkg-config library dir" "${libdir}" "${want_libdir}")
  separate_arguments(cflags UNIX_COMMAND "${cflags}")
  separate_arguments(libs UNIX_COMMAND "${libs}")
  run(out ${CC} ${cflags} ${SOURCE_DIR}/hello.c -o ${WORK_DIR}/hello_pc ${libs})
  expect_file(${WORK_DIR}/hello_pc)
  return()
endif()

if(KIND STREQUAL "ftmpi")
  set(args -DCMAKE_PREFIX_PATH=${PREFIX} -DEXPECTED_VERSION=${VERSION})
elseif(KIND STREQUAL "mpi")
  # FindMPI looks for mpiexec before and apart from the compiler (PATH,
  # MPI_HOME), so with only the compiler given it may pick the system's.
  set(args -DMPI_C_COMPILER=${PREFIX}/${REL_BINDIR}/mpicc
           -DMPI_CXX_COMPILER=${PREFIX}/${REL_BINDIR}/mpicxx -DEXPECT_MPIEXEC=0)
elseif(KIND STREQUAL "mpi_home")
  # MPI_HOME alone: FindMPI finds our mpiexec, then the wrappers beside it.
  set(KIND mpi)
  set(args -DMPI_HOME=${PREFIX} -DEXPECT_MPIEXEC=${RUNTIME})
else()
  message(FATAL_ERROR "unknown KIND '${KIND}'")
endif()
run(out ${CMAKE_COMMAND} -S ${SOURCE_DIR}/consumers/${KIND} -B ${WORK_DIR} -G ${GENERATOR}
    -DCMAKE_C_COMPILER=${CC} -DCMAKE_CXX_COMPILER=${CXX} -DHELLO_DIR=${SOURCE_DIR}
    -DEXPECTED_INCDIR=${PREFIX}/${REL_INCDIR}
    -DEXPECTED_LIBDIR=${PREFIX}/${REL_LIBDIR} -DEXPECTED_BINDIR=${PREFIX}/${REL_BINDIR} ${args})
run(out ${CMAKE_COMMAND} --build ${WORK_DIR})
expect_file(${WORK_DIR}/hello)
