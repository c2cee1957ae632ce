#!/usr/bin/env python3
"""End-to-end tests of the `pscr` command: help and exit codes, generate -> info -> solve ->
residual, files read back with plain h5py, a problem written with plain h5py solved by pscr,
bad input rejected with the documented exit codes, outputs never overwritten without --force.

Run by CTest as: python3 test_cli.py PATH_TO_PSCR (Debian's python3 with h5py and numpy).
"""
import os
import resource
import subprocess
import sys
import tempfile
import unittest

try:
    import h5py
    import numpy as np
except ImportError as e:  # pragma: no cover - reported as a skip by CTest
    print(f"SKIP: h5py/numpy not available ({e})")
    sys.exit(77)

PSCR = None


def run(*args, check_code=None):
    p = subprocess.run([PSCR, *map(str, args)], capture_output=True, text=True, timeout=300)
    if check_code is not None and p.returncode != check_code:
        raise AssertionError(f"pscr {' '.join(map(str, args))}: exit {p.returncode}, expected "
                             f"{check_code}\nstdout:\n{p.stdout}\nstderr:\n{p.stderr}")
    return p


def read_bytes(path):
    with open(path, "rb") as f:
        return f.read()


def apply_operator(factors, c, u):
    """A u through dense Kronecker products, independent of the C++ code (small sizes only)."""
    mats = []
    for a_diag, a_off, m_diag, m_off in factors:
        a = np.diag(a_diag) + np.diag(a_off, 1) + np.diag(a_off, -1)
        m = np.diag(m_diag) + np.diag(m_off, 1) + np.diag(m_off, -1)
        mats.append((a, m))

    def kron(ms):
        out = ms[0]
        for x in ms[1:]:
            out = np.kron(out, x)
        return out

    d = len(mats)
    total = c * kron([m for _, m in mats])
    for s in range(d):
        total = total + kron([mats[e][0] if e == s else mats[e][1] for e in range(d)])
    return (total @ u.reshape(-1)).reshape(u.shape)


