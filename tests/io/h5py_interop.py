"""h5py interoperability of the file formats (docs/file-format.md).

Writes problems with plain h5py and numpy (complex as numpy complex128, which h5py stores as the
compound {r, i}), runs the C++ driver (read_problem, y = A f per right-hand side, write_solution,
write_problem, write_eigen_data of dimension 1), reads the driver's files back with h5py and
checks the values against a dense numpy evaluation of the Kronecker operator, the eigen-data's
factor checksum against the numpy formula of docs/file-format.md and its top-level eigenvalues
against numpy.linalg.eigvals.

Usage: python3 h5py_interop.py <path of h5py_interop_driver>
Exit code 77 (CTest SKIP_RETURN_CODE) when h5py or numpy cannot be imported.
"""
import os
import subprocess
import sys
import tempfile

try:
    import h5py
    import numpy as np
except ImportError as exc:  # pragma: no cover - depends on the machine
    print(f"SKIPPED: h5py/numpy are not importable by {sys.executable} ({exc}); "
          "install python3-h5py to run this test")
    sys.exit(77)


def tridiag(diag, off):
    return np.diag(diag) + np.diag(off, 1) + np.diag(off, -1)


def dense_operator(factors, c):
    """A = A1⊗M2 + M1⊗A2 + c M1⊗M2 (2D), or the 3D sum, as a dense matrix."""
    A = [tridiag(a_d, a_o) for a_d, a_o, _, _ in factors]
    M = [tridiag(m_d, m_o) for _, _, m_d, m_o in factors]

    def kron(*ms):
        out = ms[0]
        for m in ms[1:]:
            out = np.kron(out, m)
        return out

    if len(factors) == 2:
        return kron(A[0], M[1]) + kron(M[0], A[1]) + c * kron(M[0], M[1])
    return (kron(A[0], M[1], M[2]) + kron(M[0], A[1], M[2]) + kron(M[0], M[1], A[2])
            + c * kron(M[0], M[1], M[2]))


def random(rng, shape, complex_values):
    x = rng.uniform(-1, 1, shape)
    if complex_values:
        x = x + 1j * rng.uniform(-1, 1, shape)
    return x


def make_case(rng, shape, nrhs, batched, complex_values, float32_mass):
    factors = []
    for n in shape:
        parts = [random(rng, n, complex_values), random(rng, n - 1, complex_values),
                 2.0 + rng.uniform(0, 1, n), rng.uniform(0, 0.2, n - 1)]
        if float32_mass:
            parts[2] = parts[2].astype(np.float32)
        factors.append(parts)
    c = complex(-2.0, 0.5) if complex_values else 3
    op = dense_operator([[np.asarray(p, dtype=np.complex128 if complex_values else np.float64)
                          for p in f] for f in factors], c)
    grid = int(np.prod(shape))
    u_exact = random(rng, (nrhs, grid), complex_values)
    f = (op @ u_exact.T).T
    fshape = (nrhs, *shape) if batched else tuple(shape)
    return factors, c, f.reshape(fshape), u_exact.reshape(fshape), op


def write_problem(path, factors, c, f, u_exact, generator):
    with h5py.File(path, "w") as h:
        h.attrs["format_version"] = 1
        for d, (a_d, a_o, m_d, m_o) in enumerate(factors, start=1):
            h[f"A{d}_diag"], h[f"A{d}_off"] = a_d, a_o
            h[f"M{d}_diag"], h[f"M{d}_off"] = m_d, m_o
        h["c"] = c
        h["f"] = f
        h["u_exact"] = u_exact
        if generator:
            g = h.create_group("generator")
            g.attrs["description"] = "written by h5py_interop.py"
            for d in range(1, len(factors) + 1):
                g[f"h{d}"] = np.linspace(0.1, 0.2, 3 + d)


def factor_checksum(a_diag, a_off, m_diag, m_off, complex_values):
    """FNV-1a 64 of docs/file-format.md (copied from there verbatim but for the dtype choice)."""
    h = 0xcbf29ce484222325
    dtype = np.dtype(np.complex128 if complex_values else np.float64).newbyteorder("<")
    data = np.array(len(a_diag), dtype="<i8").tobytes() + b"".join(
        np.asarray(x, dtype=dtype).tobytes() for x in (a_diag, a_off, m_diag, m_off))
    for byte in data:
        h = ((h ^ byte) * 0x100000001b3) & 0xFFFFFFFFFFFFFFFF
    return h


def check(name, ok, detail=""):
    if not ok:
        raise AssertionError(f"{name}: {detail}")


