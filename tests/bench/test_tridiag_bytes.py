#!/usr/bin/python3
"""Tests of bench/tridiag_bytes.py (DRAM bytes per row of issue 5's goal cells from Nsight
Compute) on tiny synthetic CSVs: `configs` names each cell's best shifted configuration;
`summarize` turns a profile of two solves of three kernels into bytes per row, the ceiling they
leave and the kernels' rate against the copy, as Markdown and (--csv) CSV; malformed profiles
exit 1, bad arguments 2.

Run by CTest as: python3 test_tridiag_bytes.py PATH_TO_tridiag_bytes.py
"""
import csv

from script_test import ScriptTest, main

HEADER = ("device,scalar,n,batch,form,layout,method,rows_per_thread,staging,median_ms,min_ms,"
          "gbs_floor,copy_gbs,fraction_of_copy,gflops_nominal,max_residual,reps,note")
NCU_HEADER = ('"ID","Process ID","Process Name","Host Name","Kernel Name","Context","Stream",'
              '"Block Size","Grid Size","Device","CC","Section Name","Metric Name",'
              '"Metric Unit","Metric Value"')
N, BATCH = 65536, 256
ROWS = N * BATCH


def bench_row(scalar, layout, method, k, fraction, form="shifted", residual=1e-16):
    # copy_gbs 4000: the copy moves 4000 bytes per microsecond.
    return (f'"Test GPU",{scalar},{N},{BATCH},{form},{layout},{method},{k},-,0.1,0.1,'
            f'1000,4000,{fraction},1,{residual},10,""')


def bench_rows():
    """Two shifted candidates per cell of 65536 x 256 (the faster is the cell's best; complex ones
    with at most 4 rows per thread, as the selection takes them), a row the selection may not
    pick, and a general-form row."""
    rows = []
    for scalar in ("real", "complex"):
        k = 8 if scalar == "real" else 4
        for layout in ("contiguous", "interleaved"):
            rows.append(bench_row(scalar, layout, "segment", k, 0.44))
            rows.append(bench_row(scalar, layout, "columns", k, 0.40))
            rows.append(bench_row(scalar, layout, "block", 4, 0.9, residual=1e-3))
            rows.append(bench_row(scalar, layout, "thomas", 0, 0.1, form="general"))
    return rows


def launch(i, name, read, write, ns):
    """The three metric lines of launch i of kernel `name` (bytes, ns; thousands separated as
    ncu prints them)."""
    full = f"void {name}(ShiftedMatrix<T1>, const T1 *, long)"
    return [f'"{i}","7","tridiag_bench","host","{full}","1","13","(128, 1, 1)","(99, 1, 1)",'
            f'"0","9.0","Command line profiler metrics","{metric}","{unit}","{value}"'
            for metric, unit, value in (("dram__bytes_read.sum", "byte", f"{read:,}"),
                                        ("dram__bytes_write.sum", "byte", f"{write:,}"),
                                        ("gpu__time_duration.sum", "ns", f"{ns:,}"))]


def profile_lines(cell="real contiguous 65536 256 segment 8"):
    """Two solves of reduce, coarse and substitute: per solve 16 bytes read and 10 written per row
    over 100 µs of kernels."""
    lines = [f"# {cell}", "==PROF== Connected to process 7", NCU_HEADER]
    i = 0
    for _ in range(2):
        for name, read, write, ns in (("segment_lanes_reduce_kernel<double>", 8, 2, 40000),
                                      ("segment_block_kernel<4, double>", 0, 0, 5000),
                                      ("segment_lanes_substitute_kernel<double>", 8, 8, 55000)):
            lines += launch(i, name, read * ROWS, write * ROWS, ns)
            i += 1
    return lines


