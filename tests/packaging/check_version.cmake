# FTMPI_VERSION in mpi.h equals the CMake project version. Args: HEADER EXPECTED.
include(${CMAKE_CURRENT_LIST_DIR}/common.cmake)
file(STRINGS ${HEADER} line REGEX "^#define FTMPI_VERSION ")
if(NOT line MATCHES "^#define FTMPI_VERSION \"([^\"]*)\"$")
  message(FATAL_ERROR "no FTMPI_VERSION string in ${HEADER}")
endif()
expect_equal("FTMPI_VERSION in mpi.h" "${CMAKE_MATCH_1}" "${EXPECTED}")
