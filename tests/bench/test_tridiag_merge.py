#!/usr/bin/python3
"""Tests of bench/tridiag_merge.py (several tridiag_bench runs as one CSV) on tiny synthetic runs:
every configuration takes the row of its fastest median (a median of 0 never wins), the copy
bandwidth is the fastest per shape and every fraction_of_copy follows it, repeated rows of one
configuration (the general form under both stagings) stay apart, and runs of different devices or
configurations, a run as the output, or an existing output without --force are refused with a
message and nothing written; --splice takes one scalar's rows, one shape's, or one form's or
layout's (the copy with it, the others' fractions over the faster copy of both runs) from a later
run,
in the earlier merge's order (configurations new in the part after their shape's rows, shapes new
in the part after the base's rows), and refuses a part that lacks a configuration of the base.

Run by CTest as: python3 test_tridiag_merge.py PATH_TO_tridiag_merge.py
"""
import csv
import os

from script_test import ScriptTest, main

HEADER = ("device,scalar,n,batch,form,layout,method,rows_per_thread,staging,median_ms,min_ms,"
          "gbs_floor,copy_gbs,fraction_of_copy,gflops_nominal,max_residual,reps,note")


def row(method, k, ms, gbs, copy_gbs, form="shifted", staging="-", device="Test GPU", n=64,
        note="", scalar="real", layout="contiguous"):
    """A tridiag_bench row of n x 1024 systems with the given timing and bandwidths."""
    return (f'"{device}",{scalar},{n},1024,{form},{layout},{method},{k},{staging},{ms},{ms},'
            f'{gbs},{copy_gbs},{gbs / copy_gbs:.6g},1,1e-16,20,"{note}"')


def copy(ms, gbs, n=64, device="Test GPU", scalar="real"):
    return (f'"{device}",{scalar},{n},1024,-,-,copy,0,-,{ms},{ms},{gbs},{gbs},1,0,0,20,""')


