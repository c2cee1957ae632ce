#!/usr/bin/python3
"""Tests of bench/tridiag_select.py (the selection table of the GPU tridiagonal solvers) on tiny
synthetic tridiag_bench CSVs: the fastest accurate configuration wins per shape and form;
rows of other methods (copy, pivoting, cuSPARSE), skipped or inaccurate rows never win; complex
configurations whose threads take more than MAX_COMPLEX_LANE_ROWS rows (segment, block, partition,
and the warp method with the K it raises its rows per lane to) are left out of the complex entries
(they lost accuracy on PSCR's indefinite Helmholtz systems) but not of the dominant ones (for
diagonally dominant systems), except the guarded ones: the sweep method up to 8192 rows (K = 16,
its cluster kernel's InBlock instance, up to 1024), the segment and columns methods up to 16 rows
per lane where one segment of 32 lanes covers a system;
rows of Helmholtz systems (--helmholtz, any finite residual) decide the complex entries that are
not dominant, a guarded configuration there only by more than GUARDED_MARGIN; the window method
sets the `checked` flag (its check on the device) and the `window` flag (its bound assured) of
the real and dominant complex shifted entries (either layout) where it is faster than the entry's
exact method by more than WINDOW_MARGIN, never an entry's method, and rows of the check the host
waited for set nothing; a CSV without a usable row, or CSVs of several GPUs, are refused with a
message and no table written.

Run by CTest as: python3 test_tridiag_select.py PATH_TO_tridiag_select.py
"""
import os

from script_test import ScriptTest, main

HEADER = ("device,scalar,n,batch,form,layout,method,rows_per_thread,staging,median_ms,min_ms,"
          "gbs_floor,copy_gbs,fraction_of_copy,gflops_nominal,max_residual,reps,note")


def row(scalar, n, batch, method, k, ms, form="shifted", layout="contiguous", staging="-",
        residual=1e-16, reps=10, note=""):
    """A tridiag_bench row with the columns tridiag_select.py reads set as given."""
    return (f'"Test GPU",{scalar},{n},{batch},{form},{layout},{method},{k},{staging},{ms},{ms},'
            f'1000,4000,0.25,1,{residual},{reps},"{note}"')


