#!/usr/bin/python3
"""Issue 5's speed goals against a tridiag_bench CSV, as Markdown tables a note can quote.

Usage: tridiag_goals.py CSV [--helmholtz HELMHOLTZ.csv]

For the issue's six shapes (n, batch) = (64, 2^18), (512, 2^15), (1024, 2^14), (8192, 2^11),
(65536, 256), (2^20, 16), real and complex, with the numbers of bench/plot_results.py (the same
functions; our methods counted as the selection table may pick them: timed, max residual below
1e-10, complex with at most 4 rows per thread or a guarded configuration: serves_indefinite):
  shifted form  the best method's fraction of the copy bandwidth of the same run, per layout,
                against >= 70% (the first four shapes) or >= 50% (the last two);
  general form  cuSPARSE's time over our best time: gtsv2StridedBatch on contiguous systems
                (goal >= 2x), the best gtsvInterleavedBatch algorithm on interleaved ones (goal
                >= 1.2x), marked "one run" where cuSPARSE was too slow to time in full.
Each cell says whether its goal is met; a shape, layout or comparison missing from the CSV
counts as missed ("not measured"). The last lines count the goals met per layout and comparison.
A further table gives the complex shifted form for diagonally dominant systems (the selection
table's dominant entries, without the bound on rows per thread: tridiag::cuda::Options::dominant);
the benchmark's systems are dominant, PSCR's Helmholtz systems are not, so it is not counted.
The window method's rows of staging "checked" (its bound checked on the device, the call
waiting for nothing) count as any method's; its rows of staging "waited" (the check the host
waited for, before 2026-12-07) count nowhere.
Where the CSV has the window method's "assured" rows, one more table (not counted) gives the
shifted form for calls that assure its bound (tridiag::cuda::Options::window_bound, which the
benchmark's systems meet: |a| + |c| <= 2/7 |b|), its candidates the dominant ones and those rows.
With --helmholtz, one more table (not counted either) gives the complex shifted form on a
tridiag_bench --systems helmholtz CSV: the systems PSCR solves, on which the guarded
configurations do extra work, with the configurations tridiag_select.py --helmholtz picks from.

Exit codes: 0 every goal met; 3 at least one goal not met (the tables are printed either way);
1 bad input (as plot_results.py: unreadable file, misaligned rows, missing columns, no timed
rows of a form); 2 bad arguments.
"""
import os
import signal
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from plot_results import (EXIT_INPUT, EXIT_USAGE, GENERAL_GOALS, InputError,  # noqa: E402
                          best_shifted, devices, general_speedup, load_tridiag, method_label,
                          shifted_goal)

EXIT_MISSED = 3
SHAPES = [(64, 2**18), (512, 2**15), (1024, 2**14), (8192, 2**11), (65536, 256), (2**20, 16)]
SCALARS = ("real", "complex")
LAYOUTS = ("contiguous", "interleaved")


def shape(n, batch):
    """The shape as the issue writes it: n in full up to 65536, batches of 2^11 and more as 2^k."""
    def p2(v, above):
        return f"2^{v.bit_length() - 1}" if v > above and v & (v - 1) == 0 else str(v)
    return f"{p2(n, 65536)} x {p2(batch, 1024)}"


def mark(met):
    return "met" if met else "**missed**"


def shifted_table(rows, scalars=SCALARS, dominant=False, helmholtz=False, window_bound=False):
    """Markdown lines of the shifted-form goals and the goals missed per layout (`dominant`: the
    configurations for diagonally dominant systems, the scalar written "complex, dominant";
    `helmholtz`: rows of Helmholtz systems, written "complex, Helmholtz"; `window_bound`: calls
    that assure the window method's bound, written "real, bound assured")."""
    lines = ["| shape | scalar | goal | " + " | ".join(LAYOUTS) + " |",
             "|---|---|---|" + "---|" * len(LAYOUTS)]
    missed = {layout: 0 for layout in LAYOUTS}
    for n, batch in SHAPES:
        goal = shifted_goal(n)
        for scalar in scalars:
            cells = []
            for layout in LAYOUTS:
                best = best_shifted(rows, scalar, layout, n, batch, dominant, helmholtz,
                                    window_bound)
                met = best is not None and best["fraction_of_copy"] >= goal
                missed[layout] += not met
                cells.append("not measured, **missed**" if best is None else
                             f"{100 * best['fraction_of_copy']:.1f}% ({method_label(best)}), "
                             f"{mark(met)}")
            label = (f"{scalar}, dominant" if dominant else
                     f"{scalar}, Helmholtz" if helmholtz else
                     f"{scalar}, bound assured" if window_bound else scalar)
            lines.append(f"| {shape(n, batch)} | {label} | {100 * goal:.0f}% | " +
                         " | ".join(cells) + " |")
    return lines, missed


