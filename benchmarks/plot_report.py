#!/usr/bin/env python3
# Copyright 2026 The CascadeDB Authors. Licensed under the Apache License 2.0.
#
# Turns a db_bench --report_dir into PNG plots, written next to the data:
#
#   throughput.png   ops/s per second for each benchmark, with the seconds
#                    in which writes were stalled shaded by stall cause and
#                    the number of L0 files on a second axis
#   latency_cdf.png  latency CDF per benchmark (log-scaled latency), and the
#                    tail (1 - CDF) on a log axis so p99.9/p99.99 show
#   waf_levels.png   write amplification per level (bytes written into the
#                    level / user bytes), with WAL and device bars, per write
#                    benchmark and for the whole run
#   cpu.png          per second: the benchmark threads on a CPU and waiting
#                    for one, and the other threads on a CPU; the seconds in
#                    which the guest handed free memory back to its host
#                    shaded
#
# Usage: plot_report.py REPORT_DIR [--out DIR]
# Needs matplotlib (Debian: python3-matplotlib). Single-threaded script.

import argparse
import csv
import json
import math
import os
import sys

try:
    import matplotlib
except ImportError:
    # Debian's python3-matplotlib serves the system interpreter; a python3
    # found first on PATH (pyenv, a venv) may not see it.
    if os.path.exists("/usr/bin/python3") and sys.executable != "/usr/bin/python3":
        os.execv("/usr/bin/python3", ["/usr/bin/python3"] + sys.argv)
    sys.exit("plot_report: matplotlib is missing (Debian: apt-get install "
             "python3-matplotlib)")

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.patches import Patch  # noqa: E402

# One colour per stall cause (the engine's cause names).
CAUSE_COLORS = {
    "memtable_limit": "#d62728",
    "l0_slowdown": "#ff7f0e",
    "l0_stop": "#8c1c13",
    "pending_compaction_slowdown": "#9467bd",
    "pending_compaction_stop": "#4b0082",
}
OTHER_STALL = "#7f7f7f"


def read_timeline(path):
    """Rows of timeline.csv as dicts, numbers converted; '' -> None."""
    rows = []
    with open(path, newline="") as f:
        for raw in csv.DictReader(f):
            row = {}
            for key, value in raw.items():
                if value is None or value == "":
                    row[key] = None
                elif key in ("benchmark", "stall_state", "stall_cause"):
                    row[key] = value
                else:
                    try:
                        row[key] = float(value)
                    except ValueError:
                        row[key] = value
            rows.append(row)
    return rows


def group_by_benchmark(rows):
    """Consecutive rows of the same benchmark, in run order."""
    groups = []
    for row in rows:
        if groups and groups[-1][0] == row["benchmark"]:
            groups[-1][1].append(row)
        else:
            groups.append((row["benchmark"], [row]))
    return groups


def stall_color(row):
    """The colour to shade this second with, or None if it had no stall."""
    per_cause = {
        cause: row.get("stall_ms_" + cause) or 0.0 for cause in CAUSE_COLORS
    }
    cause, ms = max(per_cause.items(), key=lambda kv: kv[1])
    if ms > 0:
        return CAUSE_COLORS[cause], cause
    state = row.get("stall_state")
    if state and state != "normal":
        named = row.get("stall_cause") or ""
        return CAUSE_COLORS.get(named, OTHER_STALL), named or state
    return None, None


