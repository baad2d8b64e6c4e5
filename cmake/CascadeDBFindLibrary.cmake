# Copyright 2026 The CascadeDB Authors. Licensed under the Apache License 2.0.
#
# cascadedb_find_library(<Package> <header> <library> <target>): the body of
# our small Find modules for Debian packages that ship no CMake config (or one
# we do not want to depend on). Defines <Package>_FOUND and the imported
# <target>.
include(FindPackageHandleStandardArgs)
macro(cascadedb_find_library pkg header lib target)
  find_path(${pkg}_INCLUDE_DIR ${header})
  find_library(${pkg}_LIBRARY NAMES ${lib})
  find_package_handle_standard_args(${pkg}
    REQUIRED_VARS ${pkg}_LIBRARY ${pkg}_INCLUDE_DIR)
  if(${pkg}_FOUND AND NOT TARGET ${target})
    add_library(${target} UNKNOWN IMPORTED)
    set_target_properties(${target} PROPERTIES
      IMPORTED_LOCATION "${${pkg}_LIBRARY}"
      INTERFACE_INCLUDE_DIRECTORIES "${${pkg}_INCLUDE_DIR}")
  endif()
  mark_as_advanced(${pkg}_INCLUDE_DIR ${pkg}_LIBRARY)
endmacro()
