#!/usr/bin/python3
"""Several full tridiag_bench runs as one CSV: every configuration's row from the run where its
median was fastest, and every shape's copy bandwidth the fastest of the runs.

Usage: tridiag_merge.py [--force] OUTPUT.csv RUN.csv RUN.csv [RUN.csv...]
       tridiag_merge.py [--force] --splice OUTPUT.csv BASE.csv PART.csv

A run can pass through stretches where the GPU is slower throughout: two full runs of the same
binaries on one H100 (2026-11-27, 20 repetitions per median) agreed within a few per cent on
most of their 2414 rows, but each had its own stretch of configurations 1.5 to 3.5 times slower
(real 127 x 16384 in both, at different methods; real 2047 x 2047 in one; complex interleaved
512 x 32768, columns K = 16, 0.40 against 0.32 ms in the other), enough to change the selection
table's choice there. Such stretches only slow a configuration down, so the fastest of its
medians over the runs is its measurement, as a run already takes its copy bandwidth as the
fastest of three medians (tridiag_bench.cu). Each output row is the winning run's row as it is
(median, minimum, residual, reps, note), with copy_gbs set to the shape's fastest copy over the
runs and fraction_of_copy recomputed from it (gbs_floor / copy_gbs); rows keep the first run's
order and columns. The runs must come from one device and hold the same configurations (one
tridiag_bench command line, run several times: bench/tridiag_bench.sh does).

--splice: after a change that touches some shapes only (one scalar's kernels, the other's SASS
unchanged, launches of small batches, or a method new on some shapes), the runs of those shapes
(tridiag_bench --scalars S or --shapes N:B,..., merged as above) into an earlier merged CSV:
OUTPUT holds PART's rows for the shapes (scalar, n, batch) PART holds and BASE's rows for the
others, in BASE's order, with PART's configurations that BASE lacks after the last row of their
shape, and PART's shapes that BASE lacks (shapes new to the benchmark) after all of BASE's rows
(both in PART's order). PART must hold, for its shapes, every configuration of BASE of the
forms and layouts it holds there, on the same device: a run of some forms or layouts only
(tridiag_bench --forms F, --layouts L) replaces those (form, layout) pairs' rows and the copy, and
the other pairs keep BASE's rows, with the shape's copy bandwidth the faster of both runs' and
their fraction_of_copy following it.

An existing OUTPUT is refused unless --force; it may never be one of the inputs.
Exit codes: 0 written; 1 bad input (as bench/plot_results.py reads CSVs: unreadable file,
misaligned rows, missing columns, no rows, a median_ms that is not a number; or runs of
different devices or configurations); 2 bad arguments; 3 OUTPUT exists.
"""
import csv
import os
import signal
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from plot_results import (EXIT_EXISTS, EXIT_INPUT, EXIT_USAGE, InputError,  # noqa: E402
                          number, read_csv)

KEY = ["scalar", "n", "batch", "form", "layout", "method", "rows_per_thread", "staging"]
SHAPE = ["scalar", "n", "batch"]
REQUIRED = KEY + ["device", "median_ms", "gbs_floor", "copy_gbs", "fraction_of_copy"]


def keyed(rows):
    """Each row's key: its configuration and how many rows of that configuration came before it
    (the general form has no staging, and a run times it once per staging of the shifted form)."""
    seen = {}
    keys = []
    for row in rows:
        config = tuple(row[c] for c in KEY)
        seen[config] = seen.get(config, 0) + 1
        keys.append(config + (str(seen[config]),))
    return keys


def load(path):
    """(header, rows in file order, their keys, {key: row}) of one run."""
    rows = read_csv(path, REQUIRED)
    for row in rows:
        number(row, "median_ms", path, required=True)
    keys = keyed(rows)
    return list(rows[0]), rows, keys, dict(zip(keys, rows))


def one_device(rows):
    """Refuses rows of more than one device."""
    devices = {row["device"] for row in rows}
    if len(devices) != 1:
        raise InputError(f"runs of different devices ({', '.join(sorted(devices))}); expected "
                         f"runs of one device")


def fastest_copies(runs):
    """{shape: its fastest copy GB/s} over runs given as (path, rows)."""
    copy = {}
    for path, rows in runs:
        for row in rows:
            if row["method"] == "copy":
                shape = tuple(row[c] for c in SHAPE)
                copy[shape] = max(copy.get(shape, 0.0),
                                  number(row, "copy_gbs", path, required=True))
    return copy


def with_copy(row, copy_gbs):
    """The row with copy_gbs set to copy_gbs and fraction_of_copy following it (as it is where
    copy_gbs is None: no copy measured for its shape)."""
    out = dict(row)
    if copy_gbs:
        out["copy_gbs"] = f"{copy_gbs:.6g}"
        out["fraction_of_copy"] = f"{float(row['gbs_floor']) / copy_gbs:.6g}"
    return out


