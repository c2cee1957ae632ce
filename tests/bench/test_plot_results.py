#!/usr/bin/python3
"""Tests of bench/plot_results.py on tiny synthetic CSVs written here: every PNG is written,
existing PNGs are kept without --force, and bad input (a misaligned CSV, a missing column) is
refused with exit code 1 and nothing written.

Run by CTest as: /usr/bin/python3 test_plot_results.py PATH_TO_plot_results.py
Exit code 77 (skipped) when this Python has no matplotlib.
"""
import os
import sys

from script_test import ScriptTest, main

try:
    import matplotlib  # noqa: F401  (only whether it is there)
except ImportError as e:  # pragma: no cover - reported as a skip by CTest
    print(f"SKIP: matplotlib not available to {sys.executable} ({e}); "
          "install python3-matplotlib (scripts/install-deps.sh)")
    sys.exit(77)

PSCR_HEADER = (
    "device,problem,scalar,mesh,dim,n,stages,unknowns,init_s,h2d_ms,d2h_ms,host_solve_ms,refine_ms,"
    "reps,"
    "median_ms,min_ms,max_ms,paper_ms,speedup_vs_paper,goal_ms,gflop,gflops,gbytes,gbs,copy_gbs,"
    "fp64_gflops,frac_copy,frac_fp64,share_rhs,share_tridiag,share_sum,share_update,share_fused,"
    "share_other,residual,initial_residual,host_residual,refinements,pivoted,rhs_per_round,"
    "device_mib,method,note")


def pscr_row(problem, dim, n, stages, median_ms, paper_ms, goal_ms="", method="pscr"):
    """A row in the order of PSCR_HEADER with made-up but consistent values."""
    gflop, gbytes = 1e-4 * n, 5e-5 * n
    shares = {"fused": [0, 0.3, 0.1, 0.1, 0.4, 0.1], "separate": [0.3, 0.4, 0.1, 0.1, 0, 0.1],
              "default": [0] * 6}[stages]
    values = ["Test GPU", problem, "real", "random", dim, n, stages, n**dim, 0.01, 0.1, 0.1, 1.0,
              0.2, 10, median_ms, median_ms, median_ms, paper_ms, paper_ms / median_ms, goal_ms, gflop,
              gflop / (median_ms * 1e-3), gbytes, gbytes / (median_ms * 1e-3), 4000.0, 30000.0,
              0.1, 0.01, *shares, 1e-15, 1e-15, 1e-15, 0, 0, 1, 1.0, method, ""]
    return ",".join(str(v) for v in values)


PSCR_ROWS = [
    pscr_row("poisson", 2, 32, "fused", 0.08, 0.3),
    pscr_row("poisson", 2, 32, "separate", 0.12, 0.3),
    pscr_row("poisson", 2, 64, "fused", 0.17, 0.3, 12.0),
    pscr_row("poisson", 2, 64, "separate", 0.2, 0.3, 12.0),
    pscr_row("helmholtz", 3, 31, "fused", 0.5, 3.0, 70.0),
    pscr_row("helmholtz", 3, 31, "default", 0.1, 3.0, 70.0, "fast_diagonalization"),
]

PEERS = """device,solver,problem,scalar,mesh,dim,n1,n2,n3,unknowns,setup_s,h2d_ms,d2h_ms,reps,\
median_ms,min_ms,max_ms,transform_ms,tridiag_ms,gflop,gflops,gbytes,gbs,ceiling_gflops,\
ceiling_gbs,rel_residual,max_rel_err_cpu,note
Test GPU,ceiling,copy,real,,1,1000,,,1000,,,,200,0.5,0.5,0.5,,,,,2,4000,,,,,copy
Test GPU,fd,poisson,real,random,2,37,29,,1073,0.1,0.01,0.01,10,0.07,0.07,0.07,,,,,,,,,,1e-16,check
Test GPU,fd,poisson,real,random,2,32,32,,1024,0.1,0.01,0.01,10,0.03,0.03,0.03,,,,,,,,,,,
Test GPU,fd,poisson,real,random,2,64,64,,4096,0.1,0.01,0.01,10,0.05,0.05,0.05,,,,,,,,,,,
Test GPU,fd,poisson,,,2,128,128,,16384,,,,,,,,,,,,,,,,,,skipped
Test GPU,fft,poisson,real,uniform,2,31,31,,961,0.1,0.01,0.01,10,0.04,0.04,0.04,,,,,,,,,,,
Test GPU,fft,poisson,real,uniform,2,63,63,,3969,0.1,0.01,0.01,10,0.04,0.04,0.04,,,,,,,,,,,
Test GPU,fd,helmholtz (omega=10),complex,random,3,31,31,31,29791,1,1,1,10,0.08,0.08,0.08,,,,,,,,,,,
"""

TRIDIAG_HEADER = ("device,scalar,n,batch,form,layout,method,rows_per_thread,staging,median_ms,"
                  "min_ms,gbs_floor,copy_gbs,fraction_of_copy,gflops_nominal,max_residual,reps,"
                  "note")


