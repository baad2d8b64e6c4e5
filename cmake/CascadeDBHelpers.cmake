# Copyright 2026 The CascadeDB Authors. Licensed under the Apache License 2.0.
#
# Build helpers shared by the library, tests, benchmarks and tools.

# Sanitizers apply to everything we compile and link, so set them globally.
if(CASCADEDB_SANITIZE)
  string(REPLACE "," ";" _cascadedb_sanitizers "${CASCADEDB_SANITIZE}")
  foreach(_s IN LISTS _cascadedb_sanitizers)
    if(NOT _s MATCHES "^(address|undefined|thread|leak)$")
      message(FATAL_ERROR "CASCADEDB_SANITIZE: unknown sanitizer '${_s}' "
                          "(expected address, undefined, thread or leak)")
    endif()
  endforeach()
  add_compile_options(-fsanitize=${CASCADEDB_SANITIZE} -fno-omit-frame-pointer
                      -fno-sanitize-recover=all)
  add_link_options(-fsanitize=${CASCADEDB_SANITIZE})
endif()

# cascadedb_target_warnings(target): our warning policy, never applied to
# imported targets.
function(cascadedb_target_warnings target)
  target_compile_options(${target} PRIVATE -Wall -Wextra)
  if(CASCADEDB_WERROR)
    target_compile_options(${target} PRIVATE -Werror)
  endif()
  if(CMAKE_CXX_COMPILER_ID MATCHES "Clang")
    target_compile_options(${target} PRIVATE -Wthread-safety)
  endif()
endfunction()
