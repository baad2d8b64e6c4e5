# Copyright 2026 The CascadeDB Authors. Licensed under the Apache License 2.0.
# Finds Debian's libzstd-dev and defines the imported target zstd::zstd.
include(${CMAKE_CURRENT_LIST_DIR}/CascadeDBFindLibrary.cmake)
cascadedb_find_library(zstd zstd.h zstd zstd::zstd)
