#!/usr/bin/python3
"""Plots of the GPU benchmark results (issue 6), as PNG files a person can read at a glance.

Usage:
  plot_results.py [--pscr-gpu CSV [--peers CSV]] [--tridiag CSV] --out DIR [--force] [--dpi N]

Inputs (CSVs written by the benchmarks, columns read by name):
  --pscr-gpu  bench/pscr_gpu_bench.cu (bench/pscr_gpu.sh): one row per (problem, n, stages)
  --peers     bench/peers/peers_bench.cu (bench/peers.sh): the dense fast-diagonalization (fd)
              and cuFFT (fft) peers, drawn on the time plot; needs --pscr-gpu
  --tridiag   bench/tridiag_bench.cu (bench/tridiag_bench.sh): the GPU tridiagonal solvers
Outputs, in DIR, named after the input file (STEM = its name without .csv):
  STEM-time.png      median solve time against n per problem: PSCR GPU (fused and separate
                     stages), the paper (GTX 1080 Ti, Tables 1-4), the peers, the goal
  STEM-speedup.png   speed-up over the paper against n
  STEM-roofline.png  achieved GFLOP/s against arithmetic intensity (flop/byte), under the
                     measured copy bandwidth and FP64 rate of the same run (paper's Sec. 5.3)
  STEM-stages.png    share of device time per kind of stage (paper's Figures 6-7)
  STEM-shifted.png   (tridiag) fraction of the copy bandwidth of the best shifted-form method
                     per shape (what a selection table regenerated from the CSV picks), against
                     the goals of issue 5 (70% / 50%); ticks: the automatic rows, the choice of
                     the table compiled into the benchmarked build (one table behind where the
                     CSV then changed it)
  STEM-general.png   (tridiag) speed-up of the general form over cuSPARSE, against its goals
Every plot is titled with the device named in its CSV. Existing PNGs are not overwritten
without --force; nothing is written unless every input is valid.

Exit codes: 0 plots written; 1 bad input (missing or unreadable file, a row whose field count
differs from the header's, a missing column, a value that is not a number, no usable rows);
2 bad arguments; 3 an output file exists (use --force); 4 matplotlib is not installed (Debian:
apt-get install python3-matplotlib; scripts/install-deps.sh installs it).
"""
import argparse
import csv
import math
import os
import signal
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from tridiag_select import accurate, serves_indefinite  # noqa: E402

EXIT_INPUT, EXIT_USAGE, EXIT_EXISTS, EXIT_NO_MATPLOTLIB = 1, 2, 3, 4

PROBLEMS = ["poisson2d", "helmholtz2d", "poisson3d", "helmholtz3d"]
STAGES = [("share_rhs", "right-hand sides"), ("share_tridiag", "tridiagonal solves"),
          ("share_sum", "weighted sums"), ("share_update", "updates"),
          ("share_fused", "fused (rhs + solve + sum)"), ("share_other", "other")]
STAGE_COLORS = ["#4c72b0", "#dd8452", "#55a868", "#c44e52", "#8172b3", "#9a9a9a"]
PROBLEM_COLORS = {"poisson2d": "#1f77b4", "helmholtz2d": "#d62728", "poisson3d": "#2ca02c",
                  "helmholtz3d": "#9467bd"}
PAPER_DEVICE = "GTX 1080 Ti"

PSCR_COLUMNS = ["device", "problem", "dim", "n", "stages", "median_ms", "paper_ms",
                "speedup_vs_paper", "goal_ms", "gflop", "gflops", "gbytes", "copy_gbs",
                "fp64_gflops"] + [c for c, _ in STAGES]
PEER_COLUMNS = ["device", "solver", "problem", "dim", "n1", "n2", "n3", "median_ms"]
TRIDIAG_COLUMNS = ["device", "scalar", "n", "batch", "form", "layout", "method",
                   "rows_per_thread", "staging", "median_ms", "fraction_of_copy", "max_residual",
                   "reps", "note"]


class InputError(Exception):
    """A CSV that cannot be plotted; the message says what was expected and what was found."""