def merge(paths):
    """The merged rows (the first run's order and header) and that header."""
    runs = [load(p) for p in paths]
    header, first_rows, first_keys, first = runs[0]
    one_device(row for _, rows, _, _ in runs for row in rows)
    for path, (h, _, _, by_key) in zip(paths[1:], runs[1:]):
        if h != header:
            raise InputError(f"{path}: columns differ from {paths[0]}'s")
        if by_key.keys() != first.keys():
            only = sorted(set(by_key) ^ set(first))[0]
            raise InputError(f"{path}: configurations differ from {paths[0]}'s (e.g. "
                             f"{', '.join(only[:-1])}); expected runs of one command line")
    copy = fastest_copies((path, rows) for path, (_, rows, _, _) in zip(paths, runs))

    def positive(ms):  # a median of 0 (nothing timed) never wins over a timed one
        return ms if ms > 0 else float("inf")

    merged = []
    for row, key in zip(first_rows, first_keys):
        best = min((by_key[key] for _, _, _, by_key in runs),
                   key=lambda r: positive(float(r["median_ms"])))
        merged.append(with_copy(best, copy.get(tuple(row[c] for c in SHAPE))))
    return header, merged


def splice(base_path, part_path):
    """BASE's rows with those of PART's shapes and (form, layout) pairs replaced by PART's,
    PART's new shapes after them, and BASE's header."""
    header, base_rows, base_keys, _ = load(base_path)
    part_header, part_rows, _, part = load(part_path)
    if part_header != header:
        raise InputError(f"{part_path}: columns differ from {base_path}'s")
    one_device(base_rows + part_rows)
    form, layout = KEY.index("form"), KEY.index("layout")

    def shape(key):  # KEY starts with SHAPE
        return key[:len(SHAPE)]

    def kind(key):
        return shape(key) + (key[form], key[layout])

    shapes = {shape(key) for key in part}
    kinds = {kind(key) for key in part}

    def from_part(key):  # the copy (form "-") goes with any pair of its shape
        return shape(key) in shapes and (key[form] == "-" or kind(key) in kinds)

    replaced = {key for key in base_keys if from_part(key)}
    if not replaced <= part.keys():
        only = sorted(replaced - part.keys())[0]
        raise InputError(f"{part_path}: configurations of shape {' x '.join(only[:3])} differ "
                         f"from {base_path}'s (e.g. {', '.join(only[:-1])} is missing)")
    # Shapes that keep some of BASE's rows (pairs PART lacks) mix two runs: their copy is the
    # faster of both, as merge takes it.
    mixed = {shape(key) for key in base_keys if shape(key) in shapes and not from_part(key)}
    copy = fastest_copies([(base_path, base_rows), (part_path, part_rows)])

    def out(row, key):
        return with_copy(row, copy.get(shape(key))) if shape(key) in mixed else row

    last = {shape(key): i for i, key in enumerate(base_keys)}  # each shape's last BASE row
    rows = []
    for i, (row, key) in enumerate(zip(base_rows, base_keys)):
        rows.append(out(part.get(key, row), key))
        if shape(key) in shapes and last[shape(key)] == i:
            rows += [out(r, k) for k, r in part.items()
                     if shape(k) == shape(key) and k not in replaced]
    rows += [r for k, r in part.items() if shape(k) not in last]
    return header, rows


def main(argv):
    args = [a for a in argv if a not in ("--force", "--splice")]
    if any(a in ("-h", "--help") for a in args):
        print(__doc__)
        return 0
    spliced = "--splice" in argv
    if (len(args) != 3 if spliced else len(args) < 3) or any(a.startswith("-") for a in args):
        expected = "OUTPUT.csv, BASE.csv and PART.csv" if spliced else \
            "OUTPUT.csv and at least two RUN.csv"
        print(f"tridiag_merge: expected {expected} (got "
              f"{' '.join(argv) or 'nothing'}); see --help", file=sys.stderr)
        return EXIT_USAGE
    output, paths = args[0], args[1:]
    if any(os.path.exists(p) and os.path.samefile(output, p) for p in paths
           if os.path.exists(output)):
        print(f"tridiag_merge: {output} is one of the inputs; expected a new file",
              file=sys.stderr)
        return EXIT_USAGE
    if os.path.exists(output) and "--force" not in argv:
        print(f"tridiag_merge: {output} exists (--force replaces it)", file=sys.stderr)
        return EXIT_EXISTS
    try:
        header, rows = splice(*paths) if spliced else merge(paths)
    except InputError as e:
        print(f"tridiag_merge: {e}", file=sys.stderr)
        return EXIT_INPUT
    with open(output, "w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=header, lineterminator="\n")
        writer.writeheader()
        writer.writerows(rows)
    if spliced:
        print(f"tridiag_merge: {paths[1]} spliced into {paths[0]} -> {output}")
    else:
        print(f"tridiag_merge: {len(rows)} configurations of {len(paths)} runs -> {output}")
    return 0


if __name__ == "__main__":
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)  # `| head` ends the output quietly
    sys.exit(main(sys.argv[1:]))
