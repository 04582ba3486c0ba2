# ftmpi_module(NAME <name> SOURCES ... DEPS ...)
# One static, position-independent library per layer module. DEPS lists the
# only modules it may use; tools/check_layers.py enforces the same graph on
# #include lines, so a forbidden edge fails both the link and the test suite.
function(ftmpi_module)
  cmake_parse_arguments(M "" "NAME" "SOURCES;DEPS;LIBS" ${ARGN})
  add_library(ftmpi_${M_NAME} STATIC ${M_SOURCES})
  target_include_directories(ftmpi_${M_NAME} PUBLIC ${PROJECT_SOURCE_DIR}/src ${PROJECT_SOURCE_DIR}/include)
  foreach(d ${M_DEPS})
    target_link_libraries(ftmpi_${M_NAME} PUBLIC ftmpi_${d})
  endforeach()
  if(M_LIBS)
    target_link_libraries(ftmpi_${M_NAME} PUBLIC ${M_LIBS})
  endif()
  set_target_properties(ftmpi_${M_NAME} PROPERTIES CXX_VISIBILITY_PRESET hidden VISIBILITY_INLINES_HIDDEN ON)
endfunction()

# ftmpi_unit_test(NAME <name> SOURCES ... DEPS ...): a GoogleTest binary registered with CTest.
function(ftmpi_unit_test)
  cmake_parse_arguments(T "" "NAME" "SOURCES;DEPS" ${ARGN})
  add_executable(${T_NAME} ${T_SOURCES})
  foreach(d ${T_DEPS})
    target_link_libraries(${T_NAME} PRIVATE ftmpi_${d})
  endforeach()
  target_link_libraries(${T_NAME} PRIVATE GTest::gtest GTest::gtest_main)
  set_target_properties(${T_NAME} PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/tests/unit)
  add_test(NAME unit.${T_NAME} COMMAND ${T_NAME})
  set_tests_properties(unit.${T_NAME} PROPERTIES TIMEOUT 120 LABELS unit)
endfunction()
