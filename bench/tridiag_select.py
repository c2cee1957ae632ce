#!/usr/bin/env python3
"""Selection table of the GPU tridiagonal solvers from a tridiag_bench CSV.

Usage: tridiag_select.py BENCH.csv OUTPUT.inc [--helmholtz HELMHOLTZ.csv]

For every measured (scalar, layout, form, n, batch), picks the fastest non-pivoting
configuration (thomas, or partition / warp / segment / block / columns / sweep with its
rows_per_thread and staging) whose max_residual is at most 1e-10 (MAX_RESIDUAL), and writes one entry per shape in
the format of tridiag/cuda/selection_table_<gpu>.inc (each GPU with a table of its own, measured
on it: tridiag/cuda/selection.hpp, selection_gpu): {interleaved, complex, dominant, general, n,
batch, method, rows_per_thread, staged}. Both forms: PSCR solves the shifted one, its coarse systems and the
users of solve_general the general one, and the fastest methods differ (p-Thomas reads the
general form's interleaved rows straight from memory, the shifted form's through tiles). Rows
the benchmark skipped (note "skipped: ...", too slow to time in full) never win.
Complex configurations whose threads eliminate more than MAX_COMPLEX_LANE_ROWS rows each without
pivoting (segment, block and columns K, partition M, the warp and sweep methods' K: lane_rows)
are left out: the benchmark's complex systems are diagonally dominant, PSCR's Helmholtz systems
are indefinite, and eliminating 6 or more interior rows per lane without pivoting lost accuracy
there. pscr_gpu_bench on an H200, segment K = 8 instead of 4 for complex n = 8192: 2D Helmholtz
initial relative residual n = 255 3.5e-11 -> 1.3e-10, 2047 3.1e-9 -> 5.7e-5, 8191 5.9e-8 ->
3.1e-4. On an H100, the warp method (K = 16) instead of block K = 4 for complex n = 511: 3D
Helmholtz 511^3 initial relative residual 1.8e-7 -> 1.9e-6, after one refinement 5.9e-14 ->
1.1e-11. The partition method's local eliminations are the same Schur complements
(partition.cuh), so the same bound. (Those residuals were measured with the segment method's passes
of lanes of K rows and the warp's solve. Complex shifted systems of several segments with large
batches now run both passes one lane per segment, where the bound holds too: the CPU emulation
loses accuracy at K = 16 on a shift K = 4 solves (n = 4095, seed 3: 1.4e-8 against 1.2e-12;
test_cuda_emulation.cu, LanesBeyondFourRowsPerLaneLoseAccuracy), as the GPU's Helmholtz test did
at 7.7e-9 with K = 16 there (docs/tridiag-performance.md, 2026-12-04), though K = 8 or 16 ran
1.4-3.8% faster on the benchmark's systems.) The sweep method on complex systems of one warp, up to
SWEEP_GUARDED_MAX_ROWS rows, is not bounded: not declared dominant, it guards its reduced solve
(tridiag/cuda/warp.cuh, ReducedGrowth) and solves the reduced rows again in order where the guard
flags them, which met 1e-10 on the GPU's Helmholtz test up to K = 32 (n = 1023; the bound of 4
came from the unguarded solve), and its cluster kernel (769 to 8192 rows, K = 8, spike and coarse
solves guarded: tridiag/cuda/sweep_cluster.cuh), 0 of 16000 shifts above 1e-10 on the GPU's
Helmholtz test. Where it is faster on such systems, the Helmholtz CSV decides: its guard stalls a
cluster where one segment flags, which the shifts PSCR forms make it do (tridiag_bench
--systems helmholtz uses them). Likewise the segment and columns methods on complex systems of
one segment (32 lanes or chunks of K rows cover n) up to MAX_GUARDED_LANE_ROWS: beyond K = 4
they guard their reduced solve the same way (tridiag/cuda/warp.cuh, kGuardedLanes), which met
1e-10 on the GPU's Helmholtz test at K = 8 and 16 (n = 127, 255, 511, both forms); systems of
several segments are condensed unguarded and keep the bound. CSVs from before the staging/note
columns are read too (staging "global", no note). A table holds one GPU's measurements (each GPU
has its own: tridiag/cuda/selection.hpp, selection_gpu): CSVs naming several devices are refused.
With --helmholtz, the complex entries that are not `dominant` come from HELMHOLTZ.csv instead
where it has a usable row for them: a tridiag_bench run with --scalars complex --systems
helmholtz, the indefinite systems those entries serve (problems::HelmholtzPencil). On them the
guarded configurations solve some systems' reduced rows again in order, which the benchmark's
dominant systems never make them do, and complex arithmetic takes other branches: at PSCR's
small 2D batches the guarded ones lost their lead (H100, contiguous 511 x 511: the guarded sweep
0.0180 -> 0.0285 ms, block K = 4 0.0189 -> 0.0219; PSCR 2D Helmholtz 511^2 with block K = 4
instead of the sweep 0.462 -> 0.422 ms), at 2^24 rows within 4%. There a guarded configuration
(beyond MAX_COMPLEX_LANE_ROWS rows per lane) must beat the unguarded ones by GUARDED_MARGIN: its
time follows how often its guard flags, which differs from one Helmholtz problem to the next.
Complex shapes get a second entry, `dominant`, without that bound: the fastest configuration for
diagonally dominant systems (tridiag::cuda::Options::dominant), on which elimination without
pivoting is stable in any order. The benchmark's systems are diagonally dominant.
The window method's rows set two flags of the real and the complex `dominant` entries of the
shifted form (either layout: the sweep window kernel on contiguous rows, the columns method's
windows on interleaved ones), the entry's own method staying the fastest exact one, which the
window method falls back to: `window`, where its rows of staging "assured" (Options::window_bound,
where window_bound_holds found the benchmark's systems within the bound) ran faster than the
entry's configuration by more than WINDOW_MARGIN, which calls that assure the bound then take; and
`checked`, where its rows of staging "checked" (tridiag_bench's "window" rows that check the bound
on the device and gate the exact fallback on the check's count, so the call waits for nothing) did,
which every call of that shape then takes (tridiag/cuda/selection.hpp, select_method). The
benchmark's systems meet the bound; systems that do not pay the check and then the fallback, so
neither flag is set on the complex entries that are not `dominant` (indefinite Helmholtz systems).
Rows of staging "waited" (the check before 2026-12-07, which the host waited for) set nothing.
"""
import csv
import math
import signal
import sys