def read_csv(path, required):
    """Rows of `path` as dicts keyed by the header; every row must have the header's field count
    (a writer that forgets a value shifts every later column, which would plot garbage)."""
    try:
        with open(path, newline="") as f:
            rows = list(csv.reader(f))
    except OSError as e:
        raise InputError(f"{path}: cannot read ({e.strerror})")
    if not rows:
        raise InputError(f"{path}: empty file, expected a CSV header")
    header = rows[0]
    bad = [(k + 2, len(r)) for k, r in enumerate(rows[1:]) if r and len(r) != len(header)]
    if bad:
        listed = ", ".join(f"line {line}: {count}" for line, count in bad[:5])
        more = f" (and {len(bad) - 5} more)" if len(bad) > 5 else ""
        raise InputError(f"{path}: misaligned CSV: the header has {len(header)} columns but "
                         f"{len(bad)} row(s) do not ({listed}{more})")
    missing = [c for c in required if c not in header]
    if missing:
        raise InputError(f"{path}: missing column(s) {', '.join(missing)}; "
                         f"the header has: {', '.join(header)}")
    data = [dict(zip(header, r)) for r in rows[1:] if r]
    if not data:
        raise InputError(f"{path}: no data rows after the header")
    return data


def number(row, column, path, required=False):
    """The float in `column`, or None where the field is empty (an error if `required`)."""
    text = row[column].strip()
    if not text:
        if required:
            raise InputError(f"{path}: column {column}: expected a number, found an empty field")
        return None
    try:
        return float(text)
    except ValueError:
        raise InputError(f"{path}: column {column}: expected a number, found '{text}'")


def devices(rows):
    return ", ".join(sorted({r["device"] for r in rows if r["device"]})) or "unknown device"


def stem(path):
    base = os.path.basename(path)
    return base[:-4] if base.lower().endswith(".csv") else base


# --------------------------------------------------------------------------------------------
# GPU PSCR (and peers)


PSCR_VARIANTS = ("fused", "separate")  # PSCR rows; "default": the solver's automatic choice


def load_pscr(path):
    """The pscr_gpu_bench rows, numbers parsed, keyed by problem and dimension ("poisson2d");
    a size that failed (note set) has median_ms 0 and is left out of every plot. The column
    method (what a "default" row's automatic choice ran) is absent from older CSVs: pscr then."""
    rows = []
    for r in read_csv(path, PSCR_COLUMNS):
        row = {c: number(r, c, path, required=c in ("dim", "n")) for c in PSCR_COLUMNS
               if c not in ("device", "problem", "stages")}
        row.update(device=r["device"], stages=r["stages"], method=r.get("method") or "pscr",
                   key=f"{r['problem']}{int(row['dim'])}d", n=int(row["n"]))
        if row["stages"] not in PSCR_VARIANTS + ("default",):
            raise InputError(f"{path}: column stages: expected fused, separate or default, "
                             f"found '{row['stages']}'")
        rows.append(row)
    if not any(r["median_ms"] for r in rows):
        raise InputError(f"{path}: no row with a median solve time")
    return rows


def load_peers(path):
    """Sweep rows of the fd and fft peers on n^d grids (checks on odd non-square sizes, ceilings
    and skipped sizes left out), keyed like the PSCR rows."""
    rows = []
    data = read_csv(path, PEER_COLUMNS)
    for r in data:
        if r["solver"] not in ("fd", "fft"):
            continue
        dim = int(number(r, "dim", path, required=True))
        sizes = {number(r, c, path) for c in ("n1", "n2", "n3")[:dim]}
        ms = number(r, "median_ms", path)
        if len(sizes) != 1 or None in sizes or not ms:
            continue
        rows.append(dict(device=r["device"], solver=r["solver"],
                         key=f"{r['problem'].split()[0]}{dim}d", n=int(sizes.pop()),
                         median_ms=ms))
    return rows, devices(data)


def problems_of(rows):
    present = {r["key"] for r in rows}
    return [p for p in PROBLEMS if p in present] + sorted(present - set(PROBLEMS))


def panels(plt, count, width=5.2, height=4.0):
    cols = 1 if count == 1 else 2
    nrows = (count + cols - 1) // cols
    fig, axes = plt.subplots(nrows, cols, figsize=(width * cols, height * nrows), squeeze=False)
    flat = [a for line in axes for a in line]
    for a in flat[count:]:
        a.set_visible(False)
    return fig, flat[:count]


