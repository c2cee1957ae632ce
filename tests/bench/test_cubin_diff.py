#!/usr/bin/python3
"""Tests of bench/cubin_diff.py (which kernels two cubins compile differently) on two tiny cubins
compiled here with nvcc (PSCR_NVCC, set by CTest where CUDA is enabled): a kernel alike in both,
one whose code changed, one only in each; the same cubin twice; a file that is not a cubin and a
missing one exit 2, as bad arguments do.

Run by CTest as: PSCR_NVCC=... python3 test_cubin_diff.py PATH_TO_cubin_diff.py
"""
import os
import subprocess

from script_test import ScriptTest, main

KERNELS_A = """
extern "C" __global__ void alike(int* p) { p[threadIdx.x] = 1; }
extern "C" __global__ void changed(int* p) { p[threadIdx.x] = 2; }
extern "C" __global__ void only_in_a(int* p) { p[threadIdx.x] = 3; }
"""
KERNELS_B = """
extern "C" __global__ void alike(int* p) { p[threadIdx.x] = 1; }
extern "C" __global__ void changed(int* p) { p[threadIdx.x] = p[0] + 7; }
extern "C" __global__ void only_in_b(int* p) { p[threadIdx.x] = 4; }
"""


class CubinDiffTest(ScriptTest):
    def setUp(self):
        super().setUp()
        self.assertTrue(os.environ.get("PSCR_NVCC"), "PSCR_NVCC (nvcc's path) is not set")

    def cubin(self, name, source):
        """`source` compiled to the cubin `name` (sm_90, as the project builds)."""
        src = self.write(name + ".cu", [source])
        out = self.path(name + ".cubin")
        subprocess.run([os.environ["PSCR_NVCC"], "-arch=sm_90", "-cubin", src, "-o", out],
                       check=True, capture_output=True)
        return out

    def test_kernels_that_differ_or_are_only_in_one(self):
        a, b = self.cubin("a", KERNELS_A), self.cubin("b", KERNELS_B)
        r = self.run_script(a, b)
        self.assertEqual(r.returncode, 1, r.stderr)
        verdicts = {line.split()[-1]: line[:7].strip() for line in r.stdout.splitlines()[:-1]}
        self.assertEqual(verdicts, {"changed": "differ", "only_in_a": "only A",
                                    "only_in_b": "only B"})
        self.assertIn("1 same, 1 differ, 1 only in A, 1 only in B", r.stdout)
        r = self.run_script("--all", a, b)
        self.assertIn("same", [line[:7].strip() for line in r.stdout.splitlines()
                               if line.endswith(" alike")])

    def test_the_same_cubin_twice(self):
        a = self.cubin("a", KERNELS_A)
        r = self.run_script(a, a)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(r.stdout.strip(), "cubin_diff: 3 same, 0 differ, 0 only in A, 0 only in B")

    def test_bad_files_and_arguments(self):
        a = self.cubin("a", KERNELS_A)
        text = self.write("notes.txt", ["not a cubin"])
        r = self.run_script(a, text)
        self.assertEqual(r.returncode, 2)
        self.assertIn("not a 64-bit little-endian ELF file", r.stderr)
        r = self.run_script(a, self.path("missing.cubin"))
        self.assertEqual(r.returncode, 2)
        self.assertIn("missing.cubin", r.stderr)
        r = self.run_script(a)
        self.assertEqual(r.returncode, 2)
        self.assertIn("usage: cubin_diff.py", r.stderr)


if __name__ == "__main__":
    main()