MAX_RESIDUAL = 1e-10  # largest max_residual of a configuration that may win (dominant systems)
MAX_COMPLEX_LANE_ROWS = 4  # tridiag/cuda/selection.hpp: kMaxComplexLaneRows, the same bound
WARP_LANES = 32
MAX_GUARDED_LANE_ROWS = 16  # kMaxGuardedLaneRows: guarded segment and columns kernels, one segment
SWEEP_CLUSTER_MIN_ROWS = 769  # tridiag/cuda/sweep_cluster.cuh: kSweepClusterMinRows
SWEEP_CLUSTER_MAX_SEGMENTS = 32  # kSweepClusterMaxSegments
SWEEP_CLUSTER_COMPLEX_ROWS = 8  # kSweepClusterComplexRows
# tridiag/cuda/selection.hpp: kSweepComplexWideMaxRows, complex K = 16 (the cluster kernel's InBlock
# instance) where asked for up to that many rows
SWEEP_COMPLEX_WIDE_MAX_ROWS = 1024
# tridiag/cuda/selection.hpp: kSweepGuardedMaxRows, the guarded complex sweep (its cluster kernel's
# most rows)
SWEEP_GUARDED_MAX_ROWS = WARP_LANES * SWEEP_CLUSTER_COMPLEX_ROWS * SWEEP_CLUSTER_MAX_SEGMENTS
SWEEP_CLUSTER_WIDE_ROWS = 1 << 23  # tridiag/cuda/solve.cu: kSweepClusterWideRows
# A guarded configuration's time on Helmholtz systems depends on how often its guard flags, which
# varies from problem to problem; it takes a table entry not declared dominant only where it beats
# the unguarded ones by more than this fraction. One problem per shape decides each entry, and
# neighbours disagreed below it: with the twisted fallback the cluster kernel won 4095 x 4095 by
# 3.7% and lost 4096 x 4096, and PSCR 2D Helmholtz 4095^2 (separate stages) ran 1.7% slower with
# it (H100, docs/tridiag-performance.md, section on the guard's fallback solved from both ends).
GUARDED_MARGIN = 0.05
# The window method (its bound assured, or checked) sets an entry's `window` (or `checked`) flag
# only where it beats the entry's configuration by more than this fraction: the flag serves the
# shapes around the entry too, where its windows' overlap (512 rows read per 448 written) and a
# last window partly empty weigh differently. Below it the H100's two runs of 2026-12-06 had near ties, one of them the
# other way round in the second run (real 2047 x 2047, window against the sweep method: 0.0432
# against 0.0435 ms, then 0.0436 against 0.0434; complex 1023 x 1023 0.0272 against 0.0273; real
# 1023 x 1023 3.7% faster).
WINDOW_MARGIN = 0.05