def plot_throughput(groups, summary, out_path):
    # Only benchmarks that ran long enough to have a shape.
    groups = [(name, rows) for name, rows in groups if len(rows) >= 2]
    if not groups:
        return False
    fig, axes = plt.subplots(
        len(groups), 1, figsize=(11, 2.8 * len(groups) + 0.6), squeeze=False
    )
    engine = summary.get("engine", "?")
    stall_reported = any(
        b.get("stalls", {}).get("reported") for b in summary.get("benchmarks", [])
    )
    for ax, (name, rows) in zip(axes[:, 0], groups):
        # Row i covers (time_s - interval_s, time_s]; rows are contiguous.
        edges = [rows[0]["time_s"] - (rows[0]["interval_s"] or 0.0)]
        edges += [r["time_s"] for r in rows]
        ops = [r["ops_per_sec"] or 0 for r in rows]
        causes_seen = {}
        for r in rows:
            color, cause = stall_color(r)
            if color is None:
                continue
            start = r["time_s"] - (r["interval_s"] or 1.0)
            # Deeper shade for a second spent longer in the stalled state.
            ms = r.get("stall_ms") or 0.0
            frac = min(1.0, ms / 1000.0 / max(r["interval_s"] or 1.0, 1e-3))
            ax.axvspan(start, r["time_s"], color=color,
                       alpha=0.15 + 0.45 * frac, lw=0)
            causes_seen[cause] = color
        ax.stairs(ops, edges, color="#1f77b4", lw=1.5, label="ops/s",
                  baseline=None)
        ax.set_ylabel("ops/s")
        # Headroom for the legend row above the data.
        ax.set_ylim(0, max(ops + [1]) * 1.35)
        ax.set_title(name, loc="left", fontsize=10)
        ax.grid(alpha=0.3)
        l0 = [r.get("l0_files") for r in rows]
        handles = [plt.Line2D([], [], color="#1f77b4", lw=1.5, label="ops/s")]
        if any(v is not None for v in l0):
            ax2 = ax.twinx()
            l0_values = [v if v is not None else math.nan for v in l0]
            ax2.stairs(l0_values, edges, color="#2ca02c", lw=1, ls="--",
                       baseline=None)
            ax2.set_ylabel("L0 files", color="#2ca02c")
            finite = [v for v in l0_values if not math.isnan(v)]
            ax2.set_ylim(0, max(finite + [1]) * 1.35)
            ax2.tick_params(axis="y", colors="#2ca02c")
            handles.append(plt.Line2D([], [], color="#2ca02c", lw=1, ls="--",
                                      label="L0 files"))
        for cause, color in causes_seen.items():
            handles.append(Patch(color=color, alpha=0.5,
                                 label="stalled: " + cause))
        ax.legend(handles=handles, loc="upper left", fontsize=8,
                  framealpha=0.8, ncol=len(handles))
    axes[-1, 0].set_xlabel("seconds since the run started")
    title = "%s db_bench throughput per second" % engine
    if not stall_reported:
        title += " (engine reports no stall accounting)"
    fig.suptitle(title)
    fig.tight_layout()
    fig.savefig(out_path, dpi=110)
    plt.close(fig)
    return True