class Cli(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.dir = self.tmp.name

    def tearDown(self):
        self.tmp.cleanup()

    def path(self, name):
        return os.path.join(self.dir, name)

    def test_help_everywhere(self):
        for cmd in ([], ["generate"], ["info"], ["solve"], ["residual"]):
            p = run(*cmd, "--help", check_code=0)
            self.assertIn("Usage: pscr", p.stdout)
        self.assertIn("Exit codes", run("--help", check_code=0).stdout)
        run(check_code=2)
        run("frobnicate", check_code=2)
        run("generate", "--n", "x", "-o", self.path("a.h5"), check_code=2)
        run("generate", "--no-such-option", check_code=2)
        run("--version", check_code=0)

    def test_options_checked_before_any_work(self):
        # Options that do not apply to the problem asked for are refused, not ignored.
        a = self.path("a.h5")
        for extra, says in ((["--omega", "5"], "--equation helmholtz"),
                            (["--ppw", "10"], "--equation helmholtz"),
                            (["--equation", "helmholtz", "--screening", "1"], "--equation poisson"),
                            (["--equation", "helmholtz", "--omega", "5", "--ppw", "10"], "give one"),
                            (["--ratio", "5"], "--mesh graded"),
                            (["--mesh", "graded", "--perturbation", "0.1"], "--mesh random")):
            with self.subTest(extra=extra):
                p = run("generate", "-o", a, *extra, check_code=2)
                self.assertIn(says, p.stderr)
                self.assertFalse(os.path.exists(a))
        run("generate", "-o", a, "--dim", 3, "--n", 5, "--mesh", "uniform,graded,random", "--ratio", 4,
            "--perturbation", "0.2", check_code=0)
        # A wave the mesh cannot resolve (under 2 points per wavelength) is written, with a warning.
        for extra in (["--ppw", "1.5"], ["--omega", "200"]):
            with self.subTest(extra=extra):
                h = self.path("h.h5")
                p = run("generate", "-o", h, "--equation", "helmholtz", "--n", 31, *extra, "--force",
                        check_code=0)
                self.assertIn("points per wavelength", p.stderr)
        p = run("generate", "-o", self.path("h.h5"), "--equation", "helmholtz", "--n", 31, "--ppw", 2.5,
                "--force", check_code=0)
        self.assertEqual(p.stderr, "")
        # A bad --tolerance is a usage error before the solve: no output written.
        for bad in ("abc", "-1", "nan", "inf"):
            with self.subTest(tolerance=bad):
                u = self.path("u.h5")
                p = run("solve", a, "-o", u, "--tolerance", bad, check_code=2)
                self.assertIn("--tolerance", p.stderr)
                self.assertFalse(os.path.exists(u))
        run("solve", a, "-o", self.path("u.h5"), "--tolerance", "1e-10", check_code=0)
        # More threads than processors: solved, with a warning; an absurd count is refused.
        more = len(os.sched_getaffinity(0)) + 1
        p = run("solve", a, "-o", self.path("t.h5"), "--backend", "cpu", "--threads", more, check_code=0)
        self.assertIn("more than the", p.stderr)
        run("solve", a, "-o", self.path("t2.h5"), "--threads", "100000", check_code=2)
        run("residual", a, self.path("u.h5"), "--tolerance", "-1", check_code=2)
        run("residual", a, self.path("u.h5"), "--tolerance", "0", check_code=5)

    def test_generate_solve_residual_roundtrip(self):
        for case, (equation, dim, extra) in enumerate((("poisson", 2, ["--mesh", "random", "--n", "17,9"]),
                                     ("helmholtz", 2, ["--n", "15,16", "--ppw", "10"]),
                                     ("poisson", 3, ["--n", "5,4,3", "--bc", "dirichlet:neumann,neumann,dirichlet", "--screening", "1"]),
                                     ("helmholtz", 3, ["--n", "4,5,3", "--nrhs", "2"]),
                                     # Pure Neumann: singular, u* is the mean-zero solution.
                                     ("poisson", 2, ["--n", "9,8", "--mesh", "random", "--bc", "neumann"]),
                                     ("poisson", 3, ["--n", "4,5,3", "--mesh", "graded", "--bc", "neumann", "--nrhs", "2"]))):
            with self.subTest(equation=equation, dim=dim, extra=extra):
                prob, sol = self.path(f"{equation}{dim}-{case}.h5"), self.path(f"{equation}{dim}-{case}-u.h5")
                run("generate", "--equation", equation, "--dim", dim, *extra, "-o", prob, check_code=0)
                info = run("info", prob, check_code=0).stdout
                self.assertIn("problem file", info)
                # The file is plain HDF5: h5py reads it and our Kronecker product agrees with f = A u*.
                with h5py.File(prob, "r") as f:
                    self.assertEqual(int(f.attrs["format_version"]), 1)
                    factors = [(f[f"A{k}_diag"][...], f[f"A{k}_off"][...], f[f"M{k}_diag"][...], f[f"M{k}_off"][...])
                               for k in range(1, dim + 1)]
                    c = f["c"][()]
                    rhs, uex = f["f"][...], f["u_exact"][...]
                grids_f = rhs.reshape(-1, *rhs.shape[-dim:])
                grids_u = uex.reshape(-1, *uex.shape[-dim:])
                for gf, gu in zip(grids_f, grids_u):
                    np.testing.assert_allclose(apply_operator(factors, c, gu), gf, rtol=1e-12, atol=1e-12)
                out = run("solve", prob, "-o", sol, "--backend", "cpu", "--tolerance", "1e-9", check_code=0).stdout
                self.assertIn("residual", out)
                with h5py.File(sol, "r") as s:
                    u = s["u"][...]
                    self.assertEqual(u.shape, rhs.shape)
                    self.assertEqual(s.attrs["backend"].decode() if isinstance(s.attrs["backend"], bytes) else s.attrs["backend"], "cpu")
                    self.assertTrue(np.all(s["residual"][...] < 1e-9))
                np.testing.assert_allclose(u, uex, rtol=0, atol=1e-8 * np.abs(uex).max())
                run("residual", prob, sol, "--tolerance", "1e-9", check_code=0)
                self.assertIn("solution file", run("info", sol, check_code=0).stdout)

    def test_problem_written_by_h5py(self):
        n1, n2 = 7, 5
        rng = np.random.default_rng(3)
        prob, sol = self.path("h5py.h5"), self.path("h5py-u.h5")
        with h5py.File(prob, "w") as f:
            f.attrs["format_version"] = 1
            for k, n in ((1, n1), (2, n2)):
                f[f"A{k}_diag"] = 2.0 + rng.random(n) + 0.5j * rng.random(n)
                f[f"A{k}_off"] = -np.ones(n - 1, dtype=complex)
                f[f"M{k}_diag"] = 1.0 + rng.random(n)
                f[f"M{k}_off"] = 0.1 * rng.random(n - 1)
            f["c"] = 0.5
            f["f"] = rng.random((n1, n2))
        run("solve", prob, "-o", sol, check_code=0)
        with h5py.File(prob, "r") as f, h5py.File(sol, "r") as s:
            factors = [(f[f"A{k}_diag"][...], f[f"A{k}_off"][...], f[f"M{k}_diag"][...], f[f"M{k}_off"][...])
                       for k in (1, 2)]
            u = s["u"][...]
            self.assertTrue(np.iscomplexobj(u))
            r = apply_operator(factors, f["c"][()], u) - f["f"][...]
            self.assertLess(np.linalg.norm(r) / np.linalg.norm(f["f"][...]), 1e-12)

    def test_bad_input_and_no_overwrite(self):
        missing = self.path("missing.h5")
        p = run("solve", missing, "-o", self.path("u.h5"), check_code=3)
        self.assertIn("missing.h5", p.stderr)
        bad = self.path("bad.h5")
        with h5py.File(bad, "w") as f:
            f.attrs["format_version"] = 1
            f["A1_diag"] = np.ones(3)
        p = run("info", bad, check_code=3)
        self.assertIn("A1_off", p.stderr)
        prob = self.path("p.h5")
        run("generate", "-o", prob, "--n", "4", check_code=0)
        before = read_bytes(prob)
        p = run("generate", "-o", prob, "--n", "5", check_code=4)
        self.assertIn("--force", p.stderr)
        self.assertEqual(before, read_bytes(prob))
        sol = self.path("u.h5")
        run("solve", prob, "-o", sol, check_code=0)
        run("solve", prob, "-o", sol, check_code=4)
        run("solve", prob, "-o", sol, "--force", check_code=0)
        self.assertEqual(before, read_bytes(prob), "the input file was modified")
        # An output that names the problem file, by another spelling or through a link, is
        # refused before anything is solved, also with --force.
        link = self.path("link.h5")
        os.symlink(prob, link)
        for same in (prob, os.path.join(self.tmp.name, ".", "p.h5"), link):
            p = run("solve", prob, "-o", same, "--force", check_code=2)
            self.assertIn("is the problem file", p.stderr)
        self.assertEqual(before, read_bytes(prob), "the input file was overwritten")
        self.assertTrue(os.path.islink(link))
        run("generate", "--equation", "poisson", "--bc", "absorbing", "-o", self.path("x.h5"), check_code=3)
        run("solve", prob, "-o", self.path("v.h5"), "--backend", "quantum", check_code=2)

    @unittest.skipIf(os.environ.get("PSCR_SANITIZED"),
                     "AddressSanitizer reserves more address space than the limit this test sets")
    def test_out_of_memory(self):
        # More memory than the process may have (2 GiB of address space; 512^3 doubles are 1 GiB per
        # array): out of memory, exit code 6, not an internal error, and nothing written.
        big = self.path("big.h5")
        limit = lambda: resource.setrlimit(resource.RLIMIT_AS, (2 << 30, 2 << 30))
        p = subprocess.run([PSCR, "generate", "--dim", "3", "--n", "512", "-o", big], capture_output=True,
                           text=True, timeout=300, preexec_fn=limit)
        self.assertEqual(p.returncode, 6, p.stderr)
        self.assertIn("out of memory", p.stderr)
        self.assertFalse(os.path.exists(big))

    def test_method_option(self):
        prob = self.path("p3.h5")
        run("generate", "--dim", 3, "--n", "7,5,6", "--mesh", "random", "-o", prob, check_code=0)
        out = run("solve", prob, "-o", self.path("u.h5"), "--backend", "cpu", "--method", "pscr",
                  check_code=0).stdout
        self.assertIn("method pscr", out)
        self.assertIn("pscr|fd|auto", run("solve", "--help", check_code=0).stdout)
        p = run("solve", prob, "-o", self.path("v.h5"), "--method", "cholesky", check_code=2)
        self.assertIn("cholesky", p.stderr)
        p = run("solve", prob, "-o", self.path("v.h5"), "--backend", "cpu", "--method", "fd", check_code=2)
        self.assertIn("GPU backend only", p.stderr)
        # FD does its own setup: PSCR's eigen-data are refused before anything is solved.
        eig = self.path("e.h5")
        run("solve", prob, "-o", self.path("w.h5"), "--backend", "cpu", "--eigen-data", eig, check_code=0)
        p = run("solve", prob, "-o", self.path("v.h5"), "--method", "fd", "--eigen-data", eig, check_code=2)
        self.assertIn("--method pscr or auto", p.stderr)
        self.assertFalse(os.path.exists(self.path("v.h5")))
        # --method fd with --backend auto: FD on a GPU, or exit 6 where there is none.
        p = run("solve", prob, "-o", self.path("v.h5"), "--method", "fd", "--tolerance", "1e-10")
        if p.returncode == 0:
            self.assertIn("method fast_diagonalization", p.stdout)
        else:
            self.assertEqual(p.returncode, 6, p.stderr)
            self.assertIn("--method fd", p.stderr)
            self.assertFalse(os.path.exists(self.path("v.h5")))

    def test_eigen_data_file_roundtrip(self):
        for equation, dim, extra in (("poisson", 2, ["--mesh", "random", "--n", "17,9"]),
                                     ("helmholtz", 2, ["--n", "15,16", "--ppw", "10"]),
                                     ("helmholtz", 3, ["--n", "5,7,3", "--nrhs", "2"])):
            with self.subTest(equation=equation, dim=dim):
                prob, eig = self.path(f"{equation}{dim}.h5"), self.path(f"{equation}{dim}-eig.h5")
                run("generate", "--equation", equation, "--dim", dim, *extra, "-o", prob, check_code=0)
                # First run: computes the eigen-data and writes the file after the solve.
                first = run("solve", prob, "-o", self.path("u1.h5"), "--backend", "cpu", "--threads", "2",
                            "--eigen-data", eig, "--force", check_code=0).stdout
                self.assertIn("eigen-data computed, saved to", first)
                info = run("info", eig, check_code=0).stdout
                self.assertIn("eigen-data file", info)
                with h5py.File(prob, "r") as f:
                    for k in range(1, dim):
                        self.assertIn(f"dimension {k}: n = {f[f'A{k}_diag'].shape[0]}, radix 4", info)
                with h5py.File(eig, "r") as f:
                    self.assertEqual(int(f.attrs["dimensions"]), dim - 1)
                saved = read_bytes(eig)
                # Second run: loads them, the same solution bit for bit, the file left as it was.
                second = run("solve", prob, "-o", self.path("u2.h5"), "--backend", "cpu", "--threads", "2",
                             "--eigen-data", eig, "--force", check_code=0).stdout
                self.assertIn("eigen-data loaded from", second)
                self.assertEqual(saved, read_bytes(eig))
                with h5py.File(self.path("u1.h5"), "r") as a, h5py.File(self.path("u2.h5"), "r") as b:
                    np.testing.assert_array_equal(a["u"][...], b["u"][...])
        # A file for another problem (same sizes, other mesh): refused as bad input, not replaced.
        other = self.path("other.h5")
        run("generate", "--dim", 2, "--mesh", "random", "--n", "17,9", "--seed", "2", "-o", other, check_code=0)
        eig = self.path("poisson2-eig.h5")
        saved = read_bytes(eig)
        p = run("solve", other, "-o", self.path("u3.h5"), "--backend", "cpu", "--eigen-data", eig, check_code=3)
        self.assertIn("poisson2-eig.h5", p.stderr)
        self.assertFalse(os.path.exists(self.path("u3.h5")))
        self.assertEqual(saved, read_bytes(eig))
        # Other sizes, and a file that is not an eigen-data file: bad input too.
        small = self.path("small.h5")
        run("generate", "--dim", 2, "--n", "9,9", "-o", small, check_code=0)
        run("solve", small, "-o", self.path("u4.h5"), "--backend", "cpu", "--eigen-data", eig, check_code=3)
        run("solve", small, "-o", self.path("u5.h5"), "--backend", "cpu", "--eigen-data", other, check_code=3)
        # The eigen-data file cannot be written (no such directory): checked before the solve.
        run("solve", small, "-o", self.path("u6.h5"), "--backend", "cpu",
            "--eigen-data", self.path("no/such/dir.h5"), check_code=4)
        self.assertFalse(os.path.exists(self.path("u6.h5")))
        # The output cannot be the eigen-data file: one that exists is kept, none is created.
        p = run("solve", small, "-o", eig, "--backend", "cpu", "--eigen-data", eig, "--force", check_code=2)
        self.assertIn("is the --eigen-data file", p.stderr)
        self.assertEqual(saved, read_bytes(eig))
        fresh = self.path("fresh-eig.h5")
        run("solve", small, "-o", fresh, "--backend", "cpu", "--eigen-data", fresh, check_code=2)
        self.assertFalse(os.path.exists(fresh))
        self.assertIn("--eigen-data", run("solve", "--help", check_code=0).stdout)
        run("solve", small, "-o", self.path("u7.h5"), "--eigen-data", "", check_code=2)


if __name__ == "__main__":
    PSCR = os.path.abspath(sys.argv.pop(1))
    unittest.main(verbosity=2)
