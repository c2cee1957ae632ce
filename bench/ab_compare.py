#!/usr/bin/python3
"""The result of a bench/ab.sh run side by side: one Markdown row per configuration, each
variant's median time over its rounds and its ratio to the baseline's.

Usage: ab_compare.py AB_CSV [--baseline NAME]

AB_CSV is ab.sh's OUTDIR/ab-TARGET.csv (columns variant and round in front of the benchmark's
own). A configuration is
  tridiag_bench   scalar, n, batch, form, layout, method, rows_per_thread, staging;
  pscr_gpu_bench  problem, scalar, dim, n, stages, method.
Per configuration and variant: the median over the rounds of median_ms (each round's own median
of repeated runs). Ratios are variant / baseline, so below 1 is faster than the baseline; the
baseline is NAME, else the variant named "base", else the first variant in the file. A variant
without a row for a configuration shows "-".
tridiag_bench CSVs hold the copy of every shape (method "copy"), timed in the same runs: there a
further column per variant, "VARIANT/BASELINE over copy", divides each ratio by its shape's copy
ratio, so that a change of the machine's speed between the variants' runs (small batches, whose
copy takes some microseconds, moved 5-19% in either direction in the H200 A/Bs of 2026-12-02)
is not read as the code's.

Exit codes: 0 the table was printed; 1 bad input (as bench/plot_results.py reads CSVs:
unreadable file, misaligned rows, missing columns, no rows, a median_ms that is not a number; or
an unknown baseline); 2 bad arguments.
"""
import os
import signal
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from plot_results import EXIT_INPUT, EXIT_USAGE, InputError, number, read_csv  # noqa: E402

KEYS = {
    "tridiag_bench": ["scalar", "n", "batch", "form", "layout", "method", "rows_per_thread",
                      "staging"],
    "pscr_gpu_bench": ["problem", "scalar", "dim", "n", "stages", "method"],
}


def load(path):
    """(key columns, variants in file order, {key: {variant: [median_ms per round]}})."""
    rows = read_csv(path, ["variant", "round", "median_ms"])
    keys = next((k for k in KEYS.values() if set(k) <= set(rows[0])), None)
    if keys is None:
        raise InputError(f"{path}: not an ab.sh CSV of tridiag_bench or pscr_gpu_bench (expected "
                         f"the columns of {' or '.join(KEYS)}; found {', '.join(rows[0])})")
    variants, times = [], {}
    for r in rows:
        ms = number(r, "median_ms", path, required=True)
        if r["variant"] not in variants:
            variants.append(r["variant"])
        times.setdefault(tuple(r[k] for k in keys), {}).setdefault(r["variant"], []).append(ms)
    return keys, variants, times


def ratio(med, variant, baseline):
    """med[variant] / med[baseline], or None where either is missing or the baseline is 0."""
    ok = variant in med and baseline in med and med[baseline] > 0
    return med[variant] / med[baseline] if ok else None


def table(keys, variants, times, baseline):
    """Markdown lines: the configuration, each variant's median and each other's ratio, and
    where the CSV times the copy of each shape (tridiag_bench), each ratio over the copy's."""
    others = [v for v in variants if v != baseline]
    medians = {key: {v: statistics.median(per[v]) for v in variants if v in per}
               for key, per in times.items()}
    copies = {}  # (scalar, n, batch): the copy's ratio per variant
    if keys == KEYS["tridiag_bench"]:
        shape = [keys.index(k) for k in ("scalar", "n", "batch")]
        for key, med in medians.items():
            if key[keys.index("method")] == "copy":
                copies[tuple(key[i] for i in shape)] = {v: ratio(med, v, baseline) for v in others}
    head = keys + [f"{v} ms" for v in variants] + [f"{v}/{baseline}" for v in others]
    if copies:
        head += [f"{v}/{baseline} over copy" for v in others]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for key, med in medians.items():
        cells = list(key) + [f"{med[v]:.4g}" if v in med else "-" for v in variants]
        ratios = [ratio(med, v, baseline) for v in others]
        cells += [f"{r:.3f}" if r is not None else "-" for r in ratios]
        if copies:
            copy = copies.get(tuple(key[i] for i in shape), {})
            for v, r in zip(others, ratios):
                c = copy.get(v)
                cells.append(f"{r / c:.3f}" if r is not None and c else "-")
        lines.append("| " + " | ".join(cells) + " |")
    return lines


def main(argv):
    if not argv or argv[0] in ("-h", "--help"):
        print(__doc__.strip())
        return 0 if argv else EXIT_USAGE
    path, baseline = argv[0], None
    rest = argv[1:]
    if rest:
        if len(rest) != 2 or rest[0] != "--baseline":
            print(f"ab_compare: expected AB_CSV [--baseline NAME], found {' '.join(argv)}",
                  file=sys.stderr)
            return EXIT_USAGE
        baseline = rest[1]
    try:
        keys, variants, times = load(path)
        if baseline is None:
            baseline = "base" if "base" in variants else variants[0]
        elif baseline not in variants:
            raise InputError(f"no variant '{baseline}' in {path} (it has {', '.join(variants)})")
    except InputError as e:
        print(f"ab_compare: {e}", file=sys.stderr)
        return EXIT_INPUT
    print("\n".join(table(keys, variants, times, baseline)))
    return 0


if __name__ == "__main__":
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)  # `| head` ends the output quietly
    sys.exit(main(sys.argv[1:]))
