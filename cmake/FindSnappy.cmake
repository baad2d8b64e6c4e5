# Copyright 2026 The CascadeDB Authors. Licensed under the Apache License 2.0.
# Finds Debian's libsnappy-dev and defines the imported target Snappy::snappy.
include(${CMAKE_CURRENT_LIST_DIR}/CascadeDBFindLibrary.cmake)
cascadedb_find_library(Snappy snappy.h snappy Snappy::snappy)
