#!/usr/bin/python3
"""Which kernels two cubins compile differently: each kernel's machine code (its .text.NAME
section) compared byte for byte, so that an A/B can say which kernels a change touched, and a
change meant to touch none can show it (docs/tridiag-performance.md cites such comparisons).

Usage: cubin_diff.py [--all] A.cubin B.cubin

The cubins: the same source compiled at two revisions (`nvcc -cubin` with the build's flags;
the command for the tridiagonal kernels is in docs/benchmarks.md). Prints one line per kernel
that differs ("differ", its instructions in A and in B: 16 bytes each), is only in A ("only A")
or only in B ("only B"), with --all also those that are the same ("same"), each followed by the
kernel's name (demangled by c++filt where it is on PATH), in A's order and then B's; then a
count of each.

Exit codes: 0 both hold the same kernels with the same code; 1 some kernel differs or is only
in one; 2 bad arguments, or a file that cannot be read or is not a 64-bit ELF file.
"""
import shutil
import signal
import struct
import subprocess
import sys

EXIT_SAME, EXIT_DIFFER, EXIT_TROUBLE = 0, 1, 2
INSTRUCTION_BYTES = 16  # every SASS instruction from sm_70 on


class ElfError(Exception):
    pass


def kernel_code(path):
    """{kernel name: its .text section's bytes} of the 64-bit little-endian ELF file `path`."""
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError as e:
        raise ElfError(f"{path}: {e.strerror}") from e
    if data[:4] != b"\x7fELF" or len(data) < 64 or data[4] != 2 or data[5] != 1:
        raise ElfError(f"{path}: not a 64-bit little-endian ELF file (a cubin: nvcc -cubin)")
    shoff, = struct.unpack_from("<Q", data, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", data, 0x3A)
    if shoff + shnum * shentsize > len(data) or shstrndx >= shnum:
        raise ElfError(f"{path}: truncated ELF file (section headers past its end)")

    def section(i):  # (name offset, file offset, size)
        name, _, _, _, offset, size = struct.unpack_from("<IIQQQQ", data, shoff + i * shentsize)
        return name, offset, size

    _, names_at, names_size = section(shstrndx)
    names = data[names_at:names_at + names_size]
    code = {}
    for i in range(shnum):
        name_at, offset, size = section(i)
        name = names[name_at:names.index(b"\0", name_at)].decode()
        if name.startswith(".text."):
            code[name[len(".text."):]] = data[offset:offset + size]
    return code


def demangled(names):
    """Each name demangled by c++filt (the names themselves where it is missing)."""
    if not names or shutil.which("c++filt") is None:
        return list(names)
    out = subprocess.run(["c++filt"], input="\n".join(names) + "\n", capture_output=True,
                         text=True).stdout.splitlines()
    return out if len(out) == len(names) else list(names)


def main(argv):
    if any(a in ("-h", "--help") for a in argv):
        print(__doc__)
        return EXIT_SAME
    show_same = "--all" in argv
    paths = [a for a in argv if a != "--all"]
    if len(paths) != 2 or any(p.startswith("-") for p in paths):
        print("usage: cubin_diff.py [--all] A.cubin B.cubin (see --help)", file=sys.stderr)
        return EXIT_TROUBLE
    try:
        a, b = kernel_code(paths[0]), kernel_code(paths[1])
    except ElfError as e:
        print(f"cubin_diff: {e}", file=sys.stderr)
        return EXIT_TROUBLE
    lines = []  # (verdict, detail, mangled name)
    for name, code in a.items():
        if name not in b:
            lines.append(("only A", f"{len(code) // INSTRUCTION_BYTES}", name))
        elif code != b[name]:
            lines.append(("differ", f"{len(code) // INSTRUCTION_BYTES} -> "
                                    f"{len(b[name]) // INSTRUCTION_BYTES}", name))
        elif show_same:
            lines.append(("same", f"{len(code) // INSTRUCTION_BYTES}", name))
    lines += [("only B", f"{len(code) // INSTRUCTION_BYTES}", name)
              for name, code in b.items() if name not in a]
    for (verdict, detail, _), name in zip(lines, demangled([n for _, _, n in lines])):
        print(f"{verdict:7} {detail:>13} instructions  {name}")
    same = sum(1 for name, code in a.items() if b.get(name) == code)
    counts = {v: sum(1 for line in lines if line[0] == v) for v in ("differ", "only A", "only B")}
    print(f"cubin_diff: {same} same, {counts['differ']} differ, {counts['only A']} only in A, "
          f"{counts['only B']} only in B")
    return EXIT_SAME if same == len(a) == len(b) else EXIT_DIFFER


if __name__ == "__main__":
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)  # `| head` ends the output quietly
    sys.exit(main(sys.argv[1:]))