def tridiag_rows():
    rows = [TRIDIAG_HEADER]
    for scalar in ("real", "complex"):
        for n, batch in ((64, 1024), (65536, 4)):
            rows.append(f'"Test GPU",{scalar},{n},{batch},-,-,copy,0,-,0.01,0.01,1,1,1,0,0,20,""')
            for form in ("shifted", "general"):
                for layout in ("contiguous", "interleaved"):
                    for method, m, staging, ms in (("thomas", 0, "-", 0.04),
                                                   ("partition", 8, "shared", 0.02),
                                                   ("automatic", 0, "-", 0.021)):
                        rows.append(f'"Test GPU",{scalar},{n},{batch},{form},{layout},{method},'
                                    f'{m},{staging},{ms},{ms},1,1,{0.01 / ms},1,1e-16,10,""')
            rows.append(f'"Test GPU",{scalar},{n},{batch},general,contiguous,'
                        f'cusparse_gtsv2StridedBatch,0,-,0.05,0.05,1,1,0.2,1,1e-16,10,""')
            rows.append(f'"Test GPU",{scalar},{n},{batch},general,interleaved,'
                        f'cusparse_gtsvInterleavedBatch_algo0,0,-,9,9,1,1,0.001,1,1e-16,1,'
                        f'"skipped: one solve 9 ms > 30x copy"')
    return rows


OUTPUTS = ["pscr-gpu-test-time.png", "pscr-gpu-test-speedup.png", "pscr-gpu-test-roofline.png",
           "pscr-gpu-test-stages.png", "tridiag-test-shifted.png", "tridiag-test-general.png"]


class PlotResults(ScriptTest):
    def setUp(self):
        super().setUp()
        self.dir = self.tmp.name
        self.pscr = self.write("pscr-gpu-test.csv", [PSCR_HEADER, *PSCR_ROWS])
        self.peers = self.write("peers-test.csv", PEERS.strip("\n").splitlines())
        self.tridiag = self.write("tridiag-test.csv", tridiag_rows())

    def plot(self, *args):
        return self.run_script(*args, timeout=300)

    def check(self, p, code):
        self.assertEqual(p.returncode, code, f"exit {p.returncode}, expected {code}\n"
                         f"stdout:\n{p.stdout}\nstderr:\n{p.stderr}")

    def test_writes_every_png_and_keeps_them_without_force(self):
        out = os.path.join(self.dir, "plots")
        self.check(self.plot("--pscr-gpu", self.pscr, "--peers", self.peers, "--tridiag",
                       self.tridiag, "--out", out, "--dpi", 40), 0)
        for name in OUTPUTS:
            with open(os.path.join(out, name), "rb") as f:
                self.assertEqual(f.read(8), b"\x89PNG\r\n\x1a\n", name)
        before = os.path.getmtime(os.path.join(out, OUTPUTS[-1]))
        p = self.plot("--tridiag", self.tridiag, "--out", out)
        self.check(p, 3)
        self.assertIn("--force", p.stderr)
        self.assertEqual(os.path.getmtime(os.path.join(out, OUTPUTS[-1])), before)
        self.check(self.plot("--tridiag", self.tridiag, "--out", out, "--force", "--dpi", 40), 0)

    def test_refuses_a_misaligned_csv(self):
        # The bug this guards against: a writer that skips one value shifts every later column.
        rows = [PSCR_ROWS[0], PSCR_ROWS[1].replace(",separate,", ",", 1), *PSCR_ROWS[2:]]
        bad = self.write("pscr-gpu-bad.csv", [PSCR_HEADER, *rows])
        out = os.path.join(self.dir, "bad")
        p = self.plot("--pscr-gpu", bad, "--out", out)
        self.check(p, 1)
        self.assertIn("misaligned", p.stderr)
        self.assertIn("43 columns", p.stderr)
        self.assertIn("line 3: 42", p.stderr)
        self.assertFalse(os.path.exists(out), "nothing may be written for bad input")

    def test_refuses_a_missing_column(self):
        header = PSCR_HEADER.replace(",stages,", ",variant,")
        bad = self.write("pscr-gpu-old.csv", [header, *PSCR_ROWS])
        p = self.plot("--pscr-gpu", bad, "--out", os.path.join(self.dir, "old"))
        self.check(p, 1)
        self.assertIn("missing column(s) stages", p.stderr)

    def test_arguments(self):
        self.check(self.plot("--help"), 0)
        self.check(self.plot("--out", self.dir), 2)  # nothing to plot
        self.check(self.plot("--peers", self.peers, "--out", self.dir), 2)  # peers need --pscr-gpu
        p = self.plot("--tridiag", os.path.join(self.dir, "absent.csv"), "--out", self.dir)
        self.check(p, 1)
        self.assertIn("cannot read", p.stderr)


if __name__ == "__main__":
    main(verbosity=2)