class TridiagMergeTest(ScriptTest):
    def setUp(self):
        super().setUp()
        self.out = self.path("merged.csv")

    def merge(self, *runs, extra=()):
        paths = [self.write(f"run{i}.csv", [HEADER] + rows) for i, rows in enumerate(runs)]
        return self.run_script(*extra, self.out, *paths)

    def rows(self):
        with open(self.out, newline="") as f:
            return list(csv.DictReader(f))

    def test_fastest_median_per_configuration(self):
        r = self.merge(
            [copy(0.10, 2000), row("segment", 4, 0.30, 1000, 2000),
             row("segment", 8, 0.90, 333, 2000), row("thomas", 0, 0, 0, 2000, note="skipped"),
             row("thomas", 0, 0.5, 600, 2000, form="general"),
             row("thomas", 0, 0.4, 750, 2000, form="general"),
             copy(0.05, 2500, n=128)],
            [copy(0.08, 2500), row("segment", 4, 0.31, 968, 2500),
             row("segment", 8, 0.30, 1000, 2500), row("thomas", 0, 0.7, 428, 2500),
             row("thomas", 0, 0.6, 500, 2500, form="general"),
             row("thomas", 0, 0.3, 1000, 2500, form="general"),
             copy(0.06, 2100, n=128)])
        self.assertEqual(r.returncode, 0, r.stderr)
        got = [(x["method"], x["rows_per_thread"], x["form"], x["median_ms"], x["copy_gbs"],
                x["fraction_of_copy"]) for x in self.rows()]
        self.assertEqual(got, [
            ("copy", "0", "-", "0.08", "2500", "1"),
            ("segment", "4", "shifted", "0.3", "2500", "0.4"),  # run 0's median, run 1's copy
            ("segment", "8", "shifted", "0.3", "2500", "0.4"),
            ("thomas", "0", "shifted", "0.7", "2500", "0.1712"),  # a median of 0 never wins
            ("thomas", "0", "general", "0.5", "2500", "0.24"),  # the first general row
            ("thomas", "0", "general", "0.3", "2500", "0.4"),  # the second, kept apart
            ("copy", "0", "-", "0.05", "2500", "1"),  # n = 128: its own fastest copy
        ])
        self.assertEqual(self.rows()[0]["device"], "Test GPU")

    def test_runs_must_match(self):
        base = [copy(0.1, 2000), row("segment", 4, 0.3, 1000, 2000)]
        other_device = [copy(0.1, 2000, device="Other GPU"),
                        row("segment", 4, 0.3, 1000, 2000, device="Other GPU")]
        r = self.merge(base, other_device)
        self.assertEqual(r.returncode, 1)
        self.assertIn("different devices", r.stderr)
        r = self.merge(base, [copy(0.1, 2000), row("segment", 8, 0.3, 1000, 2000)])
        self.assertEqual(r.returncode, 1)
        self.assertIn("configurations differ", r.stderr)
        self.assertFalse(os.path.exists(self.out))

    def test_outputs_are_not_overwritten(self):
        run = self.write("run.csv", [HEADER, copy(0.1, 2000)])
        r = self.run_script(run, run, run)
        self.assertEqual(r.returncode, 2)
        self.assertIn("is one of the inputs", r.stderr)
        self.write("merged.csv", ["keep"])
        r = self.run_script(self.out, run, run)
        self.assertEqual(r.returncode, 3)
        with open(self.out) as f:
            self.assertEqual(f.read(), "keep\n")
        r = self.run_script("--force", self.out, run, run)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(len(self.rows()), 1)

    def test_splice_replaces_one_scalar(self):
        base = [copy(0.1, 2000), row("segment", 4, 0.3, 1000, 2000),
                copy(0.2, 2000, scalar="complex"),
                row("segment", 4, 0.6, 1000, 2000, scalar="complex"),
                row("thomas", 0, 0.9, 666, 2000, scalar="complex")]
        part = [row("thomas", 0, 0.8, 750, 2100, scalar="complex"),
                copy(0.19, 2100, scalar="complex"),
                row("segment", 4, 0.5, 1200, 2100, scalar="complex")]
        paths = [self.write("base.csv", [HEADER] + base), self.write("part.csv", [HEADER] + part)]
        r = self.run_script("--splice", self.out, *paths)
        self.assertEqual(r.returncode, 0, r.stderr)
        got = [(x["scalar"], x["method"], x["median_ms"], x["copy_gbs"]) for x in self.rows()]
        self.assertEqual(got, [
            ("real", "copy", "0.1", "2000"),  # the base's rows of the other scalar
            ("real", "segment", "0.3", "2000"),
            ("complex", "copy", "0.19", "2100"),  # the part's, in the base's order
            ("complex", "segment", "0.5", "2100"),
            ("complex", "thomas", "0.8", "2100"),
        ])
        os.remove(self.out)
        fewer = self.write("fewer.csv", [HEADER] + part[:2])
        r = self.run_script("--splice", self.out, paths[0], fewer)
        self.assertEqual(r.returncode, 1)
        self.assertIn("configurations of shape complex x 64 x 1024 differ", r.stderr)
        other = self.write("other.csv", [HEADER, copy(0.2, 2000, scalar="complex",
                                                      device="Other GPU")])
        r = self.run_script("--splice", self.out, paths[0], other)
        self.assertEqual(r.returncode, 1)
        self.assertIn("different devices", r.stderr)
        r = self.run_script("--splice", self.out, paths[0])
        self.assertEqual(r.returncode, 2)
        self.assertIn("OUTPUT.csv, BASE.csv and PART.csv", r.stderr)
        self.assertFalse(os.path.exists(self.out))

    def test_splice_replaces_one_shape(self):
        base = [copy(0.1, 2000), row("segment", 4, 0.3, 1000, 2000),
                copy(0.4, 2000, n=128), row("segment", 4, 0.6, 1000, 2000, n=128)]
        part = [copy(0.38, 2100, n=128), row("segment", 4, 0.5, 1200, 2100, n=128)]
        paths = [self.write("base.csv", [HEADER] + base), self.write("part.csv", [HEADER] + part)]
        r = self.run_script("--splice", self.out, *paths)
        self.assertEqual(r.returncode, 0, r.stderr)
        got = [(x["n"], x["method"], x["median_ms"], x["copy_gbs"]) for x in self.rows()]
        self.assertEqual(got, [("64", "copy", "0.1", "2000"), ("64", "segment", "0.3", "2000"),
                               ("128", "copy", "0.38", "2100"), ("128", "segment", "0.5", "2100")])

    def test_splice_replaces_one_layout(self):
        base = [copy(0.1, 2000), row("segment", 4, 0.3, 1000, 2000),
                row("columns", 4, 0.4, 800, 2000, layout="interleaved")]
        part = [copy(0.09, 2500), row("segment", 4, 0.28, 1100, 2500),
                row("window", 16, 0.2, 1500, 2500, staging="checked")]
        paths = [self.write("base.csv", [HEADER] + base), self.write("part.csv", [HEADER] + part)]
        r = self.run_script("--splice", self.out, *paths)
        self.assertEqual(r.returncode, 0, r.stderr)
        got = [(x["layout"], x["method"], x["median_ms"], x["copy_gbs"]) for x in self.rows()]
        self.assertEqual(got, [
            ("-", "copy", "0.09", "2500"),
            ("contiguous", "segment", "0.28", "2500"),
            ("interleaved", "columns", "0.4", "2500"),  # the base's, over the faster copy
            ("contiguous", "window", "0.2", "2500"),  # new: after its shape
        ])

    def test_splice_replaces_one_form(self):
        base = [copy(0.1, 2000), row("segment", 4, 0.3, 1000, 2000),
                row("thomas", 0, 0.5, 600, 2000, form="general"),
                copy(0.4, 2000, n=128), row("segment", 4, 0.6, 1000, 2000, n=128),
                row("thomas", 0, 0.9, 666, 2000, form="general", n=128)]
        part = [copy(0.09, 2500), row("segment", 4, 0.28, 1100, 2500),
                row("columns", 8, 0.25, 1200, 2500)]
        paths = [self.write("base.csv", [HEADER] + base), self.write("part.csv", [HEADER] + part)]
        r = self.run_script("--splice", self.out, *paths)
        self.assertEqual(r.returncode, 0, r.stderr)
        got = [(x["n"], x["form"], x["method"], x["median_ms"], x["copy_gbs"],
                x["fraction_of_copy"]) for x in self.rows()]
        self.assertEqual(got, [
            ("64", "-", "copy", "0.09", "2500", "1"),
            ("64", "shifted", "segment", "0.28", "2500", "0.44"),
            # the base's general form, its fraction over the faster copy of both runs
            ("64", "general", "thomas", "0.5", "2500", "0.24"),
            ("64", "shifted", "columns", "0.25", "2500", "0.48"),  # new: after its shape
            ("128", "-", "copy", "0.4", "2000", "1"),  # a shape the part lacks: as it was
            ("128", "shifted", "segment", "0.6", "2000", "0.5"),
            ("128", "general", "thomas", "0.9", "2000", "0.333"),
        ])
        os.remove(self.out)
        # A faster copy in the base stays the shape's copy for every row.
        slower = self.write("slower.csv", [HEADER, copy(0.12, 1600),
                                           row("segment", 4, 0.28, 1100, 1600)])
        r = self.run_script("--splice", self.out, paths[0], slower)
        self.assertEqual(r.returncode, 0, r.stderr)
        got = [(x["form"], x["median_ms"], x["copy_gbs"], x["fraction_of_copy"])
               for x in self.rows()[:3]]
        self.assertEqual(got, [("-", "0.12", "2000", "0.8"), ("shifted", "0.28", "2000", "0.55"),
                               ("general", "0.5", "2000", "0.3")])

    def test_splice_adds_new_configurations_after_their_shape(self):
        base = [copy(0.1, 2000), row("segment", 4, 0.3, 1000, 2000),
                copy(0.4, 2000, n=128), row("segment", 4, 0.6, 1000, 2000, n=128)]
        part = [copy(0.09, 2100), row("columns", 8, 0.25, 1200, 2100),
                row("segment", 4, 0.28, 1100, 2100), row("columns", 16, 0.27, 1150, 2100)]
        paths = [self.write("base.csv", [HEADER] + base), self.write("part.csv", [HEADER] + part)]
        r = self.run_script("--splice", self.out, *paths)
        self.assertEqual(r.returncode, 0, r.stderr)
        got = [(x["n"], x["method"], x["rows_per_thread"], x["median_ms"]) for x in self.rows()]
        self.assertEqual(got, [("64", "copy", "0", "0.09"), ("64", "segment", "4", "0.28"),
                               ("64", "columns", "8", "0.25"), ("64", "columns", "16", "0.27"),
                               ("128", "copy", "0", "0.4"), ("128", "segment", "4", "0.6")])

    def test_splice_adds_new_shapes_after_the_base(self):
        base = [copy(0.1, 2000), row("segment", 4, 0.3, 1000, 2000),
                copy(0.4, 2000, n=128), row("segment", 4, 0.6, 1000, 2000, n=128)]
        part = [copy(0.05, 2100, n=33), row("columns", 8, 0.2, 1200, 2100, n=33),
                copy(0.38, 2100, n=128), row("segment", 4, 0.5, 1200, 2100, n=128),
                copy(0.07, 2100, n=100), row("segment", 4, 0.25, 1100, 2100, n=100)]
        paths = [self.write("base.csv", [HEADER] + base), self.write("part.csv", [HEADER] + part)]
        r = self.run_script("--splice", self.out, *paths)
        self.assertEqual(r.returncode, 0, r.stderr)
        got = [(x["n"], x["method"], x["median_ms"]) for x in self.rows()]
        self.assertEqual(got, [("64", "copy", "0.1"), ("64", "segment", "0.3"),
                               ("128", "copy", "0.38"), ("128", "segment", "0.5"),
                               ("33", "copy", "0.05"), ("33", "columns", "0.2"),
                               ("100", "copy", "0.07"), ("100", "segment", "0.25")])

    def test_usage(self):
        r = self.run_script("--help")
        self.assertEqual(r.returncode, 0)
        self.assertIn("Usage: tridiag_merge.py", r.stdout)
        r = self.run_script(self.out, self.path("run.csv"))
        self.assertEqual(r.returncode, 2)
        self.assertIn("at least two RUN.csv", r.stderr)


if __name__ == "__main__":
    main()
