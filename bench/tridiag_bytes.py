#!/usr/bin/python3
"""DRAM bytes per row that issue 5's goal cells move, read by Nsight Compute, against the floor.

Usage: tridiag_bytes.py configs CSV
       tridiag_bytes.py summarize CSV NCU_CSV... [--csv OUT.csv] [--launches LAUNCHES.csv]

configs: the shifted-form configuration each goal cell's best fraction of the copy comes from in
a tridiag_bench CSV (bench/tridiag_goals.py's choice), one line per cell:
`scalar layout n batch method K` (K 0: the method's own), for bench/tridiag_bytes.sh.

summarize: one Markdown row per profiled cell (with --csv the same columns as CSV rows, with the
device's name from CSV and the solves profiled; with --launches every profiled launch: cell,
kernel, duration and DRAM bytes per row of the batch). Each NCU_CSV is what
bench/tridiag_bytes.sh wrote for one cell (`ncu --csv --print-units base` with
gpu__time_duration.sum, dram__bytes_read.sum and dram__bytes_write.sum for every launch of the
library's kernels, its first line a comment `# scalar layout n batch method K`); CSV (the same
tridiag_bench CSV) gives the cell's copy bandwidth and its fraction of it.

The columns of the summary, per solve (the launches divided by the solves, counted as the
launches of the kernel that starts a solve):
  kernels       the distinct kernels a solve launches, in order
  read, write   DRAM bytes per row of the batch, against the floor's 8 + 8 (real) or 16 + 16
  ceiling       the floor over the bytes moved: the fraction of the copy a solve could reach if
                its kernels moved their bytes at the copy's rate with no gaps
  kernel µs     the solve's kernels' durations added (profiled one at a time, so no overlap)
  rate          the bytes moved over that time, as a fraction of the copy's rate
  of copy       the cell's fraction of the copy in CSV (event time of whole solves), which is at
                most ceiling × rate, less the gaps between launches and the host's share
So a cell below its goal with a low ceiling needs fewer bytes (a single read of d), one with a
low rate needs faster kernels.

Exit codes: 0 printed; 1 bad input (unreadable or malformed file, a profile without launches,
an unwritable OUT.csv); 2 bad arguments.
"""
import csv
import os
import signal
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from plot_results import (EXIT_INPUT, EXIT_USAGE, InputError, best_shifted,  # noqa: E402
                          load_tridiag)
from tridiag_goals import LAYOUTS, SCALARS, SHAPES, shape  # noqa: E402

METRICS = ("gpu__time_duration.sum", "dram__bytes_read.sum", "dram__bytes_write.sum")


def cell_configs(rows):
    """(scalar, layout, n, batch, method, K) of each goal cell's best shifted configuration."""
    out = []
    for n, batch in SHAPES:
        for scalar in SCALARS:
            for layout in LAYOUTS:
                best = best_shifted(rows, scalar, layout, n, batch)
                if best is not None:
                    out.append((scalar, layout, n, batch, best["method"],
                                int(best["rows_per_thread"])))
    return out


def read_profile(path):
    """(cell tuple from the comment line, [launch dicts: name, and the METRICS as floats] in
    launch order)."""
    try:
        with open(path, newline="") as f:
            lines = f.read().splitlines()
    except OSError as e:
        raise InputError(f"{path}: {e.strerror}")
    if not lines or not lines[0].startswith("# "):
        raise InputError(f"{path}: expected a first line '# scalar layout n batch method K'")
    head = lines[0][2:].split()
    if len(head) != 6:
        raise InputError(f"{path}: expected '# scalar layout n batch method K', found "
                         f"'{lines[0]}'")
    cell = (head[0], head[1], int(head[2]), int(head[3]), head[4], int(head[5]))
    # ncu prints its own lines (==PROF==, warnings) before the CSV header.
    start = next((i for i, line in enumerate(lines) if line.startswith('"ID"')), None)
    if start is None:
        raise InputError(f"{path}: no ncu CSV header (a line starting with \"ID\")")
    launches = {}
    for r in csv.DictReader(lines[start:]):
        name = r.get("Metric Name")
        if name not in METRICS:
            continue
        try:
            value = float(r["Metric Value"].replace(",", ""))
        except (KeyError, ValueError):
            raise InputError(f"{path}: launch {r.get('ID')}: {name} is not a number")
        launch = launches.setdefault(int(r["ID"]), {"name": r["Kernel Name"]})
        launch[name] = value
    ordered = [launches[i] for i in sorted(launches)]
    for launch in ordered:
        missing = [m for m in METRICS if m not in launch]
        if missing:
            raise InputError(f"{path}: a launch of {launch['name']} lacks {', '.join(missing)}")
    if not ordered:
        raise InputError(f"{path}: no launches profiled")
    return cell, ordered


def short_name(name):
    """A kernel's name without namespaces and parameters: `columns_lanes_reduce_kernel<32, double>`."""
    base = name.split("(")[0]
    return base.replace("pscr::tridiag::cuda::detail::", "").replace("void ", "")


