# Copyright 2026 The CascadeDB Authors. Licensed under the Apache License 2.0.
#
# ctest's install_consumer test: installs the built library into a scratch
# prefix, then builds and runs tests/install/consumer against it twice — once
# through find_package(CascadeDB), once through pkg-config — as a user would.
# Inputs: SOURCE_DIR, BUILD_DIR, WORK_DIR, CXX_COMPILER.

function(run)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc
                  OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    string(REPLACE ";" " " cmd "${ARGN}")
    message(FATAL_ERROR "install test: '${cmd}' failed (${rc}):\n${out}\n${err}")
  endif()
  set(LAST_OUTPUT "${out}" PARENT_SCOPE)
endfunction()

set(prefix ${WORK_DIR}/prefix)
file(REMOVE_RECURSE ${WORK_DIR})
run(${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${prefix})

# 1. CMake consumer.
run(${CMAKE_COMMAND} -S ${SOURCE_DIR}/tests/install/consumer
    -B ${WORK_DIR}/cmake-build -DCMAKE_PREFIX_PATH=${prefix}
    -DCMAKE_CXX_COMPILER=${CXX_COMPILER} -DCMAKE_BUILD_TYPE=Release)
run(${CMAKE_COMMAND} --build ${WORK_DIR}/cmake-build)
run(${WORK_DIR}/cmake-build/consumer ${WORK_DIR}/cmake-run)
message(STATUS "find_package consumer: ${LAST_OUTPUT}")

# 2. pkg-config consumer.
find_program(PKG_CONFIG pkg-config REQUIRED)
file(GLOB pc_dirs ${prefix}/lib*/pkgconfig ${prefix}/lib/*/pkgconfig)
set(ENV{PKG_CONFIG_PATH} "${pc_dirs}")
run(${PKG_CONFIG} --cflags --libs cascadedb)
string(STRIP "${LAST_OUTPUT}" flags)
separate_arguments(flags UNIX_COMMAND "${flags}")
run(${CXX_COMPILER} -std=c++17 ${SOURCE_DIR}/tests/install/consumer/main.cc
    -o ${WORK_DIR}/pkgconfig-consumer ${flags})
run(${WORK_DIR}/pkgconfig-consumer ${WORK_DIR}/pkgconfig-run)
message(STATUS "pkg-config consumer: ${LAST_OUTPUT}")
