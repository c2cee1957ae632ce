#!/usr/bin/python3
"""Where a kernel's warps wait, per SASS instruction: a summary of Nsight Compute's source page.

Usage:
  ncu_stalls.py CSV --list
  ncu_stalls.py CSV [--kernel I] [--top N] [--regions STEP] [--range FIRST:LAST]

CSV is what `ncu --import REPORT.ncu-rep --page source --csv --print-source sass` prints for a
report taken with source counters (`--set full`, or `--section SourceCounters`); it holds one
section per profiled launch: a "Kernel Name" line, a header line starting with "Address", one
row per SASS instruction (docs/benchmarks.md, "Profiling a kernel").

  --list     one line per section: index, total stall samples, instructions, kernel name
  --kernel   the section to summarize (default 0): the share of each stall reason in its warp
             stall samples, the share of samples and of executed instructions per opcode, and
  --top      the N instructions with the most samples (default 25): position in the section,
             share, executions, SASS, and the three largest stall reasons of that instruction
  --regions  sums over consecutive blocks of STEP instructions (phases of a kernel's code)
  --range    prints instructions FIRST..LAST-1 of the section with their shares

Exit codes: 0 printed; 1 bad input (unreadable file, no section, a section without the
columns read, --kernel out of range); 2 bad arguments.
"""
import argparse
import collections
import csv
import signal
import sys

SAMPLES = "Warp Stall Sampling (All Samples)"
EXECUTED = "Instructions Executed"
SOURCE = "Source"


class InputError(Exception):
    """A CSV that cannot be summarized; the message says what was expected and what was found."""


def read_sections(path):
    """The sections of an ncu source-page CSV: dicts with name, header, rows."""
    try:
        with open(path, newline="") as f:
            lines = list(csv.reader(f))
    except OSError as e:
        raise InputError(f"{path}: cannot read ({e.strerror})")
    sections = []
    for row in lines:
        if not row:
            continue
        if row[0] == "Kernel Name":
            sections.append({"name": row[1] if len(row) > 1 else "", "header": None, "rows": []})
        elif not sections:
            continue
        elif row[0] == "Address":
            sections[-1]["header"] = row
        elif sections[-1]["header"] is not None:
            sections[-1]["rows"].append(row)
    if not sections:
        raise InputError(f"{path}: no 'Kernel Name' line: expected the CSV of "
                         "`ncu --page source --csv --print-source sass`")
    return sections


def number(text):
    text = text.replace(",", "").strip()
    return float(text) if text else 0.0


def instructions(section, path, index):
    """(position, sass, opcode, samples, executed, {stall reason: samples}) per instruction."""
    header = section["header"]
    if header is None:
        raise InputError(f"{path}: section {index} has no 'Address' header line")
    missing = [c for c in (SAMPLES, EXECUTED, SOURCE) if c not in header]
    if missing:
        raise InputError(f"{path}: section {index} lacks column(s) {', '.join(missing)} "
                         "(profile with source counters: --set full)")
    col = {name: k for k, name in enumerate(header)}
    reasons = [h for h in header if h.startswith("stall_") and "Not Issued" not in h]
    out = []
    for pos, row in enumerate(section["rows"]):
        if len(row) != len(header):
            raise InputError(f"{path}: section {index}, instruction {pos}: {len(row)} fields, "
                             f"the header has {len(header)}")
        sass = " ".join(row[col[SOURCE]].split())
        words = sass.split()
        op = words[1] if words and words[0].startswith("@") and len(words) > 1 else (
            words[0] if words else "")
        stalls = {r[len("stall_"):]: number(row[col[r]]) for r in reasons}
        out.append((pos, sass, op.split(".")[0], number(row[col[SAMPLES]]),
                    number(row[col[EXECUTED]]), stalls))
    return out


def percent(part, whole):
    return 100.0 * part / whole if whole > 0 else 0.0