def general_table(rows):
    """Markdown lines of the general-form goals and the goals missed per comparison."""
    lines = ["| shape | scalar | " + " | ".join(f"vs {name} ({layout}, goal {goal:g}x)"
                                                for layout, _, name, goal in GENERAL_GOALS) + " |",
             "|---|---|" + "---|" * len(GENERAL_GOALS)]
    missed = {name: 0 for _, _, name, _ in GENERAL_GOALS}
    for n, batch in SHAPES:
        for scalar in SCALARS:
            cells = []
            for layout, prefix, name, goal in GENERAL_GOALS:
                found = general_speedup(rows, scalar, layout, prefix, n, batch)
                met = found is not None and found[0] >= goal
                missed[name] += not met
                if found is None:
                    cells.append("not measured, **missed**")
                    continue
                speedup, mine, other = found
                once = ", one run" if (other["note"] or "").startswith("skipped") else ""
                cells.append(f"{speedup:.2f}x ({method_label(mine)}{once}), {mark(met)}")
            lines.append(f"| {shape(n, batch)} | {scalar} | " + " | ".join(cells) + " |")
    return lines, missed


def main(argv):
    if argv in (["-h"], ["--help"]):
        print(__doc__)
        return 0
    helmholtz_path = None
    if len(argv) == 3 and argv[1] == "--helmholtz":
        helmholtz_path = argv[2]
    elif len(argv) != 1:
        print(__doc__, file=sys.stderr)
        return EXIT_USAGE
    try:
        rows = load_tridiag(argv[0])
        helmholtz_rows = load_tridiag(helmholtz_path) if helmholtz_path else None
    except InputError as e:
        print(f"tridiag_goals: {e}", file=sys.stderr)
        return EXIT_INPUT
    shifted, missed_shifted = shifted_table(rows)
    general, missed_general = general_table(rows)
    per_goal = len(SHAPES) * len(SCALARS)
    print(f"Issue 5 goals in {argv[0]} ({devices(rows)})\n")
    print("Shifted form, fraction of the copy bandwidth of the same run (best method):\n")
    print("\n".join(shifted))
    dominant, _ = shifted_table(rows, ("complex",), dominant=True)
    print("\nShifted form, complex, diagonally dominant systems (Options::dominant; not counted "
          "below):\n")
    print("\n".join(dominant))
    if any(r["method"] == "window" and r["staging"] == "assured" for r in rows):
        assured, _ = shifted_table(rows, window_bound=True)
        print("\nShifted form, systems within the window method's bound (Options::window_bound, "
              "which window_bound_holds verified on these systems; not counted below):\n")
        print("\n".join(assured))
    if helmholtz_rows:
        helmholtz, _ = shifted_table(helmholtz_rows, ("complex",), helmholtz=True)
        print(f"\nShifted form, complex, indefinite Helmholtz systems ({helmholtz_path}; what "
              "PSCR's systems get; not counted below):\n")
        print("\n".join(helmholtz))
    print("\nGeneral form, cuSPARSE's time over ours (our best method):\n")
    print("\n".join(general))
    print()
    for name, missed in [(f"shifted, {k}", v) for k, v in missed_shifted.items()] + \
            [(f"general vs {k}", v) for k, v in missed_general.items()]:
        print(f"{name}: {per_goal - missed} of {per_goal} met")
    missed = sum(missed_shifted.values()) + sum(missed_general.values())
    return EXIT_MISSED if missed else 0


if __name__ == "__main__":
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)  # `| head` ends the output quietly
    sys.exit(main(sys.argv[1:]))