def cell_summary(rows, cell, launches):
    """The summary of one cell's profile (a dict of the columns above, and device)."""
    scalar, layout, n, batch, method, k = cell
    first = launches[0]["name"]
    solves = sum(1 for launch in launches if launch["name"] == first)
    kernels = [launches[0]]
    for launch in launches[1:]:
        if launch["name"] == first:
            break
        kernels.append(launch)
    per_row = float(n) * batch * solves
    read = sum(launch["dram__bytes_read.sum"] for launch in launches) / per_row
    write = sum(launch["dram__bytes_write.sum"] for launch in launches) / per_row
    kernel_ns = sum(launch["gpu__time_duration.sum"] for launch in launches) / solves
    best = best_shifted(rows, scalar, layout, n, batch)
    copy_gbs = float(best["copy_gbs"]) if best else 0.0
    rate = (read + write) * n * batch / kernel_ns if kernel_ns > 0 else 0.0  # GB/s
    return {"device": best["device"] if best else "", "scalar": scalar, "layout": layout,
            "n": n, "batch": batch, "method": method, "rows_per_thread": k, "solves": solves,
            "kernels": " → ".join(short_name(launch["name"]) for launch in kernels),
            "read_bytes_per_row": read, "write_bytes_per_row": write,
            "ceiling": (16.0 if scalar == "real" else 32.0) / (read + write),
            "kernel_us": kernel_ns / 1e3,
            "rate_of_copy": rate / copy_gbs if copy_gbs else float("nan"),
            "fraction_of_copy": best["fraction_of_copy"] if best else float("nan")}


def markdown_row(c):
    label = c["method"] + (f" K = {c['rows_per_thread']}" if c["rows_per_thread"] else "")
    return (f"| {shape(c['n'], c['batch'])} | {c['scalar']} | {c['layout']} | {label} | "
            f"{c['kernels']} | {c['read_bytes_per_row']:.1f} | {c['write_bytes_per_row']:.1f} | "
            f"{c['ceiling']:.0%} | {c['kernel_us']:.1f} | {c['rate_of_copy']:.0%} | "
            f"{c['fraction_of_copy']:.1%} |")


CSV_COLUMNS = ["device", "scalar", "layout", "n", "batch", "method", "rows_per_thread", "solves",
               "kernels", "read_bytes_per_row", "write_bytes_per_row", "ceiling", "kernel_us",
               "rate_of_copy", "fraction_of_copy"]


LAUNCH_COLUMNS = ["device", "scalar", "layout", "n", "batch", "method", "rows_per_thread",
                  "launch", "kernel", "duration_us", "read_bytes_per_row", "write_bytes_per_row"]


def launch_rows(device, cell, launches):
    """Every profiled launch of a cell, its bytes per row of the batch."""
    scalar, layout, n, batch, method, k = cell
    return [{"device": device, "scalar": scalar, "layout": layout, "n": n, "batch": batch,
             "method": method, "rows_per_thread": k, "launch": i,
             "kernel": short_name(launch["name"]),
             "duration_us": launch["gpu__time_duration.sum"] / 1e3,
             "read_bytes_per_row": launch["dram__bytes_read.sum"] / (n * batch),
             "write_bytes_per_row": launch["dram__bytes_write.sum"] / (n * batch)}
            for i, launch in enumerate(launches)]


def main(argv):
    args = argv[1:]
    if args and args[0] in ("--help", "-h"):
        print(__doc__)
        return 0
    outputs = {}
    for option in ("--csv", "--launches"):
        if option in args:
            i = args.index(option)
            if i + 1 >= len(args):
                print(f"tridiag_bytes.py: {option} needs a file name", file=sys.stderr)
                return EXIT_USAGE
            outputs[option] = args[i + 1]
            del args[i:i + 2]
    if len(args) < 2 or args[0] not in ("configs", "summarize") or \
            (args[0] == "configs" and (len(args) != 2 or outputs)) or \
            (args[0] == "summarize" and len(args) < 3):
        print(__doc__.split("\n\n")[1], file=sys.stderr)
        return EXIT_USAGE
    try:
        rows = load_tridiag(args[1])
        if args[0] == "configs":
            for c in cell_configs(rows):
                print(" ".join(str(v) for v in c))
            return 0
        profiles = [read_profile(path) for path in args[2:]]
        cells = [cell_summary(rows, cell, launches) for cell, launches in profiles]
    except InputError as e:
        print(f"tridiag_bytes.py: {e}", file=sys.stderr)
        return EXIT_INPUT
    if cells:
        print(f"DRAM bytes of the goal cells' best configurations ({cells[0]['device']})\n")
    print("| shape | scalar | layout | method | kernels | read B/row | write B/row | ceiling "
          "| kernel µs | rate (of copy's) | of copy |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for c in cells:
        print(markdown_row(c))
    tables = {"--csv": (CSV_COLUMNS, cells),
              "--launches": (LAUNCH_COLUMNS, [row for cell, launches in profiles
                                              for row in launch_rows(cells[0]["device"], cell,
                                                                     launches)])}
    for option, path in outputs.items():
        columns, table = tables[option]
        try:
            with open(path, "w", newline="") as f:
                w = csv.DictWriter(f, columns)
                w.writeheader()
                for c in table:
                    w.writerow({k: (f"{v:.4g}" if isinstance(v, float) else v)
                                for k, v in c.items()})
        except OSError as e:
            print(f"tridiag_bytes.py: {path}: {e.strerror}", file=sys.stderr)
            return EXIT_INPUT
    return 0


if __name__ == "__main__":
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)
    sys.exit(main(sys.argv))