def lane_rows(method, rows_per_thread, n):
    """Rows a thread or lane of the configuration takes (and eliminates all but two of without
    pivoting), None where it does not partition the system (thomas; tiled_pcr, whose
    rows_per_thread is its PCR steps and whose independent systems the selection table's method
    solves). The warp method raises its rows_per_thread (0 included) to the smallest K of 2, 4,
    8, 16 with 32 K >= n (it runs only n <= 512: the benchmark records no method under a name it
    did not run)."""
    if method in ("segment", "block", "columns", "partition"):
        return rows_per_thread
    if method == "warp":
        return max(rows_per_thread, next((k for k in (2, 4, 8) if WARP_LANES * k >= n), 16))
    if method == "sweep":
        return sweep_rows(n, rows_per_thread)
    return None


def serves_indefinite(method, rows_per_thread, n):
    """Whether a complex configuration may serve systems not declared dominant (the table's
    entries that are not `dominant`): at most MAX_COMPLEX_LANE_ROWS rows per lane, or none
    (lane_rows); the guarded sweep method up to SWEEP_GUARDED_MAX_ROWS rows; the segment and
    columns methods up to MAX_GUARDED_LANE_ROWS rows per lane where one segment of 32 lanes or
    chunks covers the system (their guarded reduced solve; several segments are condensed
    unguarded)."""
    rows = lane_rows(method, rows_per_thread, n)
    if rows is None or rows <= MAX_COMPLEX_LANE_ROWS:
        return True
    if method == "sweep":
        return n <= SWEEP_GUARDED_MAX_ROWS
    return (method in ("segment", "columns") and rows <= MAX_GUARDED_LANE_ROWS and
            WARP_LANES * rows >= n)


def guarded(method, rows_per_thread, n):
    """Whether a complex configuration serves systems not declared dominant through its guard
    alone (serves_indefinite, beyond MAX_COMPLEX_LANE_ROWS rows per lane)."""
    rows = lane_rows(method, rows_per_thread, n)
    return rows is not None and rows > MAX_COMPLEX_LANE_ROWS


def accurate(residual, helmholtz):
    """Whether a row's max_residual lets it compete: at most MAX_RESIDUAL, or on Helmholtz systems
    (tridiag_bench --systems helmholtz) any finite one. How accurate a configuration is on those
    systems was settled by the GPU's Helmholtz tests (serves_indefinite); the sampled residual of
    their long systems follows the shifts' conditioning (general form, 1024 x 2^14: 9.1e-10 for
    block K = 4, 2.8e-10 for the partition method), which a fixed bound would turn into a lottery
    among configurations."""
    return math.isfinite(residual) if helmholtz else residual <= MAX_RESIDUAL