def series(rows, value):
    pts = sorted((r["n"], r[value]) for r in rows if r[value] is not None and r[value] > 0)
    return [p[0] for p in pts], [p[1] for p in pts]


def is_power_of_two_minus_one(n):
    return n > 0 and (n + 1) & n == 0


def plot_time(plt, rows, peers, peer_device, device, out):
    keys = problems_of(rows)
    fig, axes = panels(plt, len(keys))
    for ax, key in zip(axes, keys):
        mine = [r for r in rows if r["key"] == key]
        lo, hi = min(r["n"] for r in mine), max(r["n"] for r in mine)
        for stages, style in zip(PSCR_VARIANTS, ("o-", "s--")):
            xs, ys = series([r for r in mine if r["stages"] == stages], "median_ms")
            if xs:
                ax.plot(xs, ys, style, color="C0", ms=4, label=f"PSCR GPU, {stages} stages")
        default = [r for r in mine if r["stages"] == "default"]
        xs, ys = series(default, "median_ms")
        if xs:
            chosen = ", ".join(sorted({r["method"].replace("_", " ") for r in default
                                       if r["median_ms"]}))
            ax.plot(xs, ys, "x-", color="C3", ms=5,
                    label=f"solver default (automatic: {chosen})")
        paper = {r["n"]: r["paper_ms"] for r in mine if r["paper_ms"]}
        if paper:
            ax.plot(sorted(paper), [paper[n] for n in sorted(paper)], "^-", color="0.45", ms=4,
                    label=f"paper ({PAPER_DEVICE})")
        near = [p for p in peers if p["key"] == key and lo / 1.1 <= p["n"] <= hi * 1.1]
        xs, ys = series([p for p in near if p["solver"] == "fd"], "median_ms")
        if xs:
            ax.plot(xs, ys, "d-", color="C1", ms=4, label="dense FD peer (cuBLAS GEMM)")
        fft = [p for p in near if p["solver"] == "fft"]
        for label, pick, style in (("n = 2^k - 1", True, "v-"), ("other n", False, "v:")):
            xs, ys = series([p for p in fft if is_power_of_two_minus_one(p["n"]) == pick],
                            "median_ms")
            if xs:
                ax.plot(xs, ys, style, color="C2", ms=4,
                        label=f"cuFFT DST-I peer, uniform, {label}")
        goals = {(r["n"], r["goal_ms"]) for r in mine if r["goal_ms"]}
        for k, (n, ms) in enumerate(sorted(goals)):
            ax.plot([n], [ms], "*", color="k", ms=13,
                    label="goal (issue 6, H100)" if k == 0 else None)
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        ax.set_title(key)
        ax.set_xlabel("n (grid points per dimension)")
        ax.set_ylabel("median solve time [ms]")
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=7, loc="upper left")
    peers_on = f"; peers on {peer_device}" if peers and peer_device != device else ""
    fig.suptitle(f"GPU PSCR solve time on {device}{peers_on} (transfers and setup excluded)")
    fig.tight_layout()
    fig.savefig(out)


def plot_speedup(plt, rows, device, out):
    fig, ax = plt.subplots(figsize=(7.5, 5.0))
    for key in problems_of(rows):
        mine = [r for r in rows if r["key"] == key]
        color = PROBLEM_COLORS.get(key)
        for stages, style in zip(PSCR_VARIANTS, ("o-", "s--")):
            xs, ys = series([r for r in mine if r["stages"] == stages], "speedup_vs_paper")
            if xs:
                ax.plot(xs, ys, style, color=color, ms=4, label=f"{key}, {stages} stages")
        xs, ys = series([r for r in mine if r["stages"] == "default"], "speedup_vs_paper")
        if xs:
            ax.plot(xs, ys, "x:", color=color, ms=5, label=f"{key}, solver default")
        goals = {(r["n"], r["paper_ms"] / r["goal_ms"]) for r in mine
                 if r["goal_ms"] and r["paper_ms"]}
        for n, speedup in goals:
            ax.plot([n], [speedup], "*", color=color, ms=13, markeredgecolor="k")
    ax.plot([], [], "*", color="w", markeredgecolor="k", ms=13, label="goal (issue 6, H100)")
    ax.axhline(1.0, color="0.45", lw=1)
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xlabel("n (grid points per dimension)")
    ax.set_ylabel(f"speed-up over the paper ({PAPER_DEVICE}), median time ratio")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=7, ncol=2)
    ax.set_title(f"GPU PSCR on {device}: speed-up over the paper's Tables 1-4")
    fig.tight_layout()
    fig.savefig(out)


