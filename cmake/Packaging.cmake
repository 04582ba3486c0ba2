# How users build against ftmpi: mpicc/mpicxx wrappers (build tree and
# install tree), mpirun/mpiexec symlinks, install rules, a pkg-config file and
# a CMake package (find_package(ftmpi) -> ftmpi::ftmpi). Included at the end
# of the top-level CMakeLists.txt, after every target exists, so that the
# rules below can ask which of ftmpi, ftmpi_static, ftmpirun, ftmpid are built.
#
# Every installed file locates the prefix relative to itself (the wrappers
# from their own path, ftmpi.pc through ${pcfiledir}, the CMake package
# through PACKAGE_PREFIX_DIR), so `cmake --install --prefix X` and a moved
# installation both work without reconfiguring.
include(CMakePackageConfigHelpers)

set(_pkg_dir ${CMAKE_BINARY_DIR}/packaging)
set(FTMPI_VERSION ${PROJECT_VERSION})
if(NOT DEFINED FTMPI_BUILD_BINDIR)
  set(FTMPI_BUILD_BINDIR ${CMAKE_BINARY_DIR}/bin)
endif()
if(NOT DEFINED FTMPI_BUILD_LIBDIR)
  set(FTMPI_BUILD_LIBDIR ${CMAKE_BINARY_DIR}/lib)
endif()
file(MAKE_DIRECTORY ${FTMPI_BUILD_BINDIR} ${_pkg_dir})

# What a program linked against libftmpi.a needs besides it: the library is
# C++ and uses libcrypto (HMAC handshake) and threads. The shared library
# records these itself, so only static links name them.
set(FTMPI_STATIC_LINK_LIBS "-lcrypto -lstdc++ -lm -ldl -lpthread")
if(TARGET ftmpi_static)
  set(FTMPI_WRAPPER_HAVE_STATIC 1)
else()
  set(FTMPI_WRAPPER_HAVE_STATIC 0)
endif()

# An install-tree path relative to the prefix when it is relative (then the
# installed files compute it at run time from ${base}), else as given.
function(_ftmpi_prefixed out base dir)
  if(IS_ABSOLUTE "${dir}")
    set(${out} "${dir}" PARENT_SCOPE)
  else()
    set(${out} "${base}/${dir}" PARENT_SCOPE)
  endif()
endfunction()

# --- mpicc / mpicxx / mpif90 ---------------------------------------------------
set(FTMPI_WRAPPER_STATIC_LIBS "${FTMPI_STATIC_LINK_LIBS}")
set(_wrapper_langs C CXX)
if(TARGET ftmpi_fortran)
  list(APPEND _wrapper_langs Fortran)
