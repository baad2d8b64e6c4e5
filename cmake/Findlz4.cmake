# Copyright 2026 The CascadeDB Authors. Licensed under the Apache License 2.0.
# Finds Debian's liblz4-dev and defines the imported target lz4::lz4.
include(${CMAKE_CURRENT_LIST_DIR}/CascadeDBFindLibrary.cmake)
cascadedb_find_library(lz4 lz4.h lz4 lz4::lz4)
