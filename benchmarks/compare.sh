#!/usr/bin/env bash
# Copyright 2026 The CascadeDB Authors. Licensed under the Apache License 2.0.
#
# Runs one workload set on every engine db_bench was built with (cascadedb,
# and leveldb / rocksdb when Debian's libleveldb-dev / librocksdb-dev were
# installed at build time), one engine after the other on the same machine,
# and prints a table of ops/s, p99.9 latency and the share of time spent in
# ops slower than 1 ms, with CascadeDB's ratio to the better peer, and under
# it any run in which the hypervisor took CPU time from the machine (steal)
# or the guest handed free memory back to its host, and, when
# benchmarks/latency_floor sits beside db_bench, the tail the machine alone
# gives a busy thread at each write workload's mean op time.
#
# Workloads (issue 8): fillseq, fillrandom, overwrite, readrandom, readseq,
# seekrandom, readwhilewriting with 16-byte keys and 100-byte values, then
# fillrandom with 1 KiB values on --num/5 keys ("fillrandom-1KiB").
# readseq, a single pass of about a second whose speed on this kind of
# machine moves by a third from one pass to the next, runs three times in
# a row on every engine; the table has the median pass. It then runs again
# with the engines taking turns a pass at a time ("readseq-alternated",
# the median of --readseq_turns passes), so that the engines' passes are
# seconds apart instead of minutes. seekrandom and readwhilewriting follow
# on the same DB, reopened. fillseq runs in a process of its own, on a DB
# deleted before the next process starts.
#
# On a VM that hands free memory back to its host (Linux's free page
# reporting, as on Firecracker guests), each db_bench process starts only
# once the guest has reported no memory for 3 s: the memory a run frees
# (its process's, its deleted DB's page cache) is reported in passes every
# 2 s for many seconds after, and a pass stalls the threads then running
# for up to ~30 ms (docs/performance.md, "Memory the host has taken back").
#
# Usage: benchmarks/compare.sh [options] [-- extra db_bench flags]
#   --db_bench PATH   the binary (default build/release/benchmarks/db_bench)
#   --num N           keys for the 100-byte workloads (default 1000000)
#   --matched         matched options instead of each engine's defaults:
#                     4 MiB memtable, 2 MiB SST, 10 MiB L1, L0 triggers
#                     4/8/12, snappy, 10-bit bloom, 8 MiB cache, one
#                     compaction thread
#   --engines "A B"   engines to run (default: every one built in)
#   --rounds N        run the whole set N times, the engines taking turns
#                     within each round, and report per-engine medians
#                     (default 1); the spread line shows the lowest and
#                     highest per-round ratio
#   --out DIR         keep reports here (default: a new mktemp -d)
#   --floor_seconds S how long latency_floor runs per write workload
#                     (default 3; 0: not at all)
#   --readseq_turns N readseq passes per engine, taken in turns (default
#                     3; 0: none, and no readseq-alternated row)
#   --settle_seconds S the longest wait for the guest's free page
#                     reporting to go quiet before a run (default 60; 0:
#                     no wait)
#
# Debian's RocksDB is built with assertions enabled and runs well below a
# release build: a lead over its figures is not a lead over RocksDB.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
db_bench=$root/build/release/benchmarks/db_bench
num=1000000
matched=0
engines=""
rounds=1
floor_seconds=3
readseq_turns=3
settle_seconds=60
out=""
extra=()
while [[ $# -gt 0 ]]; do
  # --name=value is --name value.
  if [[ "$1" == --*=* && "$1" != --=* ]]; then
    set -- "${1%%=*}" "${1#*=}" "${@:2}"
  fi
  case "$1" in
    --db_bench) db_bench=$2; shift 2 ;;
    --num) num=$2; shift 2 ;;
    --matched) matched=1; shift ;;
    --engines) engines=$2; shift 2 ;;
    --rounds) rounds=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --floor_seconds) floor_seconds=$2; shift 2 ;;
    --readseq_turns) readseq_turns=$2; shift 2 ;;
    --settle_seconds) settle_seconds=$2; shift 2 ;;
    --) shift; extra=("$@"); break ;;
    -h|--help) sed -n '3,54p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "compare.sh: unknown argument '$1' (see --help)" >&2; exit 2 ;;
  esac