def fastest_per_size(rows):
    """Per (problem, n) the PSCR row with the smaller median of the two stage variants."""
    best = {}
    for r in rows:
        if r["stages"] not in PSCR_VARIANTS or not r["median_ms"] or not r["gflop"] or not r["gbytes"] or not r["gflops"]:
            continue
        k = (r["key"], r["n"])
        if k not in best or r["median_ms"] < best[k]["median_ms"]:
            best[k] = r
    return best


def roofline_data(rows, path):
    """The points (fastest_per_size) and the run's ceilings: medians of copy_gbs and
    fp64_gflops over the rows (one measurement per run, repeated on every row)."""
    best = fastest_per_size(rows)
    if not best:
        raise InputError(f"{path}: no row with gflop, gbytes and gflops for the roofline")
    copy = sorted(r["copy_gbs"] for r in rows if r["copy_gbs"])
    fp64 = sorted(r["fp64_gflops"] for r in rows if r["fp64_gflops"])
    if not copy or not fp64:
        raise InputError(f"{path}: no measured ceilings (copy_gbs, fp64_gflops)")
    return best, copy[len(copy) // 2], fp64[len(fp64) // 2]


def plot_roofline(plt, rows, roofline, device, out):
    best, copy_gbs, fp64_gflops = roofline
    balance = fp64_gflops / copy_gbs
    intensities = [r["gflop"] / r["gbytes"] for r in best.values()]
    x0 = min(min(intensities), balance) / 4
    x1 = max(max(intensities), balance) * 4
    fig, ax = plt.subplots(figsize=(7.5, 5.2))
    ax.plot([x0, balance], [x0 * copy_gbs, fp64_gflops], "k-", lw=1.5)
    ax.plot([balance, x1], [fp64_gflops, fp64_gflops], "k-", lw=1.5)
    for key in problems_of(rows):
        pts = sorted((n, r) for (k, n), r in best.items() if k == key)
        if not pts:
            continue
        xs = [r["gflop"] / r["gbytes"] for _, r in pts]
        ys = [r["gflops"] for _, r in pts]
        sizes = [12 + 10 * math.log2(n / pts[0][0] + 1) for n, _ in pts]
        color = PROBLEM_COLORS.get(key)
        ax.plot(xs, ys, "-", color=color, lw=0.8, alpha=0.6)
        ax.scatter(xs, ys, s=sizes, color=color, label=key, zorder=3)
        for (n, _), x, y in ((pts[0], xs[0], ys[0]), (pts[-1], xs[-1], ys[-1])):
            ax.annotate(f"n={n}", (x, y), textcoords="offset points", xytext=(4, -10),
                        fontsize=7, color=color)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlim(x0, x1)
    ax.set_ylim(min(r["gflops"] for r in best.values()) / 3, fp64_gflops * 3)
    ax.set_xlabel("arithmetic intensity [flop/byte] (gflop / gbytes per solve)")
    ax.set_ylabel("achieved GFLOP/s (median solve)")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=8, loc="upper left", title="faster stage variant; size grows with n",
              title_fontsize=7)
    ax.set_title(f"GPU PSCR roofline on {device} (ceilings measured in the same run)")
    fig.tight_layout()
    # Labels on the roof, the sloped one drawn at the slope it has on screen (after the layout).
    xa, xb = x0 * 2, x0 * 4
    (pa, pb) = ax.transData.transform([(xa, xa * copy_gbs), (xb, xb * copy_gbs)])
    angle = math.degrees(math.atan2(pb[1] - pa[1], pb[0] - pa[0]))
    ax.text(xa, xa * copy_gbs * 1.3, f"copy bandwidth {copy_gbs:.0f} GB/s", rotation=angle,
            rotation_mode="anchor", fontsize=8)
    ax.text(x1 / 1.3, fp64_gflops * 1.15, f"FP64 FMA {fp64_gflops:.0f} GFLOP/s", fontsize=8,
            ha="right", va="bottom")
    fig.savefig(out)


