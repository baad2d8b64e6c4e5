# Copyright 2026 The CascadeDB Authors. Licensed under the Apache License 2.0.
#
# install() rules: the library, the public headers, an exported CMake package
# (find_package(CascadeDB) -> CascadeDB::cascadedb) and cascadedb.pc.
include(CMakePackageConfigHelpers)

set(CASCADEDB_CMAKE_DIR "${CMAKE_INSTALL_LIBDIR}/cmake/CascadeDB")

install(TARGETS cascadedb EXPORT CascadeDBTargets
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
  RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR}
  INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(DIRECTORY include/cascadedb DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(EXPORT CascadeDBTargets NAMESPACE CascadeDB::
  DESTINATION ${CASCADEDB_CMAKE_DIR})

configure_package_config_file(cmake/CascadeDBConfig.cmake.in
  "${PROJECT_BINARY_DIR}/CascadeDBConfig.cmake"
  INSTALL_DESTINATION ${CASCADEDB_CMAKE_DIR})
write_basic_package_version_file(
  "${PROJECT_BINARY_DIR}/CascadeDBConfigVersion.cmake"
  COMPATIBILITY SameMinorVersion)
# A static libcascadedb needs its compression libraries at the consumer's link
# step, so the Find modules travel with the package config.
install(FILES
  "${PROJECT_BINARY_DIR}/CascadeDBConfig.cmake"
  "${PROJECT_BINARY_DIR}/CascadeDBConfigVersion.cmake"
  cmake/CascadeDBFindLibrary.cmake
  cmake/FindSnappy.cmake
  cmake/Findlz4.cmake
  cmake/Findzstd.cmake
  DESTINATION ${CASCADEDB_CMAKE_DIR})

if(BUILD_SHARED_LIBS)
  set(CASCADEDB_PC_PRIVATE_LIBS "")
  set(CASCADEDB_PC_LIBS_PRIVATE "-lsnappy -llz4 -lzstd -pthread")
else()
  set(CASCADEDB_PC_LIBS_PRIVATE "")
  set(CASCADEDB_PC_PRIVATE_LIBS "-lsnappy -llz4 -lzstd -pthread")
endif()
# The .pc file finds its prefix relative to itself (${pcfiledir}), so the
# installed tree stays usable when installed with `cmake --install --prefix`.
file(RELATIVE_PATH CASCADEDB_PC_TO_PREFIX
     "/${CMAKE_INSTALL_LIBDIR}/pkgconfig" "/")
string(REGEX REPLACE "/$" "" CASCADEDB_PC_TO_PREFIX "${CASCADEDB_PC_TO_PREFIX}")
configure_file(cmake/cascadedb.pc.in "${PROJECT_BINARY_DIR}/cascadedb.pc" @ONLY)
install(FILES "${PROJECT_BINARY_DIR}/cascadedb.pc"
  DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