endif()
foreach(_lang ${_wrapper_langs})
  set(FTMPI_WRAPPER_LANG ${_lang})
  set(FTMPI_WRAPPER_LIBS "-lftmpi")
  set(FTMPI_WRAPPER_LIBNAMES "ftmpi")
  set(FTMPI_WRAPPER_STATIC_BINDING "")
  set(FTMPI_WRAPPER_EXTRA_INCDIR "")
  if(_lang STREQUAL "C")
    set(FTMPI_WRAPPER_NAME mpicc)
    set(FTMPI_WRAPPER_ENV FTMPI_CC)
    set(FTMPI_WRAPPER_DEFAULT cc)
  elseif(_lang STREQUAL "CXX")
    set(FTMPI_WRAPPER_NAME mpicxx)
    set(FTMPI_WRAPPER_ENV FTMPI_CXX)
    set(FTMPI_WRAPPER_DEFAULT c++)
  else()
    # The bindings follow gfortran's calling convention, so the default is
    # the compiler the library was built with (by name: installs move).
    set(FTMPI_WRAPPER_NAME mpif90)
    set(FTMPI_WRAPPER_ENV FTMPI_FC)
    get_filename_component(FTMPI_WRAPPER_DEFAULT ${CMAKE_Fortran_COMPILER} NAME)
    if(CMAKE_Fortran_COMPILER_ID STREQUAL "GNU")
      set(FTMPI_WRAPPER_DEFAULT gfortran)
    endif()
    set(FTMPI_WRAPPER_LIBS "-lftmpi_fortran -lftmpi")
    set(FTMPI_WRAPPER_LIBNAMES "ftmpi_fortran ftmpi")
    if(TARGET ftmpi_fortran_static)
      set(FTMPI_WRAPPER_STATIC_BINDING "\$libdir/libftmpi_fortran.a ")
    endif()
  endif()

  # Build tree: headers from the source tree, libraries from the build tree.
  set(FTMPI_WRAPPER_RELOCATABLE 0)
  set(FTMPI_WRAPPER_BIN_TO_PREFIX "")
  set(FTMPI_WRAPPER_INCDIR ${PROJECT_SOURCE_DIR}/include)
  set(FTMPI_WRAPPER_LIBDIR ${FTMPI_BUILD_LIBDIR})
  if(_lang STREQUAL "Fortran")
    set(FTMPI_WRAPPER_EXTRA_INCDIR ${FTMPI_FORTRAN_INCDIR})
  endif()
  configure_file(${PROJECT_SOURCE_DIR}/tools/wrappers/mpicc.in
                 ${FTMPI_BUILD_BINDIR}/${FTMPI_WRAPPER_NAME} @ONLY
                 FILE_PERMISSIONS OWNER_READ OWNER_WRITE OWNER_EXECUTE
                                  GROUP_READ GROUP_EXECUTE WORLD_READ WORLD_EXECUTE)

  # Install tree: relocatable unless the user gave absolute install dirs.
  if(IS_ABSOLUTE "${CMAKE_INSTALL_BINDIR}")
    set(FTMPI_WRAPPER_RELOCATABLE 0)
    set(FTMPI_WRAPPER_INCDIR ${CMAKE_INSTALL_FULL_INCLUDEDIR})
    set(FTMPI_WRAPPER_LIBDIR ${CMAKE_INSTALL_FULL_LIBDIR})
  else()
    set(FTMPI_WRAPPER_RELOCATABLE 1)
    file(RELATIVE_PATH FTMPI_WRAPPER_BIN_TO_PREFIX /p/${CMAKE_INSTALL_BINDIR} /p)
    _ftmpi_prefixed(FTMPI_WRAPPER_INCDIR "$prefix" "${CMAKE_INSTALL_INCLUDEDIR}")
    _ftmpi_prefixed(FTMPI_WRAPPER_LIBDIR "$prefix" "${CMAKE_INSTALL_LIBDIR}")
  endif()
  set(FTMPI_WRAPPER_EXTRA_INCDIR "")
  configure_file(${PROJECT_SOURCE_DIR}/tools/wrappers/mpicc.in
                 ${_pkg_dir}/install/${FTMPI_WRAPPER_NAME} @ONLY
                 FILE_PERMISSIONS OWNER_READ OWNER_WRITE OWNER_EXECUTE
                                  GROUP_READ GROUP_EXECUTE WORLD_READ WORLD_EXECUTE)
  install(PROGRAMS ${_pkg_dir}/install/${FTMPI_WRAPPER_NAME}
          DESTINATION ${CMAKE_INSTALL_BINDIR})
endforeach()

# Relative symlinks: valid in the build tree and, installed as symlinks by
# install(FILES), in the install tree. The Open MPI spelling mpic++ is free.
set(_ftmpi_links "mpic++:mpicxx")
if(TARGET ftmpi_fortran)
  list(APPEND _ftmpi_links "mpif77:mpif90" "mpifort:mpif90")
endif()
if(TARGET ftmpirun)
  list(APPEND _ftmpi_links "mpirun:ftmpirun" "mpiexec:ftmpirun")
endif()
foreach(_pair IN LISTS _ftmpi_links)
  string(REPLACE ":" ";" _pair "${_pair}")
  list(GET _pair 0 _link)
  list(GET _pair 1 _target)
  file(CREATE_LINK ${_target} ${FTMPI_BUILD_BINDIR}/${_link} SYMBOLIC)
  file(CREATE_LINK ${_target} ${_pkg_dir}/install/${_link} SYMBOLIC)
  install(FILES ${_pkg_dir}/install/${_link} DESTINATION ${CMAKE_INSTALL_BINDIR})