def plot_stages(plt, rows, device, out):
    keys = problems_of(rows)
    fig, axes = panels(plt, len(keys), width=6.0, height=3.8)
    variants = [v for v in PSCR_VARIANTS if any(r["stages"] == v for r in rows)]
    width = 0.8 / len(variants)
    for ax, key in zip(axes, keys):
        mine = [r for r in rows if r["key"] == key]
        sizes = sorted({r["n"] for r in mine})
        for v, variant in enumerate(variants):
            for i, n in enumerate(sizes):
                picked = [r for r in mine if r["n"] == n and r["stages"] == variant]
                if not picked:
                    continue
                shares = [picked[0][c] or 0.0 for c, _ in STAGES]
                x = i - 0.4 + width * (v + 0.5)
                bottom = 0.0
                for share, color in zip(shares, STAGE_COLORS):
                    ax.bar(x, share, width * 0.95, bottom=bottom, color=color,
                           hatch="//" if variant == "separate" else None, edgecolor="white",
                           linewidth=0.3)
                    bottom += share
        ax.set_xticks(range(len(sizes)))
        ax.set_xticklabels([str(n) for n in sizes], fontsize=7)
        ax.set_ylim(0, 1.0)
        ax.set_title(key)
        ax.set_xlabel("n" + ("  (left: fused, right: separate stages)" if len(variants) == 2
                             else f"  ({variants[0]} stages)"))
        ax.set_ylabel("share of device time")
    handles = [plt.Rectangle((0, 0), 1, 1, color=c) for c in STAGE_COLORS]
    fig.legend(handles, [label for _, label in STAGES], loc="lower center", ncol=len(STAGES),
               fontsize=8)
    fig.suptitle(f"GPU PSCR: share of device time per stage on {device} "
                 "(profiled solve, as the paper's Figures 6-7)")
    fig.tight_layout(rect=(0, 0.05, 1, 1))
    fig.savefig(out)


# --------------------------------------------------------------------------------------------
# Tridiagonal solvers


def load_tridiag(path):
    rows = []
    for r in read_csv(path, TRIDIAG_COLUMNS):
        row = dict(r)
        for c in ("n", "batch", "rows_per_thread", "median_ms", "fraction_of_copy",
                  "max_residual", "reps"):
            row[c] = number(r, c, path, required=c in ("n", "batch")) or 0.0
        row["n"], row["batch"] = int(row["n"]), int(row["batch"])
        rows.append(row)
    for form in ("shifted", "general"):
        if not any(r["form"] == form and timed(r) for r in rows):
            raise InputError(f"{path}: no timed {form}-form rows")
    return rows


def shifted_goal(n):
    """Issue 5: >= 70% of the copy bandwidth on the four many-systems shapes (n <= 8192),
    >= 50% on the two few-large-systems shapes (n = 65536 and 2^20)."""
    return 0.70 if n <= 8192 else 0.50


def method_label(r):
    parts = [r["method"].replace("cusparse_", "")]
    if r["rows_per_thread"] > 0:
        parts.append(f"m={int(r['rows_per_thread'])}")
    if r["staging"] not in ("-", ""):
        parts.append(r["staging"])
    return " ".join(parts)


def timed(r):
    """A row with a time: skipped slow methods keep the faster of their two runs."""
    return r["median_ms"] > 0