done
if ! [[ "$rounds" =~ ^[1-9][0-9]*$ ]]; then
  echo "compare.sh: --rounds must be a positive integer, not '$rounds'" >&2
  exit 2
fi
if ! [[ "$floor_seconds" =~ ^[0-9]+(\.[0-9]+)?$ ]]; then
  echo "compare.sh: --floor_seconds must be a number of seconds, not" \
    "'$floor_seconds'" >&2
  exit 2
fi
if ! [[ "$readseq_turns" =~ ^[0-9]+$ ]]; then
  echo "compare.sh: --readseq_turns must be a number of passes, not" \
    "'$readseq_turns'" >&2
  exit 2
fi
if ! [[ "$settle_seconds" =~ ^[0-9]+$ ]]; then
  echo "compare.sh: --settle_seconds must be a whole number of seconds," \
    "not '$settle_seconds'" >&2
  exit 2
fi
if [[ ! -x "$db_bench" ]]; then
  echo "compare.sh: $db_bench not found; build it first (scripts/demo.sh" \
    "or cmake --build build/release --target db_bench)" >&2
  exit 2
fi
out=${out:-$(mktemp -d "${TMPDIR:-/tmp}/cascadedb-compare.XXXXXX")}
mkdir -p "$out"
rm -f "$out/settle.txt"

if [[ -z "$engines" ]]; then
  for e in cascadedb leveldb rocksdb; do
    if "$db_bench" --engine="$e" --benchmarks=stats --num=1 \
      --db="$out/probe-$e" --stats_interval_seconds=0 >/dev/null 2>&1; then
      engines+="$e "
    fi
    rm -rf "$out/probe-$e"
  done
fi

common=(--key_size=16 --seed=301 --stats_interval_seconds=0)
if [[ $matched -eq 1 ]]; then
  common+=(
    --write_buffer_size=4194304 --target_file_size_base=2097152
    --max_bytes_for_level_base=10485760
    --level0_file_num_compaction_trigger=4
    --level0_slowdown_writes_trigger=8 --level0_stop_writes_trigger=12
    --compression_type=snappy --bloom_bits=10 --cache_size=8388608
    --max_background_compactions=1 --max_background_flushes=1
  )
fi

read -r -a engine_list <<<"$engines"
if [[ "$engines" != *leveldb* && "$engines" != *rocksdb* ]]; then
  echo "compare.sh: $db_bench has no LevelDB or RocksDB adapter: only" \
    "CascadeDB will run. For the peers: CASCADEDB_WITH_PEERS=1" \
    "scripts/install-deps.sh, then reconfigure and rebuild db_bench." >&2
fi
# The KiB of free memory the guest has handed back to its host so far
# (free page reporting); no such file where there is none. Tests point it
# elsewhere.
reported_kib=${CASCADEDB_REPORTED_KIB_FILE:-/sys/module/page_reporting/parameters/reported_kib}
# Waits until the guest has reported no memory for 3 s (a pass comes every
# 2 s while there is any to report), at most --settle_seconds, and logs
# the wait to $out/settle.txt: its ms, "quiet" or "capped", the run ($1).
settle() {
  [[ -r "$reported_kib" && $settle_seconds -gt 0 ]] || return 0
  local start now changed last cur verdict=quiet
  start=$(date +%s%N)
  changed=$start
  last=$(<"$reported_kib")
  while true; do
    sleep 0.25
    now=$(date +%s%N)
    cur=$(<"$reported_kib")
    if [[ "$cur" != "$last" ]]; then
      last=$cur
      changed=$now
    fi
    ((now - changed >= 3000000000)) && break
    if ((now - start >= settle_seconds * 1000000000)); then
      verdict=capped
      break
    fi
  done
  echo "$(((now - start) / 1000000)) $verdict $1" >>"$out/settle.txt"
}

