# mpi.h compiles warning-free as C89/C99/C11 and C++98/C++20 and pins the
# values others rely on (header_usage.c). Args: CC CXX INCLUDE_DIR SOURCE.
include(${CMAKE_CURRENT_LIST_DIR}/common.cmake)
set(flags -Wall -Wextra -pedantic -Werror -I${INCLUDE_DIR} -c ${SOURCE} -o /dev/null)
foreach(std c89 c99 c11)
  run(out ${CC} -std=${std} ${flags})
endforeach()
foreach(std c++98 c++20)
  run(out ${CXX} -x c++ -std=${std} ${flags})
endforeach()