class TridiagSelectTest(ScriptTest):
    def setUp(self):
        super().setUp()
        self.out = self.path("table.inc")

    def run_select(self, rows):
        """tridiag_select.py on a CSV of `rows`, writing the table to self.out."""
        return self.run_script(self.write("bench.csv", [HEADER] + rows), self.out)

    def entries(self):
        with open(self.out) as f:
            return [line for line in f.read().splitlines() if line.startswith("{")]

    def test_fastest_accurate_configuration_per_shape(self):
        r = self.run_select([
            row("real", 8192, 2048, "copy", 0, 0.01, form="-", layout="-"),
            row("real", 8192, 2048, "segment", 4, 0.30),
            row("real", 8192, 2048, "segment", 8, 0.22),
            row("real", 8192, 2048, "partition", 16, 0.10, residual=1e-6),  # inaccurate
            row("real", 8192, 2048, "thomas", 0, 0.05, note="skipped: one solve too slow"),
            row("real", 8192, 2048, "pivoting", 0, 0.01),
            row("real", 8192, 2048, "segment", 16, 0.01, form="general"),
            row("real", 8192, 2048, "segment", 8, 0.02, form="general"),
            row("real", 8192, 2048, "cusparse_gtsv2StridedBatch", 0, 0.001, form="general"),
            row("real", 8192, 2048, "partition", 8, 0.40, layout="interleaved", staging="shared"),
            row("real", 8192, 2048, "thomas", 0, 0.30, form="general", layout="interleaved"),
        ])
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(self.entries(), [
            "{false, false, false, false, 8192, 2048, Method::segment, 8, false, false, false},  // 0.22 ms",
            "{false, false, false, true, 8192, 2048, Method::segment, 16, false, false, false},  // 0.01 ms",
            "{true, false, false, false, 8192, 2048, Method::partition, 8, true, false, false},  // 0.4 ms",
            "{true, false, false, true, 8192, 2048, Method::thomas, 0, false, false, false},  // 0.3 ms",
        ])
        with open(self.out) as f:
            self.assertIn("// Measured on: Test GPU.", f.read())

    def test_complex_configurations_bounded_unless_dominant(self):
        r = self.run_select([
            row("complex", 8192, 2048, "segment", 8, 0.64),
            row("complex", 8192, 2048, "segment", 16, 0.60),
            row("complex", 8192, 2048, "segment", 4, 0.67),
            row("complex", 128, 131072, "warp", 0, 0.10, staging="shared"),  # K = 4: kept
            row("complex", 128, 131072, "segment", 4, 0.12),
            row("complex", 96, 131072, "sweep", 0, 0.11),  # K = 4 (32 K >= 96): kept
            row("complex", 130, 131072, "sweep", 0, 0.11),  # K = 6, guarded: kept
            row("complex", 130, 131072, "segment", 4, 0.13),
            row("complex", 700, 23967, "sweep", 0, 0.30),  # K = 22, one warp, guarded: kept
            row("complex", 700, 23967, "segment", 4, 0.40),
            row("complex", 1023, 1023, "sweep", 16, 0.02),  # its InBlock instance, guarded: kept
            row("complex", 1023, 1023, "sweep", 8, 0.03),
            row("complex", 1023, 1023, "segment", 4, 0.04),
            row("complex", 2048, 8192, "sweep", 8, 0.30),  # the cluster kernel, guarded: kept
            row("complex", 2048, 8192, "segment", 4, 0.40),
            row("complex", 16384, 1024, "sweep", 8, 0.30),  # beyond the guarded sweep
            row("complex", 16384, 1024, "segment", 4, 0.40),
            row("complex", 512, 32768, "warp", 0, 0.41, staging="shared"),  # K = 16
            row("complex", 512, 32768, "warp", 4, 0.40),  # raised to K = 16 too
            row("complex", 512, 32768, "sweep", 0, 0.20),  # K = 16, guarded: kept
            row("complex", 512, 32768, "block", 8, 0.30),
            row("complex", 512, 32768, "block", 4, 0.45),
            row("complex", 1024, 16384, "block", 8, 0.30),
            row("complex", 1024, 16384, "block", 4, 0.35),
            row("complex", 1024, 16384, "warp", 0, 0.20, layout="interleaved"),  # past 512 rows: left out
            row("complex", 1024, 16384, "partition", 16, 0.25, layout="interleaved"),
            row("complex", 1024, 16384, "partition", 4, 0.50, layout="interleaved"),
            row("complex", 1024, 16384, "thomas", 0, 0.55, layout="interleaved"),
            row("real", 8192, 2048, "segment", 8, 0.22),
            row("real", 1024, 16384, "block", 8, 0.15),
            row("real", 1024, 16384, "sweep", 0, 0.14),  # real: any K
            row("real", 512, 32768, "warp", 0, 0.10),
        ])
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(self.entries(), [
            "{false, false, false, false, 512, 32768, Method::warp, 0, false, false, false},  // 0.1 ms",
            "{false, false, false, false, 1024, 16384, Method::sweep, 0, false, false, false},  // 0.14 ms",
            "{false, false, false, false, 8192, 2048, Method::segment, 8, false, false, false},  // 0.22 ms",
            "{false, true, false, false, 96, 131072, Method::sweep, 0, false, false, false},  // 0.11 ms",
            "{false, true, false, false, 128, 131072, Method::warp, 0, true, false, false},  // 0.1 ms",
            "{false, true, false, false, 130, 131072, Method::sweep, 0, false, false, false},  // 0.11 ms",
            "{false, true, false, false, 512, 32768, Method::sweep, 0, false, false, false},  // 0.2 ms",
            "{false, true, false, false, 700, 23967, Method::sweep, 0, false, false, false},  // 0.3 ms",
            "{false, true, false, false, 1023, 1023, Method::sweep, 16, false, false, false},  // 0.02 ms",
            "{false, true, false, false, 1024, 16384, Method::block, 4, false, false, false},  // 0.35 ms",
            "{false, true, false, false, 2048, 8192, Method::sweep, 8, false, false, false},  // 0.3 ms",
            "{false, true, false, false, 8192, 2048, Method::segment, 4, false, false, false},  // 0.67 ms",
            "{false, true, false, false, 16384, 1024, Method::segment, 4, false, false, false},  // 0.4 ms",
            "{false, true, true, false, 96, 131072, Method::sweep, 0, false, false, false},  // 0.11 ms",
            "{false, true, true, false, 128, 131072, Method::warp, 0, true, false, false},  // 0.1 ms",
            "{false, true, true, false, 130, 131072, Method::sweep, 0, false, false, false},  // 0.11 ms",
            "{false, true, true, false, 512, 32768, Method::sweep, 0, false, false, false},  // 0.2 ms",
            "{false, true, true, false, 700, 23967, Method::sweep, 0, false, false, false},  // 0.3 ms",
            "{false, true, true, false, 1023, 1023, Method::sweep, 16, false, false, false},  // 0.02 ms",
            "{false, true, true, false, 1024, 16384, Method::block, 8, false, false, false},  // 0.3 ms",
            "{false, true, true, false, 2048, 8192, Method::sweep, 8, false, false, false},  // 0.3 ms",
            "{false, true, true, false, 8192, 2048, Method::segment, 16, false, false, false},  // 0.6 ms",
            "{false, true, true, false, 16384, 1024, Method::sweep, 8, false, false, false},  // 0.3 ms",
            "{true, true, false, false, 1024, 16384, Method::partition, 4, false, false, false},  // 0.5 ms",
            "{true, true, true, false, 1024, 16384, Method::warp, 0, false, false, false},  // 0.2 ms",
        ])

    def test_guarded_segments_serve_complex_systems_of_one_segment(self):
        r = self.run_select([
            row("complex", 255, 65536, "columns", 16, 0.26, layout="interleaved"),  # 512 rows
            row("complex", 255, 65536, "columns", 4, 0.45, layout="interleaved"),
            row("complex", 255, 65536, "segment", 8, 0.30),  # 256 rows
            row("complex", 255, 65536, "block", 8, 0.28),  # several segments in one block
            row("complex", 255, 65536, "segment", 4, 0.40),
            row("complex", 1024, 16384, "columns", 16, 0.30, layout="interleaved"),  # 2 segments
            row("complex", 1024, 16384, "columns", 4, 0.39, layout="interleaved"),
            row("complex", 1024, 16384, "segment", 16, 0.35),  # 2 segments
            row("complex", 1024, 16384, "segment", 4, 0.43),
        ])
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(self.entries(), [
            "{false, true, false, false, 255, 65536, Method::segment, 8, false, false, false},  // 0.3 ms",
            "{false, true, false, false, 1024, 16384, Method::segment, 4, false, false, false},  // 0.43 ms",
            "{false, true, true, false, 255, 65536, Method::block, 8, false, false, false},  // 0.28 ms",
            "{false, true, true, false, 1024, 16384, Method::segment, 16, false, false, false},  // 0.35 ms",
            "{true, true, false, false, 255, 65536, Method::columns, 16, false, false, false},  // 0.26 ms",
            "{true, true, false, false, 1024, 16384, Method::columns, 4, false, false, false},  // 0.39 ms",
            "{true, true, true, false, 255, 65536, Method::columns, 16, false, false, false},  // 0.26 ms",
            "{true, true, true, false, 1024, 16384, Method::columns, 16, false, false, false},  // 0.3 ms",
        ])

    def test_helmholtz_rows_decide_the_entries_that_are_not_dominant(self):
        main = [
            row("complex", 511, 511, "sweep", 0, 0.018),
            row("complex", 511, 511, "block", 4, 0.019),
            row("complex", 511, 511, "warp", 0, 0.017),  # K = 16: dominant only
            row("complex", 1023, 1023, "block", 4, 0.045),
            row("real", 511, 511, "block", 4, 0.010),
        ]
        helmholtz = [
            row("complex", 511, 511, "sweep", 0, 0.029),
            row("complex", 511, 511, "block", 4, 0.022),
            row("complex", 511, 511, "block", 2, 0.015, residual="nan"),  # failed
            # any finite residual: the shifts' conditioning, not the configuration's accuracy
            row("complex", 511, 511, "partition", 4, 0.021, residual=1e-9),
            row("complex", 511, 511, "warp", 0, 0.020),  # never serves these entries
        ]
        h = self.write("helmholtz.csv", [HEADER] + helmholtz)
        r = self.run_script(self.write("bench.csv", [HEADER] + main), self.out, "--helmholtz", h)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(self.entries(), [
            "{false, false, false, false, 511, 511, Method::block, 4, false, false, false},  // 0.01 ms",
            "{false, true, false, false, 511, 511, Method::partition, 4, false, false, false},  // 0.021 ms",
            "{false, true, false, false, 1023, 1023, Method::block, 4, false, false, false},  // 0.045 ms",
            "{false, true, true, false, 511, 511, Method::warp, 0, false, false, false},  // 0.017 ms",
            "{false, true, true, false, 1023, 1023, Method::block, 4, false, false, false},  // 0.045 ms",
        ])
        r = self.run_script(self.write("bench.csv", [HEADER] + main), self.out, "--helmholtz",
                            self.write("empty.csv", [HEADER, row("real", 64, 64, "block", 4, 1)]))
        self.assertNotEqual(r.returncode, 0)
        self.assertIn("no usable complex rows", r.stderr)

    def test_guarded_configurations_need_a_margin_on_helmholtz_systems(self):
        # 4095 x 4095: the guarded cluster kernel (sweep, K = 8) 4% ahead of segment K = 4, within
        # GUARDED_MARGIN (5%): the unguarded one keeps the entry; 2047 x 2047: 10% ahead, taken.
        # On the benchmark's dominant systems no margin: the dominant entries take the fastest.
        main = [
            row("complex", 4095, 4095, "sweep", 8, 0.40),
            row("complex", 4095, 4095, "segment", 4, 0.50),
            row("complex", 2047, 2047, "sweep", 8, 0.10),
            row("complex", 2047, 2047, "segment", 4, 0.14),
        ]
        helmholtz = [
            row("complex", 4095, 4095, "sweep", 8, 0.48),
            row("complex", 4095, 4095, "segment", 4, 0.50),
            row("complex", 2047, 2047, "sweep", 8, 0.126),
            row("complex", 2047, 2047, "segment", 4, 0.14),
        ]
        h = self.write("helmholtz.csv", [HEADER] + helmholtz)
        r = self.run_script(self.write("bench.csv", [HEADER] + main), self.out, "--helmholtz", h)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(self.entries(), [
            "{false, true, false, false, 2047, 2047, Method::sweep, 8, false, false, false},  // 0.126 ms",
            "{false, true, false, false, 4095, 4095, Method::segment, 4, false, false, false},  // 0.5 ms",
            "{false, true, true, false, 2047, 2047, Method::sweep, 8, false, false, false},  // 0.1 ms",
            "{false, true, true, false, 4095, 4095, Method::sweep, 8, false, false, false},  // 0.4 ms",
        ])

    def test_window_method_assured_sets_the_window_flag(self):
        r = self.run_select([
            row("real", 8192, 2048, "sweep", 16, 0.20),
            row("real", 8192, 2048, "window", 16, 0.25, staging="assured"),  # slower
            row("real", 65536, 256, "segment", 16, 0.30),
            row("real", 65536, 256, "window", 16, 0.10, staging="waited"),  # the host waited
            row("real", 65536, 256, "window", 16, 0.20, staging="assured"),
            row("real", 65536, 256, "segment", 16, 0.40, layout="interleaved"),
            row("real", 65536, 256, "window", 16, 0.30, layout="interleaved", staging="assured"),
            row("real", 65536, 256, "window", 16, 0.1, staging="assured", residual=1e-6),
            row("complex", 65536, 256, "segment", 4, 0.50),
            row("complex", 65536, 256, "segment", 16, 0.45),
            row("complex", 65536, 256, "window", 16, 0.40, staging="assured"),
            row("complex", 8192, 2048, "segment", 4, 0.50),
            row("complex", 8192, 2048, "window", 16, 0.48, staging="assured"),  # within the margin
            row("complex", 1048576, 16, "segment", 4, 0.50),
            row("complex", 1048576, 16, "window", 16, 0.60, staging="assured", residual=1e-6),
        ])
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(self.entries(), [
            "{false, false, false, false, 8192, 2048, Method::sweep, 0, false, false, false},"
            "  // 0.2 ms; window 0.25 ms",
            "{false, false, false, false, 65536, 256, Method::segment, 16, false, true, false},"
            "  // 0.3 ms; window 0.2 ms",
            "{false, true, false, false, 8192, 2048, Method::segment, 4, false, false, false},  // 0.5 ms",
            "{false, true, false, false, 65536, 256, Method::segment, 4, false, false, false},  // 0.5 ms",
            "{false, true, false, false, 1048576, 16, Method::segment, 4, false, false, false},  // 0.5 ms",
            "{false, true, true, false, 8192, 2048, Method::segment, 4, false, false, false},"
            "  // 0.5 ms; window 0.48 ms",
            "{false, true, true, false, 65536, 256, Method::segment, 16, false, true, false},"
            "  // 0.45 ms; window 0.4 ms",
            "{false, true, true, false, 1048576, 16, Method::segment, 4, false, false, false},  // 0.5 ms",
            "{true, false, false, false, 65536, 256, Method::segment, 16, false, true, false},"
            "  // 0.4 ms; window 0.3 ms",
        ])

    def test_window_method_checked_sets_the_checked_flag(self):
        # Checked on the device (no wait), it serves any call of the real entries and the complex
        # dominant ones where it is faster by more than the margin; the entry keeps its exact
        # method, the window method's fallback. Complex entries that are not dominant (Helmholtz
        # systems, which fail the bound) get no flag, and rows of the window method never win an
        # entry's method.
        main = [
            row("real", 8192, 2048, "sweep", 16, 0.20),
            row("real", 8192, 2048, "window", 16, 0.195, staging="checked"),  # within the margin
            row("real", 65536, 256, "segment", 16, 0.30),
            row("real", 65536, 256, "window", 16, 0.20, staging="checked"),
            row("real", 65536, 256, "window", 16, 0.15, staging="assured"),
            row("complex", 65536, 256, "segment", 4, 0.50),
            row("complex", 65536, 256, "window", 16, 0.40, staging="checked"),
            row("complex", 1048576, 16, "segment", 4, 0.50),
            row("complex", 1048576, 16, "window", 16, 0.40, staging="checked"),
        ]
        helmholtz = [
            row("complex", 1048576, 16, "segment", 4, 0.55),
            row("complex", 1048576, 16, "window", 16, 0.52, staging="checked"),
        ]
        h = self.write("helmholtz.csv", [HEADER] + helmholtz)
        r = self.run_script(self.write("bench.csv", [HEADER] + main), self.out, "--helmholtz", h)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(self.entries(), [
            "{false, false, false, false, 8192, 2048, Method::sweep, 0, false, false, false},"
            "  // 0.2 ms; checked 0.195 ms",
            "{false, false, false, false, 65536, 256, Method::segment, 16, false, true, true},"
            "  // 0.3 ms; window 0.15 ms; checked 0.2 ms",
            "{false, true, false, false, 65536, 256, Method::segment, 4, false, false, false},"
            "  // 0.5 ms",
            "{false, true, false, false, 1048576, 16, Method::segment, 4, false, false, false},"
            "  // 0.55 ms",
            "{false, true, true, false, 65536, 256, Method::segment, 4, false, false, true},"
            "  // 0.5 ms; checked 0.4 ms",
            "{false, true, true, false, 1048576, 16, Method::segment, 4, false, false, true},"
            "  // 0.5 ms; checked 0.4 ms",
        ])

    def test_tiled_pcr_steps_are_not_rows_per_thread(self):
        # tiled_pcr's rows_per_thread column holds its PCR steps: no lane eliminates 8 rows.
        r = self.run_select([
            row("complex", 1048576, 16, "tiled_pcr", 8, 0.60),
            row("complex", 1048576, 16, "segment", 4, 0.66),
            row("real", 1048576, 16, "tiled_pcr", 4, 0.40, residual=1e-9),  # inaccurate
            row("real", 1048576, 16, "segment", 8, 0.23),
        ])
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(self.entries(), [
            "{false, false, false, false, 1048576, 16, Method::segment, 8, false, false, false},  // 0.23 ms",
            "{false, true, false, false, 1048576, 16, Method::tiled_pcr, 8, false, false, false},  // 0.6 ms",
            "{false, true, true, false, 1048576, 16, Method::tiled_pcr, 8, false, false, false},  // 0.6 ms",
        ])

    def test_rows_of_several_gpus_are_refused(self):
        other = row("real", 64, 262144, "segment", 4, 0.2).replace('"Test GPU"', '"Other GPU"')
        r = self.run_select([row("real", 64, 262144, "segment", 8, 0.1), other])
        self.assertNotEqual(r.returncode, 0)
        self.assertIn("rows of 2 GPUs (Other GPU, Test GPU)", r.stderr)
        self.assertFalse(os.path.exists(self.out))
        helmholtz = self.write("helmholtz.csv", [HEADER, row("complex", 64, 262144, "segment", 4,
                                                             0.3).replace("Test", "Other")])
        r = self.run_script(self.write("bench.csv", [HEADER, row("real", 64, 262144, "segment", 8,
                                                                  0.1)]),
                            self.out, "--helmholtz", helmholtz)
        self.assertNotEqual(r.returncode, 0)
        self.assertIn("rows of 2 GPUs", r.stderr)
        self.assertFalse(os.path.exists(self.out))

    def test_no_usable_row_is_refused(self):
        r = self.run_select([row("complex", 8192, 2048, "segment", 8, 0.64, note="skipped: slow"),
                             row("real", 64, 262144, "segment", 8, 0.1, residual=1e-3)])
        self.assertNotEqual(r.returncode, 0)
        self.assertIn("no usable rows", r.stderr)
        self.assertFalse(os.path.exists(self.out))


if __name__ == "__main__":
    main()