def plot_cpu(groups, summary, out_path):
    """Per second: the benchmark threads on a CPU and waiting for one, the
    other threads (the engine's background work) on a CPU, and the CPU time
    the hypervisor took from the machine (steal), where there was any. The
    seconds in which the guest handed free memory back to its host (free
    page reporting, whose passes stall the running threads) are shaded."""
    groups = [
        (name, rows) for name, rows in groups
        if len(rows) >= 2 and any(r.get("other_cpu_ms") is not None
                                  for r in rows)
    ]
    if not groups:
        return False
    fig, axes = plt.subplots(
        len(groups), 1, figsize=(11, 2.6 * len(groups) + 0.6), squeeze=False
    )
    series = (
        ("threads_cpu_ms", "benchmark threads on a CPU", "#1f77b4", "-"),
        ("threads_cpu_wait_ms", "benchmark threads waiting for a CPU",
         "#d62728", "-"),
        ("other_cpu_ms", "other threads on a CPU (engine background work)",
         "#2ca02c", "--"),
        ("steal_ms", "hypervisor steal (all CPUs)", "#7f7f7f", ":"),
    )
    for ax, (name, rows) in zip(axes[:, 0], groups):
        edges = [rows[0]["time_s"] - (rows[0]["interval_s"] or 0.0)]
        edges += [r["time_s"] for r in rows]
        top = 1.0
        handles = []
        for key, label, color, ls in series:
            # As a share of the interval: 1.0 = one CPU for the whole second.
            values = [
                (r[key] / 1000.0 / r["interval_s"])
                if r.get(key) is not None and r["interval_s"] else math.nan
                for r in rows
            ]
            finite = [v for v in values if not math.isnan(v)]
            # Steal is drawn only where there was some.
            if not finite or (key == "steal_ms" and not any(finite)):
                continue
            top = max([top] + finite)
            ax.stairs(values, edges, color=color, lw=1.3, ls=ls,
                      baseline=None)
            handles.append(plt.Line2D([], [], color=color, lw=1.3, ls=ls,
                                      label=label))
        reported = [
            (edges[i], edges[i + 1], r["reported_to_host_mb"])
            for i, r in enumerate(rows)
            if (r.get("reported_to_host_mb") or 0) > 0
        ]
        for start, end, _ in reported:
            ax.axvspan(start, end, color="#9467bd", alpha=0.15, lw=0)
        if reported:
            handles.append(Patch(
                color="#9467bd", alpha=0.15,
                label="memory handed back to the host (%.0f MiB)"
                % sum(mb for _, _, mb in reported)))
        # Four legend entries (the steal drawn) do not fit on one line of
        # an 11-inch figure: two columns, and headroom for the second line.
        two_lines = len(handles) > 3
        ax.set_ylim(0, top * (1.65 if two_lines else 1.35))
        ax.set_ylabel("CPUs")
        ax.set_title(name, loc="left", fontsize=10)
        ax.grid(alpha=0.3)
        ax.legend(handles=handles, loc="upper left", fontsize=8,
                  framealpha=0.8, ncol=2 if two_lines else len(handles))
    axes[-1, 0].set_xlabel("seconds since the run started")
    fig.suptitle("%s db_bench: CPU per second (time / interval)"
                 % summary.get("engine", "?"))
    fig.tight_layout()
    fig.savefig(out_path, dpi=110)
    plt.close(fig)
    return True


def plot_latency_cdf(summary, out_path):
    benches = [
        b for b in summary.get("benchmarks", [])
        if b.get("latency_cdf") and b.get("ops", 0) > 1
    ]
    if not benches:
        return False
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(12, 4.5))
    for b in benches:
        xs = [p[0] for p in b["latency_cdf"]]
        ys = [p[1] for p in b["latency_cdf"]]
        ax1.step(xs, ys, where="post", label=b["name"])
        tail = [max(1.0 - y, 1e-7) for y in ys]
        ax2.step(xs, tail, where="post", label=b["name"])
    ax1.set_xscale("log")
    ax1.set_xlabel("latency (us)")
    ax1.set_ylabel("fraction of ops at or below")
    ax1.set_ylim(0, 1.01)
    ax1.grid(alpha=0.3, which="both")
    ax1.legend(fontsize=8)
    ax2.set_xscale("log")
    ax2.set_yscale("log")
    ax2.set_xlabel("latency (us)")
    ax2.set_ylabel("fraction of ops slower (1 - CDF)")
    for q, label in ((1e-2, "p99"), (1e-3, "p99.9"), (1e-4, "p99.99")):
        ax2.axhline(q, color="#999999", lw=0.8, ls=":")
        ax2.text(ax2.get_xlim()[0], q, " " + label, va="bottom", fontsize=7,
                 color="#666666")
    ax2.grid(alpha=0.3, which="both")
    fig.suptitle("%s db_bench latency" % summary.get("engine", "?"))
    fig.tight_layout()
    fig.savefig(out_path, dpi=110)
    plt.close(fig)
    return True