class TridiagBytesTest(ScriptTest):
    def test_configs_names_each_cells_best(self):
        path = self.write("bench.csv", [HEADER] + bench_rows())
        r = self.run_script("configs", path)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        lines = r.stdout.splitlines()
        self.assertEqual(len(lines), 4, r.stdout)  # the four cells of the one shape present
        self.assertIn(f"real contiguous {N} {BATCH} segment 8", lines)
        self.assertIn(f"complex interleaved {N} {BATCH} segment 4", lines)

    def test_summarize_bytes_ceiling_and_rate(self):
        bench = self.write("bench.csv", [HEADER] + bench_rows())
        profile = self.write("ncu.csv", profile_lines())
        out, per_launch = self.path("bytes.csv"), self.path("launches.csv")
        r = self.run_script("summarize", bench, profile, "--csv", out, "--launches", per_launch)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assertIn("(Test GPU)", r.stdout)
        row = [l for l in r.stdout.splitlines() if l.startswith("| 65536 x 256 | real |")]
        self.assertEqual(len(row), 1, r.stdout)
        # 26 bytes per row against the floor's 16: ceiling 62%; 26 · 2^24 bytes in 100 µs is
        # 4362 GB/s, 109% of the copy's 4000; the cell's fraction from the bench CSV.
        self.assertIn("segment_lanes_reduce_kernel<double> → segment_block_kernel<4, double> → "
                      "segment_lanes_substitute_kernel<double> | 16.0 | 10.0 | 62% | 100.0 | "
                      "109% | 44.0% |", row[0])
        with open(out, newline="") as f:
            cells = list(csv.DictReader(f))
        self.assertEqual(len(cells), 1)
        self.assertEqual(cells[0]["device"], "Test GPU")
        self.assertEqual(cells[0]["solves"], "2")
        self.assertEqual(cells[0]["ceiling"], "0.6154")
        with open(per_launch, newline="") as f:
            launches = list(csv.DictReader(f))
        self.assertEqual(len(launches), 6)
        self.assertEqual(launches[5]["kernel"], "segment_lanes_substitute_kernel<double>")
        self.assertEqual((launches[5]["duration_us"], launches[5]["read_bytes_per_row"],
                          launches[5]["write_bytes_per_row"]), ("55", "8", "8"))

    def test_bad_profiles_and_arguments(self):
        bench = self.write("bench.csv", [HEADER] + bench_rows())
        r = self.run_script("summarize", bench, self.write("a.csv", profile_lines()[1:]))
        self.assertEqual(r.returncode, 1)
        self.assertIn("expected a first line", r.stderr)
        r = self.run_script("summarize", bench, self.write("b.csv", profile_lines()[:2]))
        self.assertEqual(r.returncode, 1)
        self.assertIn("no ncu CSV header", r.stderr)
        lines = profile_lines()
        lines[3] = lines[3].replace('"8,388,608"', '"n/a"').replace(
            f'"{8 * ROWS:,}"', '"n/a"')
        r = self.run_script("summarize", bench, self.write("c.csv", lines))
        self.assertEqual(r.returncode, 1)
        self.assertIn("is not a number", r.stderr)
        r = self.run_script("summarize", bench, self.write("d.csv", profile_lines()[:3]))
        self.assertEqual(r.returncode, 1)
        self.assertIn("no launches", r.stderr)
        r = self.run_script("summarize", self.path("absent.csv"), self.path("absent2.csv"))
        self.assertEqual(r.returncode, 1)
        r = self.run_script("configs")
        self.assertEqual(r.returncode, 2)
        r = self.run_script("summarize", bench)
        self.assertEqual(r.returncode, 2)
        r = self.run_script("configs", bench, "--csv", self.path("x.csv"))
        self.assertEqual(r.returncode, 2)
        r = self.run_script("summarize", bench, self.write("e.csv", profile_lines()),
                            "--launches")
        self.assertEqual(r.returncode, 2)
        r = self.run_script("--help")
        self.assertEqual(r.returncode, 0)
        self.assertIn("Exit codes", r.stdout)


if __name__ == "__main__":
    main()