def candidate(r, dominant=False, helmholtz=False, window_bound=False):
    """One of our methods that the selection table may pick (bench/tridiag_select.py): timed,
    accurate, and for complex scalars one that serves systems not declared dominant
    (tridiag_select.serves_indefinite) unless `dominant` (the table's entries for diagonally
    dominant systems; automatic and automatic_dominant are the selection among the others).
    The window method's rows of staging "checked" (its check on the device, which serves any
    system) are, as tridiag_select takes them; its "assured" rows only where `window_bound`, for
    calls that assure its bound (Options::window_bound, which implies dominance; the table's
    `window` flags choose them); rows of staging "waited" (a check the host waited for) never.
    `helmholtz`: a row of Helmholtz systems (tridiag_bench --systems helmholtz), whose residual
    counts as tridiag_select.accurate has it."""
    if not timed(r) or not accurate(r["max_residual"], helmholtz):
        return False
    if r["method"] == "window":
        return r["staging"] == "checked" or (window_bound and r["staging"] == "assured")
    if (r["method"] in ("copy", "automatic", "automatic_dominant")
            or r["method"].startswith("cusparse")):
        return False
    return (dominant or window_bound or r["scalar"] != "complex"
            or serves_indefinite(r["method"], int(r["rows_per_thread"]), r["n"]))


def best_shifted(rows, scalar, layout, n, batch, dominant=False, helmholtz=False,
                 window_bound=False):
    """The shifted-form candidate with the largest fraction of the copy bandwidth at this shape,
    scalar and layout (what a selection table regenerated from the CSV picks; `dominant`: its
    entry for diagonally dominant systems; `helmholtz`: rows of Helmholtz systems;
    `window_bound`: calls that assure the window method's bound), or None."""
    fixed = [r for r in rows if r["form"] == "shifted" and r["scalar"] == scalar
             and r["layout"] == layout and r["n"] == n and r["batch"] == batch
             and candidate(r, dominant, helmholtz, window_bound)]
    return max(fixed, key=lambda r: r["fraction_of_copy"]) if fixed else None


# Issue 5's goals for the general form: (layout, cuSPARSE method prefix, name, speed-up goal).
GENERAL_GOALS = [("contiguous", "cusparse_gtsv2StridedBatch", "gtsv2StridedBatch", 2.0),
                 ("interleaved", "cusparse_gtsvInterleavedBatch", "best gtsvInterleavedBatch",
                  1.2)]


def general_speedup(rows, scalar, layout, prefix, n, batch):
    """(cuSPARSE's time / our best time, our best row, cuSPARSE's best row) for the general form
    at this shape, scalar and layout, the cuSPARSE methods whose name starts with `prefix`; None
    where either side has no timed row."""
    same = [r for r in rows if r["form"] == "general" and timed(r) and r["scalar"] == scalar
            and r["layout"] == layout and r["n"] == n and r["batch"] == batch]
    ours = [r for r in same if candidate(r)]
    theirs = [r for r in same if r["method"].startswith(prefix)]
    if not ours or not theirs:
        return None
    mine = min(ours, key=lambda r: r["median_ms"])
    other = min(theirs, key=lambda r: r["median_ms"])
    return other["median_ms"] / mine["median_ms"], mine, other


def shape_label(shape):
    n, batch = shape
    def p2(v):
        return f"2^{v.bit_length() - 1}" if v > 0 and v & (v - 1) == 0 else str(v)
    return f"n={p2(n)}\nbatch={p2(batch)}"


def bars_by_shape(plt, ax, shapes, groups, heights, labels, colors, log=False, hatched=None):
    """Grouped bars: one group per shape, one bar per entry of `groups`; heights[g][s] may be
    None (not measured), hatched[g][s] marks a bar drawn hatched. Labels are written above the
    bars, vertically. Returns the legend entries of the groups (handles, names)."""
    width = 0.8 / len(groups)
    for g, group in enumerate(groups):
        for s, _ in enumerate(shapes):
            h = heights[g][s]
            x = s - 0.4 + width * (g + 0.5)
            if h is None:
                ax.text(x, 0.02 if not log else 1.05, "n/a", rotation=90, fontsize=6,
                        ha="center", va="bottom")
                continue
            hatch = "//" if hatched and hatched[g][s] else None
            ax.bar(x, h, width * 0.9, color=colors[g], hatch=hatch, edgecolor="white",
                   linewidth=0.3)
            ax.text(x, h, " " + labels[g][s], rotation=90, fontsize=6, ha="center",
                    va="bottom")
    ax.set_xticks(range(len(shapes)))
    ax.set_xticklabels([shape_label(s) for s in shapes], fontsize=7)
    return [plt.Rectangle((0, 0), 1, 1, color=c) for c in colors], list(groups)


