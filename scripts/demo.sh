#!/usr/bin/env bash
# Copyright 2026 The CascadeDB Authors. Licensed under the Apache License 2.0.
#
# The README's first command: see CascadeDB work on this machine.
#   1. installs missing Debian packages (scripts/install-deps.sh)
#   2. builds db_bench in Release mode into build/release
#   3. runs fillrandom, readrandom, overwrite and stats on a fresh database
#      in a temporary directory (about a minute on 2 cores), with a small
#      memtable and small levels so that flushes, compactions and write
#      stalls really happen and write amplification shows
#   4. prints the report, writes the plots, and says where they are
# The database is deleted at the end; the report and plots are kept.
#
# Environment: CASCADEDB_DEMO_NUM (keys, default 4000000),
# CASCADEDB_DEMO_DIR (where to put the run, default a new mktemp -d),
# CASCADEDB_BUILD_ROOT (default ./build), CASCADEDB_JOBS (default nproc).
# Extra arguments are passed to db_bench (e.g. --engine=leveldb).
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
build=${CASCADEDB_BUILD_ROOT:-$root/build}/release
jobs=${CASCADEDB_JOBS:-$(nproc)}
num=${CASCADEDB_DEMO_NUM:-4000000}

"$root/scripts/install-deps.sh"

echo "demo: building db_bench (Release) in $build"
mkdir -p "$build"
cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release \
  >"$build/demo-configure.log" 2>&1 || {
  cat "$build/demo-configure.log"
  echo "demo: configuring failed" >&2
  exit 1
}
cmake --build "$build" -j "$jobs" --target db_bench

work=${CASCADEDB_DEMO_DIR:-$(mktemp -d "${TMPDIR:-/tmp}/cascadedb-demo.XXXXXX")}
mkdir -p "$work"
report="$work/report"

# 4 MiB memtables and SSTs, a 16 MiB L1 and L0 triggers 4/8/12: the
# 885 MB the demo writes go through ~300 flushes into a three- or
# four-level tree, with L0 slowdowns along the way.
args=(
  --db="$work/db"
  --report_dir="$report"
  "--benchmarks=fillrandom,readrandom,overwrite,stats"
  --num="$num"
  --reads=$((num / 4))
  --key_size=16 --value_size=100
  --write_buffer_size=4194304
  --target_file_size_base=4194304
  --max_bytes_for_level_base=16777216
  --level0_file_num_compaction_trigger=4
  --level0_slowdown_writes_trigger=8
  --level0_stop_writes_trigger=12
  --stats_interval_seconds=5
  --seed=301
)
echo "demo: $build/benchmarks/db_bench ${args[*]} $*"
echo
"$build/benchmarks/db_bench" "${args[@]}" "$@" | tee "$work/db_bench.txt"

echo
plotter=python3
if ! command -v python3 >/dev/null 2>&1; then plotter=/usr/bin/python3; fi
if plots=$("$plotter" "$root/benchmarks/plot_report.py" "$report"); then
  echo "demo: plots:"
  while IFS= read -r png; do echo "  $png"; done <<<"$plots"
else
  echo "demo: plotting failed (is python3-matplotlib installed?)" >&2
fi
rm -rf "$work/db"
echo "demo: report: $work/db_bench.txt, $report/summary.json," \
  "$report/timeline.csv"