def sweep_rows(n, requested):
    """The sweep method's rows per lane (tridiag/cuda/sweep.cuh, sweep_rows): the smallest even
    K >= 4 with 32 K >= n, or the requested K (made even) if larger, up to 768 rows; from 769 rows
    the cluster kernel's (tridiag/cuda/solve.cu, sweep_cluster_rows), 8 or 16 real, complex 16
    where more than 8 is requested up to SWEEP_COMPLEX_WIDE_MAX_ROWS rows, else
    SWEEP_CLUSTER_COMPLEX_ROWS: the bound is on complex rows only, so their K is the one
    returned."""
    if n >= SWEEP_CLUSTER_MIN_ROWS:
        if requested > 8 and n <= SWEEP_COMPLEX_WIDE_MAX_ROWS:
            return 16
        return SWEEP_CLUSTER_COMPLEX_ROWS
    k = max(4, -(-n // WARP_LANES))
    k += k % 2
    return max(k, requested + requested % 2)


def sweep_cluster_open_rows(n, batch):
    """The cluster kernel's K where a call leaves it open (tridiag/cuda/solve.cu,
    sweep_cluster_rows): 8 on a batch below SWEEP_CLUSTER_WIDE_ROWS rows where it pads the
    systems to a tenth or more fewer rows than 16 and covers n, else 16."""
    def padded(k):
        rows = WARP_LANES * k
        return -(-n // rows) * rows
    eight = n * batch < SWEEP_CLUSTER_WIDE_ROWS and 10 * (padded(16) - padded(8)) >= padded(16)
    return 8 if eight and n <= WARP_LANES * 8 * SWEEP_CLUSTER_MAX_SEGMENTS else 16


def table_rows(method, rows_per_thread, n, batch, complex_):
    """rows_per_thread as the table records it: 0 (left open) for the sweep method's cluster
    kernel where the measured K is the one the kernel takes when K is left open at that shape, so
    that the shapes that take the entry as their nearest (PSCR's batches of about n systems, far
    from the table's 2^24 rows) keep sweep_cluster_rows' choice by batch and padding."""
    if (method == "sweep" and not complex_ and n >= SWEEP_CLUSTER_MIN_ROWS and
            rows_per_thread == sweep_cluster_open_rows(n, batch)):
        return 0
    return rows_per_thread


def fastest(path, helmholtz):
    """{entry key: (rank, ms, method, rows_per_thread as the table records it, device, staged)}:
    the fastest usable configuration per entry among the rows of one CSV, by rank: the median
    time, on Helmholtz systems a guarded configuration's raised by GUARDED_MARGIN. `helmholtz`:
    the CSV's complex systems are indefinite Helmholtz ones (tridiag_bench --systems helmholtz),
    whose rows only compete for complex entries that are not `dominant`."""
    best = {}
    with open(path, newline="") as f:
        for row in csv.DictReader(f):
            # The exact methods (the window method's rows set the entry's flags: window_times).
            methods = ("thomas", "partition", "warp", "segment", "block", "columns", "sweep",
                       "tiled_pcr")
            if row["form"] not in ("shifted", "general") or row["method"] not in methods:
                continue
            if not usable(row, helmholtz):
                continue
            complex_ = row["scalar"] == "complex"
            # The entries this row may win: real rows the one real entry; complex rows the
            # dominant entry, and the other one where they keep within the bound; rows of
            # Helmholtz systems only the other one.
            bounded = complex_ and serves_indefinite(row["method"], int(row["rows_per_thread"]),
                                                     int(row["n"]))
            if helmholtz:
                kinds = (False,) if bounded else ()
            elif not complex_:
                kinds = (False,)
            else:
                kinds = (False, True) if bounded else (True,)
            ms = float(row["median_ms"])
            margin = helmholtz and guarded(row["method"], int(row["rows_per_thread"]),
                                           int(row["n"]))
            rank = ms * (1 + GUARDED_MARGIN) if margin else ms
            for dominant in kinds:
                key = (row["layout"] == "interleaved", complex_, dominant,
                       row["form"] == "general", int(row["n"]), int(row["batch"]))
                if key not in best or rank < best[key][0]:
                    m = table_rows(row["method"], int(row["rows_per_thread"]), int(row["n"]),
                                   int(row["batch"]), complex_)
                    best[key] = (rank, ms, row["method"], m, row["device"],
                                 row.get("staging") == "shared")
    return best


def usable(row, helmholtz):
    """Whether a row was timed in full (not skipped) and accurate (accurate)."""
    if (row.get("note") or "").startswith("skipped") or int(row.get("reps") or 1) < 1:
        return False
    return accurate(float(row["max_residual"]), helmholtz) and float(row["median_ms"]) > 0


def window_times(path, staging):
    """{entry key: ms} of the window method of `staging` (tridiag_bench's "window" rows: "assured",
    Options::window_bound; "checked", its bound checked on the device) in a CSV of dominant
    systems: the keys of the real entries and the complex `dominant` ones of the shifted form,
    either layout (the complex entries that are not `dominant` serve indefinite systems, which
    fail the bound)."""
    times = {}
    with open(path, newline="") as f:
        for row in csv.DictReader(f):
            if (row["method"] != "window" or row.get("staging") != staging or
                    row["form"] != "shifted" or not usable(row, False)):
                continue
            complex_ = row["scalar"] == "complex"
            interleaved = row["layout"] == "interleaved"
            times[(interleaved, complex_, complex_, False, int(row["n"]), int(row["batch"]))] = \
                float(row["median_ms"])
    return times


def devices_of(path):
    """The GPUs named in a CSV's device column."""
    with open(path, newline="") as f:
        return {row["device"] for row in csv.DictReader(f)}


def main(path, output, helmholtz_path=None):
    devices = devices_of(path) | (devices_of(helmholtz_path) if helmholtz_path else set())
    if len(devices) > 1:
        sys.exit(f"tridiag_select: rows of {len(devices)} GPUs ({', '.join(sorted(devices))}): a "
                 "table holds one GPU's measurements (tridiag/cuda/selection_table_<gpu>.inc); "
                 "give it CSVs of one GPU")
    best = fastest(path, False)
    if not best:
        sys.exit(f"tridiag_select: no usable rows in {path}")
    if helmholtz_path:
        measured = fastest(helmholtz_path, True)
        if not measured:
            sys.exit(f"tridiag_select: no usable complex rows in {helmholtz_path}")
        best.update(measured)
    assured = window_times(path, "assured")
    checked = window_times(path, "checked")
    lines = [
        "// Generated by bench/tridiag_select.py from the tridiag benchmark CSV; do not edit by hand.",
        f"// Measured on: {', '.join(devices)}.",
        "// {interleaved, complex, dominant, general, n, batch, method, rows_per_thread, staged, "
        "window, checked}",
    ]
    for key, (_, ms, method, m, _, staged) in sorted(best.items()):
        inter, cplx, dominant, general, n, batch = key
        flags, note = [], ""
        for name, times in (("window", assured), ("checked", checked)):
            flags.append(key in times and times[key] * (1 + WINDOW_MARGIN) < ms)
            note += f"; {name} {times[key]:.4g} ms" if key in times else ""
        lines.append(f"{{{str(inter).lower()}, {str(cplx).lower()}, {str(dominant).lower()}, "
                     f"{str(general).lower()}, {n}, {batch}, "
                     f"Method::{method}, {m}, {str(staged).lower()}, "
                     f"{str(flags[0]).lower()}, {str(flags[1]).lower()}}},"
                     f"  // {ms:.4g} ms{note}")
    with open(output, "w") as f:
        f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)  # `| head` ends the output quietly
    args = sys.argv[1:]
    if any(a in ("-h", "--help") for a in args):
        print(__doc__)
        sys.exit(0)
    helmholtz_csv = None
    if "--helmholtz" in args:
        at = args.index("--helmholtz")
        if at + 1 >= len(args):
            sys.exit("tridiag_select: --helmholtz: expected a CSV after it\n\n" + __doc__)
        helmholtz_csv = args[at + 1]
        del args[at:at + 2]
    if len(args) != 2:
        sys.exit(__doc__)
    main(args[0], args[1], helmholtz_csv)