def plot_tridiag_shifted(plt, rows, device, out):
    shapes = sorted({(r["n"], r["batch"]) for r in rows if r["form"] == "shifted"})
    groups = [(sc, lay) for sc in ("real", "complex") for lay in ("contiguous", "interleaved")]
    heights, labels, auto = [], [], []
    for scalar, layout in groups:
        h, lab, a = [], [], []
        for n, batch in shapes:
            best = best_shifted(rows, scalar, layout, n, batch)
            h.append(best["fraction_of_copy"] if best else None)
            lab.append(method_label(best) if best else "")
            picked = [r["fraction_of_copy"] for r in rows
                      if r["form"] == "shifted" and r["scalar"] == scalar
                      and r["layout"] == layout and r["n"] == n and r["batch"] == batch
                      and r["method"] == "automatic" and timed(r)]
            a.append(picked[0] if picked else None)
        heights.append(h)
        labels.append(lab)
        auto.append(a)
    # 0.8 inch per shape: its two-line label and four bars' vertical labels stay apart.
    fig, ax = plt.subplots(figsize=(max(10, 0.8 * len(shapes)), 5.6))
    colors = ["#4c72b0", "#8fb0dd", "#c44e52", "#e8a0a2"]
    handles, names = bars_by_shape(plt, ax, shapes, [f"{s}, {l}" for s, l in groups], heights,
                                   labels, colors)
    width = 0.8 / len(groups)
    for g in range(len(groups)):
        xs = [s - 0.4 + width * (g + 0.5) for s in range(len(shapes)) if auto[g][s] is not None]
        ys = [v for v in auto[g] if v is not None]
        ax.plot(xs, ys, "_", color="k", ms=10, mew=2,
                label="automatic (the table of the benchmarked build)" if g == 0 else None)
    for s, (n, _) in enumerate(shapes):
        ax.plot([s - 0.45, s + 0.45], [shifted_goal(n)] * 2, "--", color="0.2", lw=1.2,
                label="goal (issue 5)" if s == 0 else None)
    ax.set_ylim(0, 1.0)
    ax.set_ylabel("fraction of the measured copy bandwidth")
    more_handles, more_names = ax.get_legend_handles_labels()
    # Below the axes: above them it would cover the tallest bars' labels.
    ax.legend(handles + more_handles, names + more_names, fontsize=7, loc="upper center",
              bbox_to_anchor=(0.5, -0.1), ncol=6, frameon=False)
    ax.set_title(f"Shifted-form tridiagonal solves on {device}: best method per shape "
                 "(bars, labelled) vs goals")
    fig.tight_layout()
    fig.savefig(out, bbox_inches="tight")


def plot_tridiag_general(plt, rows, device, out):
    shapes = sorted({(r["n"], r["batch"]) for r in rows if r["form"] == "general" and timed(r)})
    fig, axes = plt.subplots(1, 2, figsize=(12, 5.0))
    for ax, (layout, prefix, name, goal) in zip(axes, GENERAL_GOALS):
        heights, labels, one_run = [], [], []
        for scalar in ("real", "complex"):
            h, lab, once = [], [], []
            for n, batch in shapes:
                found = general_speedup(rows, scalar, layout, prefix, n, batch)
                if found is None:
                    h.append(None)
                    lab.append("")
                    once.append(False)
                    continue
                speedup, mine, other = found
                h.append(speedup)
                lab.append(method_label(mine))
                once.append((other["note"] or "").startswith("skipped"))
            heights.append(h)
            labels.append(lab)
            one_run.append(once)
        handles, names = bars_by_shape(plt, ax, shapes, ["real", "complex"], heights, labels,
                                       ["#4c72b0", "#c44e52"], log=True, hatched=one_run)
        ax.axhline(goal, color="0.2", ls="--", lw=1.2, label=f"goal (issue 5): {goal:g}x")
        ax.axhline(1.0, color="0.45", lw=1)
        ax.set_yscale("log")
        tallest = max(v for h in heights for v in h if v is not None)
        ax.set_ylim(top=max(tallest, goal) * 30)
        ax.set_ylabel("speed-up: cuSPARSE time / our best time")
        ax.set_title(f"vs {name} ({layout} layout)", fontsize=10)
        more_handles, more_names = ax.get_legend_handles_labels()
        handles, names = handles + more_handles, names + more_names
        if any(any(once) for once in one_run):
            handles.append(plt.Rectangle((0, 0), 1, 1, facecolor="w", edgecolor="0.3", hatch="//"))
            names.append("cuSPARSE too slow to time in full (faster of two runs)")
        ax.legend(handles, names, fontsize=7, loc="upper left")
        ax.grid(True, axis="y", which="both", alpha=0.3)
    fig.suptitle(f"General-form tridiagonal solves on {device}: our best method (labelled) "
                 "against cuSPARSE")
    fig.tight_layout()
    fig.savefig(out)


