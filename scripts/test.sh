#!/usr/bin/env bash
# Copyright 2026 The CascadeDB Authors. Licensed under the Apache License 2.0.
#
# The whole test suite, as CI runs it (.ci/run calls this script):
#   1. install missing Debian packages (scripts/install-deps.sh)
#   2. Release build, full ctest
#   3. ASan+UBSan build, full ctest
#   4. clang build with -Wthread-safety -Werror (compile only), plus a short
#      libFuzzer run of each fuzz target
# Configuring also fails if any tests/**/*_test.cc is not registered.
# Exits non-zero on the first failure. Build trees go to $CASCADEDB_BUILD_ROOT
# (default: ./build). Set CASCADEDB_TEST_STEPS to a subset of
# "release asan clang" to run only some steps.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
build_root=${CASCADEDB_BUILD_ROOT:-$root/build}
steps=${CASCADEDB_TEST_STEPS:-release asan clang}
jobs=${CASCADEDB_JOBS:-$(nproc)}
fuzz_seconds=${CASCADEDB_FUZZ_SECONDS:-20}

"$root/scripts/install-deps.sh"

banner() { printf '\n==== %s ====\n' "$*"; }
has_step() { [[ " $steps " == *" $1 "* ]]; }
start=$(date +%s)

# configure_and_build <dir> <cmake args...>
configure_and_build() {
  local dir=$1
  shift
  cmake -S "$root" -B "$dir" "$@" >"$dir.configure.log" 2>&1 || {
    cat "$dir.configure.log"
    echo "test.sh: configuring $dir failed" >&2
    exit 1
  }
  cmake --build "$dir" -j "$jobs"
}

run_ctest() {
  local dir=$1
  # ctest prints its summary ("100% tests passed, 0 tests failed out of N").
  (cd "$dir" && ctest --output-on-failure -j "$jobs" --timeout 900)
}

mkdir -p "$build_root"

if has_step release; then
  banner "Release build"
  configure_and_build "$build_root/release" -DCMAKE_BUILD_TYPE=Release
  banner "Release tests"
  run_ctest "$build_root/release"
fi

if has_step asan; then
  banner "ASan+UBSan build"
  configure_and_build "$build_root/asan" -DCMAKE_BUILD_TYPE=Debug \
    -DCMAKE_CXX_FLAGS_DEBUG="-g -O1" -DCASCADEDB_SANITIZE=address,undefined \
    -DCASCADEDB_BUILD_BENCHMARKS=OFF
  banner "ASan+UBSan tests"
  ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 \
    UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
    run_ctest "$build_root/asan"
fi

if has_step clang; then
  banner "clang -Wthread-safety build (compile only)"
  CC=clang CXX=clang++ configure_and_build "$build_root/clang" \
    -DCMAKE_BUILD_TYPE=Debug -DCASCADEDB_FUZZ=ON
  for fuzzer in "$build_root"/clang/tests/fuzz/*_fuzzer; do
    [[ -x "$fuzzer" ]] || continue
    banner "fuzz $(basename "$fuzzer") for ${fuzz_seconds}s"
    corpus="$build_root/clang/$(basename "$fuzzer")-corpus"
    mkdir -p "$corpus"
    "$fuzzer" -max_total_time="$fuzz_seconds" -print_final_stats=1 "$corpus" \
      2>&1 | tail -n 15
  done
fi

banner "all steps passed in $(( $(date +%s) - start ))s: $steps"
