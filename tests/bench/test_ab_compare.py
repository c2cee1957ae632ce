#!/usr/bin/python3
"""Tests of bench/ab_compare.py (an ab.sh CSV side by side) on tiny synthetic CSVs: medians over
the rounds, ratios to the baseline (named, "base", or the first variant), "-" where a variant
lacks a configuration, the ratios over the copy's of the same shape, both benchmarks' CSVs; bad
input exits 1, bad arguments 2.

Run by CTest as: python3 test_ab_compare.py PATH_TO_ab_compare.py
"""
from script_test import ScriptTest, main

TRIDIAG = ("variant,round,device,scalar,n,batch,form,layout,method,rows_per_thread,staging,"
           "median_ms,min_ms,gbs_floor,copy_gbs,fraction_of_copy,gflops_nominal,max_residual,"
           "reps,note")
PSCR = "variant,round,device,problem,scalar,mesh,dim,n,stages,median_ms,method"


def tridiag_row(variant, rnd, k, ms, n=8192, method="segment"):
    form, layout = ("-", "-") if method == "copy" else ("shifted", "contiguous")
    return (f'{variant},{rnd},"Test GPU",real,{n},2048,{form},{layout},{method},{k},-,{ms},{ms},'
            f'1,1,0.5,1,1e-16,10,""')


class AbCompareTest(ScriptTest):
    def run_compare(self, header, rows, args=None):
        """ab_compare.py on a CSV of `header` and `rows`, with `args` (default: the CSV alone)."""
        path = self.write("ab.csv", [header] + rows)
        return self.run_script(*([path] if args is None else args))

    def cells(self, out, start):
        found = [l for l in out.splitlines() if l.startswith(start)]
        self.assertEqual(len(found), 1, out)
        return [c.strip() for c in found[0].strip("|").split("|")]

    def test_medians_over_rounds_and_ratios_to_base(self):
        rows = [tridiag_row("new", 1, 8, 0.30), tridiag_row("base", 1, 8, 0.20),
                tridiag_row("new", 2, 8, 0.10), tridiag_row("base", 2, 8, 0.40),
                tridiag_row("new", 3, 8, 0.15), tridiag_row("base", 3, 8, 0.30)]
        r = self.run_compare(TRIDIAG, rows)
        self.assertEqual(r.returncode, 0, r.stderr)
        head = self.cells(r.stdout, "| scalar")
        self.assertEqual(head[-3:], ["new ms", "base ms", "new/base"])
        cells = self.cells(r.stdout, "| real | 8192")
        self.assertEqual(cells[:8], ["real", "8192", "2048", "shifted", "contiguous", "segment",
                                     "8", "-"])
        self.assertEqual(cells[8:], ["0.15", "0.3", "0.500"])

    def test_named_baseline_and_missing_variant(self):
        rows = [tridiag_row("base", 1, 8, 0.2), tridiag_row("k4", 1, 8, 0.1),
                tridiag_row("new", 1, 8, 0.4), tridiag_row("base", 1, 16, 0.2)]
        r = self.run_compare(TRIDIAG, rows, [self.path("ab.csv"), "--baseline", "k4"])
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(self.cells(r.stdout, "| scalar")[-2:], ["base/k4", "new/k4"])
        self.assertEqual(self.cells(r.stdout, "| real | 8192 | 2048 | shifted | contiguous | "
                                              "segment | 8 ")[-2:], ["2.000", "4.000"])
        k16 = self.cells(r.stdout, "| real | 8192 | 2048 | shifted | contiguous | segment | 16 ")
        self.assertEqual(k16[8:], ["0.2", "-", "-", "-", "-"])

    def test_first_variant_is_the_baseline_without_base(self):
        rows = [tridiag_row("old", 1, 8, 0.2), tridiag_row("new", 1, 8, 0.3)]
        r = self.run_compare(TRIDIAG, rows)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(self.cells(r.stdout, "| real")[-1], "1.500")

    def test_ratios_over_the_copy_of_the_same_shape(self):
        rows = [tridiag_row("base", 1, 0, 0.010, method="copy"),
                tridiag_row("new", 1, 0, 0.012, method="copy"),
                tridiag_row("base", 1, 8, 0.020), tridiag_row("new", 1, 8, 0.030),
                tridiag_row("base", 1, 8, 0.5, n=64), tridiag_row("new", 1, 8, 0.4, n=64)]
        r = self.run_compare(TRIDIAG, rows)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(self.cells(r.stdout, "| scalar")[-2:], ["new/base", "new/base over copy"])
        self.assertEqual(self.cells(r.stdout, "| real | 8192 | 2048 | - | - | copy")[-2:],
                         ["1.200", "1.000"])
        # 1.5 against a copy 1.2 times slower: 1.25; the 64-row shape has no copy row.
        self.assertEqual(self.cells(r.stdout, "| real | 8192 | 2048 | shifted")[-2:],
                         ["1.500", "1.250"])
        self.assertEqual(self.cells(r.stdout, "| real | 64 ")[-2:], ["0.800", "-"])

    def test_pscr_csv(self):
        rows = ['base,1,"Test GPU",poisson,real,random,2,4096,fused,3.0,pscr',
                'new,1,"Test GPU",poisson,real,random,2,4096,fused,2.7,pscr']
        r = self.run_compare(PSCR, rows)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(self.cells(r.stdout, "| poisson"),
                         ["poisson", "real", "2", "4096", "fused", "pscr", "3", "2.7", "0.900"])

    def test_bad_input(self):
        rows = [tridiag_row("base", 1, 8, 0.2)]
        r = self.run_compare(TRIDIAG, rows, [self.path("ab.csv"), "--baseline", "nope"])
        self.assertEqual(r.returncode, 1)
        self.assertIn("no variant 'nope'", r.stderr)
        r = self.run_compare(TRIDIAG, [tridiag_row("base", 1, 8, "fast")])
        self.assertEqual(r.returncode, 1)
        self.assertIn("expected a number, found 'fast'", r.stderr)
        r = self.run_compare("variant,round,median_ms", ["base,1,0.2"])
        self.assertEqual(r.returncode, 1)
        self.assertIn("not an ab.sh CSV", r.stderr)
        r = self.run_compare(TRIDIAG, [])
        self.assertEqual(r.returncode, 1)
        self.assertIn("no data rows", r.stderr)
        r = self.run_compare(TRIDIAG, [tridiag_row("base", 1, 8, 0.2) + ",extra"])
        self.assertEqual(r.returncode, 1)
        self.assertIn("misaligned", r.stderr)
        r = self.run_script(self.path("none.csv"))
        self.assertEqual(r.returncode, 1)
        self.assertIn("cannot read", r.stderr)

    def test_arguments(self):
        r = self.run_script()
        self.assertEqual(r.returncode, 2)
        r = self.run_script("--help")
        self.assertEqual(r.returncode, 0)
        self.assertIn("Usage: ab_compare.py", r.stdout)
        r = self.run_script("x.csv", "--base", "b")
        self.assertEqual(r.returncode, 2)


if __name__ == "__main__":
    main()