# One db_bench run on engine $1's DB, the 100-byte workloads' flags
# given, its report in $dir/$1-$2 and its output in $dir/$1-$2.txt; the
# other arguments are db_bench flags (before the extra ones).
run_100b() {
  local e=$1 report=$2
  shift 2
  settle "$dir/$e-$report"
  "$db_bench" --engine="$e" --db="$dir/db-$e" --report_dir="$dir/$e-$report" \
    --num="$num" --value_size=100 "${common[@]}" "$@" "${extra[@]}" \
    >"$dir/$e-$report.txt"
}

# One round's reports go to $out (a single round, as before --rounds) or
# to $out/round<r>.
round_dirs=()
for ((r = 1; r <= rounds; r++)); do
  dir=$out
  [[ $rounds -gt 1 ]] && dir=$out/round$r
  mkdir -p "$dir"
  round_dirs+=("$dir")
  # Each engine's 100-byte set runs in three processes on its own DB,
  # with the readseq turns between the last two (below). fillseq's DB is
  # deleted before the next one starts, so that the guest has reported
  # its memory first.
  for e in "${engine_list[@]}"; do
    echo "compare: round $r/$rounds: $e ..." >&2
    run_100b "$e" fillseq --benchmarks=fillseq
    rm -rf "$dir/db-$e"
    run_100b "$e" 100B \
      --benchmarks=fillrandom,overwrite,readrandom,readseq,readseq,readseq
  done
  # readseq again, the engines taking turns a pass at a time, so that
  # every engine's passes fall in the same phases of the machine (the
  # passes above are a minute or more apart from one engine to the next).
  # Each process reopens the DB left by readrandom and readseq and makes a
  # first pass to load the tables and map their pages, as the run above
  # had; its second pass is the one counted.
  for ((k = 1; k <= readseq_turns; k++)); do
    for e in "${engine_list[@]}"; do
      echo "compare: round $r/$rounds: readseq turn $k/$readseq_turns: $e" >&2
      run_100b "$e" "readseq$k" --use_existing_db=1 --benchmarks=readseq,readseq
    done
  done
  for e in "${engine_list[@]}"; do
    echo "compare: round $r/$rounds: $e, the rest ..." >&2
    run_100b "$e" 100B-2 --use_existing_db=1 \
      --benchmarks=seekrandom,readwhilewriting
    rm -rf "$dir/db-$e"
    settle "$dir/$e-1KiB"
    "$db_bench" --engine="$e" --db="$dir/db-$e" --report_dir="$dir/$e-1KiB" \
      --benchmarks=fillrandom --num=$((num / 5)) --value_size=1024 \
      "${common[@]}" "${extra[@]}" >"$dir/$e-1KiB.txt"
    rm -rf "$dir/db-$e"
  done
done

# The latencies the machine alone gives a busy thread, beside db_bench.
floor_tool=$(dirname "$db_bench")/latency_floor
[[ -x "$floor_tool" ]] || floor_tool=""
[[ "$floor_seconds" =~ ^0*(\.0*)?$ ]] && floor_tool=""
FLOOR_TOOL=$floor_tool FLOOR_SECONDS=$floor_seconds python3 - "$out" "${#round_dirs[@]}" "$readseq_turns" "${round_dirs[@]}" "${engine_list[@]}" <<'EOF'
import json, os, statistics, sys

out, n, readseq_turns = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
round_dirs, engines = sys.argv[4:4 + n], sys.argv[4 + n:]
rows = ["fillseq", "fillrandom", "overwrite", "readrandom", "readseq",
        "readseq-alternated", "seekrandom", "readwhilewriting",
        "fillrandom-1KiB"]

def benchmarks(d, e, report):
    path = os.path.join(d, "%s-%s" % (e, report), "summary.json")
    with open(path) as f:
        return [b for b in json.load(f)["benchmarks"] if not b.get("skipped")]