endforeach()

# --- install rules -------------------------------------------------------------
install(FILES ${PROJECT_SOURCE_DIR}/include/mpi.h ${PROJECT_SOURCE_DIR}/include/ftmpi_mpi23.h
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
if(TARGET ftmpi_fortran)
  # mpif.h and mpi.mod next to mpi.h: one -I serves C and Fortran.
  install(FILES ${FTMPI_FORTRAN_INCDIR}/mpif.h ${FTMPI_FORTRAN_INCDIR}/mpi.mod
          DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
endif()
foreach(_lib ftmpi ftmpi_static ftmpi_fortran ftmpi_fortran_static)
  if(NOT TARGET ${_lib})
    continue()
  endif()
  get_target_property(_imported ${_lib} IMPORTED)
  if(_imported)
    # libftmpi.a is merged from the module archives by a custom command (src/api).
    get_target_property(_loc ${_lib} IMPORTED_LOCATION)
    install(FILES ${_loc} DESTINATION ${CMAKE_INSTALL_LIBDIR})
  else()
    install(TARGETS ${_lib}
            LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
            ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR})
  endif()
endforeach()
foreach(_exe ftmpirun ftmpid)
  if(TARGET ${_exe})
    install(TARGETS ${_exe} RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
  endif()
endforeach()

# --- pkg-config ------------------------------------------------------------------
set(_pc_dir ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
if(IS_ABSOLUTE "${_pc_dir}")
  set(FTMPI_PC_PREFIX ${CMAKE_INSTALL_PREFIX})
else()
  file(RELATIVE_PATH _pc_to_prefix /p/${_pc_dir} /p)
  string(REGEX REPLACE "/$" "" _pc_to_prefix "${_pc_to_prefix}")
  set(FTMPI_PC_PREFIX "\${pcfiledir}/${_pc_to_prefix}")
endif()
_ftmpi_prefixed(FTMPI_PC_LIBDIR "\${prefix}" "${CMAKE_INSTALL_LIBDIR}")
_ftmpi_prefixed(FTMPI_PC_INCLUDEDIR "\${prefix}" "${CMAKE_INSTALL_INCLUDEDIR}")
configure_file(${PROJECT_SOURCE_DIR}/cmake/ftmpi.pc.in ${_pkg_dir}/ftmpi.pc @ONLY)
install(FILES ${_pkg_dir}/ftmpi.pc DESTINATION ${_pc_dir})
if(TARGET ftmpi_fortran)
  configure_file(${PROJECT_SOURCE_DIR}/cmake/ftmpi-fortran.pc.in ${_pkg_dir}/ftmpi-fortran.pc @ONLY)
  install(FILES ${_pkg_dir}/ftmpi-fortran.pc DESTINATION ${_pc_dir})
endif()

# --- CMake package -------------------------------------------------------------
# Hand-written imported targets instead of install(EXPORT): the exported form
# would drag the internal module libraries (and their build-tree include
# paths) into the package; users need only the library and mpi.h.
set(_cmake_dir ${CMAKE_INSTALL_LIBDIR}/cmake/ftmpi)
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/ftmpiConfig.cmake.in
  ${_pkg_dir}/ftmpiConfig.cmake
  INSTALL_DESTINATION ${_cmake_dir}
  PATH_VARS CMAKE_INSTALL_INCLUDEDIR CMAKE_INSTALL_LIBDIR)
write_basic_package_version_file(${_pkg_dir}/ftmpiConfigVersion.cmake
  VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion)
install(FILES ${_pkg_dir}/ftmpiConfig.cmake ${_pkg_dir}/ftmpiConfigVersion.cmake
        DESTINATION ${_cmake_dir})

if(FTMPI_BUILD_TESTS AND EXISTS ${PROJECT_SOURCE_DIR}/tests/packaging/CMakeLists.txt)
  add_subdirectory(${PROJECT_SOURCE_DIR}/tests/packaging ${CMAKE_BINARY_DIR}/tests/packaging)
endif()