def run_case(driver, work, label, shape, nrhs, batched, complex_values, float32_mass, generator,
             seed):
    rng = np.random.default_rng(seed)
    factors, c, f, u_exact, op = make_case(rng, shape, nrhs, batched, complex_values,
                                           float32_mass)
    problem = os.path.join(work, f"{label}-problem.h5")
    solution = os.path.join(work, f"{label}-solution.h5")
    copy = os.path.join(work, f"{label}-copy.h5")
    eigen = os.path.join(work, f"{label}-eigen.h5")
    write_problem(problem, factors, c, f, u_exact, generator)
    run = subprocess.run([driver, problem, solution, copy, eigen], capture_output=True, text=True)
    check(label, run.returncode == 0, f"driver failed ({run.returncode}): {run.stderr}")

    dtype = np.complex128 if complex_values else np.float64
    with h5py.File(solution, "r") as s:
        check(label, s.attrs["format"] == "pscr-solution", s.attrs["format"])
        check(label, s.attrs["format_version"] == 1, s.attrs["format_version"])
        check(label, s.attrs["backend"] == "h5py-interop-test", s.attrs["backend"])
        check(label, s.attrs["problem_file"] == problem, s.attrs["problem_file"])
        for key in ("pscr_version", "threads", "init_seconds", "solve_seconds",
                    "transfer_seconds"):
            check(label, key in s.attrs, f"attribute {key} missing")
        u = s["u"][()]
        residual = s["residual"][()]
    check(label, u.dtype == dtype, f"u has dtype {u.dtype}, expected {dtype}")
    check(label, u.shape == f.shape, f"u has shape {u.shape}, expected {f.shape}")
    check(label, residual.dtype == np.float64 and residual.shape == (nrhs,),
          f"residual {residual.dtype} {residual.shape}")
    # f = A u_exact was formed in double precision: the relative residual is rounding level.
    check(label, np.all(residual < 1e-13), f"residuals {residual}")
    flat_f = f.reshape(nrhs, -1)
    expected = (op @ flat_f.T).T.reshape(f.shape)
    scale = np.max(np.abs(expected))
    err = np.max(np.abs(u - expected))
    check(label, err <= 1e-13 * scale, f"max |u - A f| = {err}, scale {scale}")

    with h5py.File(problem, "r") as orig, h5py.File(copy, "r") as back:
        check(label, back.attrs["format"] == "pscr-problem", back.attrs["format"])
        check(label, back.attrs["format_version"] == 1, back.attrs["format_version"])
        for key in orig:
            if key == "generator":
                continue
            a, b = orig[key][()], back[key][()]
            check(label, b.dtype == dtype, f"{key}: dtype {b.dtype}, expected {dtype}")
            check(label, np.array_equal(np.asarray(a, dtype=dtype), b), f"{key} differs")
        check(label, set(back) == set(orig), f"datasets {sorted(back)} vs {sorted(orig)}")
        if generator:
            check(label, back["generator"].attrs["description"]
                  == orig["generator"].attrs["description"], "generator description")
            for d in range(1, len(shape) + 1):
                check(label, np.array_equal(back[f"generator/h{d}"][()],
                                            orig[f"generator/h{d}"][()]), f"h{d}")
    with h5py.File(eigen, "r") as e:
        check(label, e.attrs["format"] == "pscr-eigen-data", e.attrs["format"])
        check(label, e.attrs["scalar"] == ("complex" if complex_values else "real"),
              e.attrs["scalar"])
        g = e["dim1"]
        check(label, g.attrs["n"] == shape[0] and g.attrs["radix"] == 4, dict(g.attrs))
        want = factor_checksum(*factors[0], complex_values)
        check(label, int(g.attrs["factor_checksum"]) == want,
              f"checksum {int(g.attrs['factor_checksum']):#x}, numpy formula {want:#x}")
        # The last level has one block, all of [0, n1): its eigenvalues are the pencil's.
        level_offset, block_entry = g["level_offset"][()], g["block_entry"][()]
        top = block_entry[level_offset[-2]]
        lo = g["lambda_offset"][()]
        lam = g["lambda"][()][lo[top]:lo[top + 1]]
    a1 = tridiag(*(np.asarray(x, dtype=dtype) for x in factors[0][:2]))
    m1 = tridiag(*(np.asarray(x, dtype=dtype) for x in factors[0][2:]))
    ref = np.linalg.eigvals(np.linalg.solve(m1, a1))
    gap = max(np.min(np.abs(lam - r)) for r in ref)
    check(label, len(lam) == shape[0] and gap <= 1e-10 * np.max(np.abs(ref)),
          f"eigenvalues {lam} vs numpy {ref}")
    print(f"ok: {label} shape {shape} nrhs {nrhs} batched {batched} "
          f"{'complex' if complex_values else 'real'}: max |u - A f| = {err:.2e}")


def main():
    driver = sys.argv[1]
    with tempfile.TemporaryDirectory(prefix="pscr-h5py-") as work:
        run_case(driver, work, "complex-2d-batched", (5, 4), 2, True, True, False, True, 1)
        run_case(driver, work, "real-3d", (3, 4, 2), 1, False, False, True, False, 2)
        run_case(driver, work, "real-2d-edge", (1, 3), 1, True, False, False, True, 3)
        run_case(driver, work, "complex-3d", (2, 3, 5), 1, False, True, False, False, 4)
    return 0


if __name__ == "__main__":
    sys.exit(main())