# --------------------------------------------------------------------------------------------


def parse_args(argv):
    p = argparse.ArgumentParser(
        usage="%(prog)s [--pscr-gpu CSV [--peers CSV]] [--tridiag CSV] --out DIR [--force] "
              "[--dpi N]",
        description=__doc__.split("\n", 1)[0],
        epilog=__doc__.split("\n", 4)[4].lstrip("\n"),
        formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--pscr-gpu", metavar="CSV", help="pscr_gpu_bench CSV")
    p.add_argument("--peers", metavar="CSV", help="peers_bench CSV (drawn with --pscr-gpu)")
    p.add_argument("--tridiag", metavar="CSV", help="tridiag_bench CSV")
    p.add_argument("--out", metavar="DIR", required=True, help="output directory (created)")
    p.add_argument("--force", action="store_true", help="overwrite existing PNGs")
    p.add_argument("--dpi", type=int, default=100, help="resolution of the PNGs (default 100)")
    args = p.parse_args(argv)
    if not args.pscr_gpu and not args.tridiag:
        p.error("nothing to plot: give --pscr-gpu and/or --tridiag")
    if args.peers and not args.pscr_gpu:
        p.error("--peers is drawn on the PSCR time plot: give --pscr-gpu too")
    if args.dpi < 10:
        p.error(f"--dpi: expected at least 10, found {args.dpi}")
    return args


def main(argv):
    args = parse_args(argv)
    jobs = []  # (output path, plot function, arguments after plt)
    try:
        if args.pscr_gpu:
            rows = load_pscr(args.pscr_gpu)
            peers, peer_device = load_peers(args.peers) if args.peers else ([], "")
            device, s = devices(rows), stem(args.pscr_gpu)
            jobs += [(f"{s}-time.png", plot_time, (rows, peers, peer_device, device)),
                     (f"{s}-speedup.png", plot_speedup, (rows, device)),
                     (f"{s}-roofline.png", plot_roofline,
                      (rows, roofline_data(rows, args.pscr_gpu), device)),
                     (f"{s}-stages.png", plot_stages, (rows, device))]
        if args.tridiag:
            rows = load_tridiag(args.tridiag)
            device, s = devices(rows), stem(args.tridiag)
            jobs += [(f"{s}-shifted.png", plot_tridiag_shifted, (rows, device)),
                     (f"{s}-general.png", plot_tridiag_general, (rows, device))]
    except InputError as e:
        print(f"plot_results: {e}", file=sys.stderr)
        return EXIT_INPUT
    outputs = [os.path.join(args.out, name) for name, _, _ in jobs]
    existing = [o for o in outputs if os.path.exists(o)]
    if existing and not args.force:
        print(f"plot_results: {', '.join(existing)} exist(s); use --force to overwrite",
              file=sys.stderr)
        return EXIT_EXISTS
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError as e:
        print(f"plot_results: matplotlib is not available ({e}); install python3-matplotlib",
              file=sys.stderr)
        return EXIT_NO_MATPLOTLIB
    plt.rcParams["savefig.dpi"] = args.dpi
    os.makedirs(args.out, exist_ok=True)
    for out, (_, plot, plot_args) in zip(outputs, jobs):
        plot(plt, *plot_args, out)
        plt.close("all")
        print(out)
    return 0


if __name__ == "__main__":
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)  # `| head` ends the output quietly
    sys.exit(main(sys.argv[1:]))