def waf_bars(write_amp):
    """(labels, values) for one write_amp object of summary.json."""
    user = write_amp.get("user_bytes") or 0
    if user <= 0:
        return None
    bars = []
    if write_amp.get("wal_bytes") is not None:
        bars.append(("WAL", write_amp["wal_bytes"] / user))
    levels = write_amp.get("levels", {})
    for name in sorted(levels, key=lambda s: int(s[1:])):
        bars.append((name, levels[name]["write_bytes"] / user))
    if write_amp.get("waf") is not None:
        bars.append(("engine total", write_amp["waf"]))
    elif write_amp.get("waf_no_wal") is not None:
        bars.append(("engine (no WAL)", write_amp["waf_no_wal"]))
    if write_amp.get("device_waf") is not None:
        bars.append(("device", write_amp["device_waf"]))
    return bars


def plot_waf(summary, out_path):
    groups = []
    for b in summary.get("benchmarks", []):
        wa = b.get("write_amp")
        if wa and not b.get("skipped"):
            bars = waf_bars(wa)
            if bars:
                groups.append((b["name"], bars))
    since = summary.get("since_open", {}).get("write_amp")
    if since:
        bars = waf_bars(since)
        if bars:
            groups.append(("whole run (since open)", bars))
    if not groups:
        return False
    seen = {label for _, bars in groups for label, _ in bars}
    levels = sorted((x for x in seen if x[0] == "L" and x[1:].isdigit()),
                    key=lambda x: int(x[1:]))
    labels = [x for x in ["WAL"] + levels +
              ["engine total", "engine (no WAL)", "device"] if x in seen]
    # Levels nobody wrote into (deep levels of a small run) are noise.
    labels = [
        label for label in labels
        if any(dict(bars).get(label, 0.0) > 0 for _, bars in groups)
    ]
    fig, ax = plt.subplots(figsize=(max(7, 1.2 * len(labels) * len(groups) / 2
                                        + 3), 4.5))
    width = 0.8 / len(groups)
    for i, (name, bars) in enumerate(groups):
        values = dict(bars)
        xs = [j + (i - (len(groups) - 1) / 2) * width
              for j in range(len(labels))]
        ys = [values.get(label, 0.0) for label in labels]
        rects = ax.bar(xs, ys, width, label=name)
        for rect, y in zip(rects, ys):
            if y > 0:
                ax.annotate("%.2f" % y,
                            (rect.get_x() + rect.get_width() / 2, y),
                            ha="center", va="bottom", fontsize=7)
    ax.set_xticks(range(len(labels)))
    ax.set_xticklabels(labels)
    ax.set_ylabel("bytes written / user bytes")
    ax.set_title("%s write amplification per level (L0 = flushes)"
                 % summary.get("engine", "?"))
    ax.grid(alpha=0.3, axis="y")
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(out_path, dpi=110)
    plt.close(fig)
    return True


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("report_dir", help="db_bench --report_dir")
    parser.add_argument("--out", help="where to write PNGs (default: "
                        "report_dir)")
    args = parser.parse_args(argv)
    out = args.out or args.report_dir
    timeline_path = os.path.join(args.report_dir, "timeline.csv")
    summary_path = os.path.join(args.report_dir, "summary.json")
    for path in (timeline_path, summary_path):
        if not os.path.exists(path):
            print("plot_report: %s is missing (run db_bench with "
                  "--report_dir)" % path, file=sys.stderr)
            return 2
    with open(summary_path) as f:
        summary = json.load(f)
    groups = group_by_benchmark(read_timeline(timeline_path))
    os.makedirs(out, exist_ok=True)
    written = []
    for name, fn in (
        ("throughput.png", lambda p: plot_throughput(groups, summary, p)),
        ("latency_cdf.png", lambda p: plot_latency_cdf(summary, p)),
        ("waf_levels.png", lambda p: plot_waf(summary, p)),
        ("cpu.png", lambda p: plot_cpu(groups, summary, p)),
    ):
        path = os.path.join(out, name)
        if fn(path):
            written.append(path)
    for path in written:
        print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