runs = {}  # (engine, row) -> [benchmark dict of each round]
for d in round_dirs:
    for e in engines:
        passes = {}  # row -> this round's runs of it (readseq runs thrice)
        for report in ("fillseq", "100B", "100B-2", "1KiB"):
            for b in benchmarks(d, e, report):
                name = b["name"] + ("-1KiB" if report == "1KiB" else "")
                passes.setdefault(name, []).append(b)
        # The passes taken in turns: each process's last (its first loaded
        # the tables).
        for k in range(1, readseq_turns + 1):
            bs = benchmarks(d, e, "readseq%d" % k)
            if bs:
                passes.setdefault("readseq-alternated", []).append(bs[-1])
        for name, bs in passes.items():
            # The median pass by ops/s, its other figures with it.
            bs.sort(key=lambda b: b["ops_per_sec"])
            runs.setdefault((e, name), []).append(bs[(len(bs) - 1) // 2])

def slow_share(b):
    classes = b.get("latency_classes", [])
    return 100 * sum(c["time_share"] for c in classes
                     if c["class"] in ("1ms-10ms", ">10ms"))

def cpu_wait_share(b):
    # Share of the benchmark threads' time runnable but without a CPU
    # (db_bench's "cpu" figures; None where the kernel keeps none).
    cpu = b.get("cpu")
    thread_s = b.get("micros_per_op", 0) * b.get("ops", 0) / 1e6
    if not cpu or thread_s <= 0:
        return None
    return 100 * cpu["waiting_for_cpu_s"] / thread_s

def median(values):
    values = [v for v in values if v is not None]
    return statistics.median(values) if values else None

def fmt(value, spec):
    return "n/a" if value is None else spec % value

def ops(e, row):
    return median([b["ops_per_sec"] for b in runs.get((e, row), [])])

peers = [e for e in engines if e != "cascadedb"]
compared = "cascadedb" in engines and bool(peers)
head = "%-18s" % "workload"
for e in engines:
    head += " %14s %9s %7s %7s" % (e + " ops/s", "p99.9 us", ">1ms %",
                                    "cpuw %")
if compared:
    head += " %12s" % "vs best peer"
    if n > 1:
        head += " %13s" % "round spread"
print(head)
if readseq_turns == 0:
    rows.remove("readseq-alternated")
for row in rows:
    line = "%-18s" % row
    for e in engines:
        bs = runs.get((e, row))
        if not bs:
            line += " %14s %9s %7s %7s" % ("n/a", "", "", "")
            continue
        line += " %14.0f %9.1f %7.2f %7s" % (
            ops(e, row), median([b["latency_us"]["p99.9"] for b in bs]),
            median([slow_share(b) for b in bs]),
            fmt(median([cpu_wait_share(b) for b in bs]), "%.2f"))
    if compared:
        ours = ops("cascadedb", row)
        best = max((ops(p, row) or 0 for p in peers), default=0)
        if ours and best > 0:
            line += " %11.2fx" % (ours / best)
            # The ratio within each round (the engines ran back to back).
            mine = runs.get(("cascadedb", row), [])
            theirs = [runs.get((p, row), []) for p in peers]
            per_round = []
            for r in range(n):
                if r < len(mine) and all(r < len(t) for t in theirs):
                    top = max(t[r]["ops_per_sec"] for t in theirs)
                    if top > 0:
                        per_round.append(mine[r]["ops_per_sec"] / top)
            if n > 1 and per_round:
                line += " %6.2f-%.2fx" % (min(per_round), max(per_round))
    print(line)
print()

def steal_share(b):
    # Share of the machine's CPU time the hypervisor took during the
    # benchmark (db_bench's "machine" figures; None where the kernel
    # keeps none).
    m = b.get("machine")
    if not m or not b.get("seconds") or not m.get("cpus"):
        return None
    return 100 * m["steal_s"] / (b["seconds"] * m["cpus"])

stolen = []
for row in rows:
    for e in engines:
        share = median([steal_share(b) for b in runs.get((e, row), [])])
        if share is not None and share >= 0.5:
            stolen.append("%s %s %.2f%%" % (row, e, share))
if stolen:
    # Slow ops in these runs may be the host's doing, not the engine's.
    print("Hypervisor steal over 0.5% of the machine's CPU time: " +
          ", ".join(stolen))
    print()
def reported_mib(b):
    # Free memory the guest handed back to its host during the benchmark
    # (None where the kernel reports none).
    m = b.get("machine") or {}
    v = m.get("reported_to_host_bytes")
    return None if v is None else v / 1048576

handed_back = []
for row in rows:
    for e in engines:
        mib = median([reported_mib(b) for b in runs.get((e, row), [])])
        if mib:
            handed_back.append("%s %s %.0f MiB" % (row, e, mib))
if handed_back:
    # Each reporting pass stalls the running threads (up to ~30 ms here):
    # a slow op in these runs may be one.
    print("Free memory handed back to the host during the run: " +
          ", ".join(handed_back))
    print()
# The machine's floor under the write workloads' tails: one thread doing
# back-to-back ops as long as CascadeDB's mean op time (its run's wall
# time per write; a writer is never idle, its delays being part of its
# writes), no engine at all. An op lasts longer only when the thread lost
# its CPU: a timer tick, an interrupt, the hypervisor.
floor_tool = os.environ.get("FLOOR_TOOL")
floor_rows = ["fillseq", "fillrandom", "overwrite", "fillrandom-1KiB"]
if floor_tool and "cascadedb" in engines:
    import subprocess
    floor_seconds = os.environ["FLOOR_SECONDS"]  # set with FLOOR_TOOL
    lines = []
    for row in floor_rows:
        bs = runs.get(("cascadedb", row), [])
        us = median([b.get("micros_per_op") for b in bs])
        if not us:
            continue
        r = subprocess.run([floor_tool, "--seconds=" + floor_seconds,
                            "%.2f" % us],
                           capture_output=True, text=True)
        if r.returncode != 0:
            lines.append("%s: latency_floor failed: %s" %
                         (row, r.stderr.strip()))
            continue
        lines.append("%-16s CascadeDB p99.9 %.1f us; floor %s" % (
            row, median([b["latency_us"]["p99.9"] for b in bs]),
            r.stdout.strip()))
    if lines:
        print("Machine floor (benchmarks/latency_floor: one busy thread, no "
              "engine, %s s of ops as long" % floor_seconds)
        print("as CascadeDB's mean op time; its tail is the machine's alone):")
        for line in lines:
            print("  " + line)
        print()
# The waits for the guest to stop handing memory back (settle()).
settle_path = os.path.join(out, "settle.txt")
if os.path.exists(settle_path):
    with open(settle_path) as f:
        waits = [line.split(" ", 2)[:2] for line in f if line.strip()]
    ms = [int(w[0]) for w in waits]
    capped = sum(1 for w in waits if w[1] == "capped")
    print("Settled: before each of its %d runs, compare.sh waited until the "
          "guest had handed" % len(waits))
    print("no free memory back to its host for 3 s: %.0f s in all, the "
          "longest %.1f s%s." % (sum(ms) / 1000, max(ms) / 1000,
                                 "; %d waits cut at --settle_seconds" % capped
                                 if capped else ""))
    print()
if n > 1:
    print("Each figure is the median of %d rounds (engines took turns within "
          "a round);" % n)
    print("'round spread': the lowest and highest ratio within one round.")
print("ops/s: higher is better; '>1ms %': share of the benchmark's op time "
      "spent in ops slower than 1 ms;")
print("'cpuw %': share of the benchmark threads' time spent runnable but "
      "waiting for a CPU;")
if readseq_turns > 0:
    print("readseq-alternated: the median of %d readseq passes per engine "
          "taken in turns, a pass" % readseq_turns)
    print("at a time (readseq: three passes in a row in each engine's run).")
print("'vs best peer': CascadeDB ops/s / the best of %s." %
      (", ".join(peers) or "none"))
if "rocksdb" in engines:
    print("RocksDB is Debian's build with assertions enabled: it runs well "
          "below a release build.")
print("Reports: %s" % out)
EOF