def summarize(items, top, regions, span):
    total = sum(t[3] for t in items)
    executed = sum(t[4] for t in items)
    by_reason = collections.Counter()
    for t in items:
        by_reason.update(t[5])
    reason_total = sum(by_reason.values())
    print(f"{len(items)} instructions, {total:.0f} stall samples, {executed:.0f} executed")
    print("stall reasons (share of samples):")
    for reason, v in by_reason.most_common():
        if v > 0:
            print(f"  {reason:22s} {percent(v, reason_total):5.1f}%")
    samples_by_op = collections.Counter()
    executed_by_op = collections.Counter()
    for t in items:
        samples_by_op[t[2]] += t[3]
        executed_by_op[t[2]] += t[4]
    print("opcodes (share of samples, share of executed instructions):")
    for op, v in samples_by_op.most_common(25):
        print(f"  {op:10s} {percent(v, total):5.1f}%  {percent(executed_by_op[op], executed):5.1f}%")
    print(f"top {top} instructions:")
    for pos, sass, _, samples, ex, stalls in sorted(items, key=lambda t: -t[3])[:top]:
        worst = sorted(stalls.items(), key=lambda kv: -kv[1])[:3]
        why = " ".join(f"{r}={percent(v, samples):.0f}%" for r, v in worst if v > 0)
        print(f"  {pos:5d} {percent(samples, total):5.2f}% ex={ex:10.0f} {sass[:64]:64s} {why}")
    if regions:
        print(f"regions of {regions} instructions:")
        for first in range(0, len(items), regions):
            chunk = items[first:first + regions]
            s = sum(t[3] for t in chunk)
            ex = sum(t[4] for t in chunk)
            if s == 0 and ex == 0:
                continue
            ops = collections.Counter(t[2] for t in chunk if t[4] > 0)
            common = " ".join(f"{op}:{n}" for op, n in ops.most_common(5))
            print(f"  {first:5d}-{first + len(chunk):5d} {percent(s, total):5.1f}% "
                  f"ex={ex:10.0f} {common}")
    if span:
        for pos, sass, _, samples, ex, _ in items[span[0]:span[1]]:
            print(f"  {pos:5d} {percent(samples, total):5.2f}% ex={ex:10.0f} {sass}")


def parse_range(text):
    try:
        first, last = (int(x) for x in text.split(":"))
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected FIRST:LAST (integers), found '{text}'")
    if first < 0 or last < first:
        raise argparse.ArgumentTypeError(f"expected 0 <= FIRST <= LAST, found '{text}'")
    return first, last


def positive(text):
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a positive integer, found '{text}'")
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a positive integer, found '{text}'")
    return value


def main(argv):
    parser = argparse.ArgumentParser(
        prog="ncu_stalls.py", description=__doc__.split("\n")[0],
        epilog="See the file's docstring (or docs/benchmarks.md) for the input and exit codes.")
    parser.add_argument("csv")
    parser.add_argument("--list", action="store_true")
    parser.add_argument("--kernel", type=int, default=0)
    parser.add_argument("--top", type=positive, default=25)
    parser.add_argument("--regions", type=positive)
    parser.add_argument("--range", type=parse_range)
    args = parser.parse_args(argv)
    try:
        sections = read_sections(args.csv)
        if args.list:
            for k, sec in enumerate(sections):
                items = instructions(sec, args.csv, k)
                print(f"{k:3d} {sum(t[3] for t in items):10.0f} samples {len(items):6d} "
                      f"instructions  {sec['name']}")
            return 0
        if not 0 <= args.kernel < len(sections):
            raise InputError(f"{args.csv}: --kernel {args.kernel}: the file has sections "
                             f"0..{len(sections) - 1}")
        sec = sections[args.kernel]
        print(sec["name"])
        summarize(instructions(sec, args.csv, args.kernel), args.top, args.regions, args.range)
    except InputError as e:
        print(f"ncu_stalls.py: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)  # `| head` ends the output quietly
    sys.exit(main(sys.argv[1:]))
