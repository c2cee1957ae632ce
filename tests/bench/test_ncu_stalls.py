#!/usr/bin/python3
"""Tests of bench/ncu_stalls.py (the summary of Nsight Compute's source page) on a tiny synthetic
CSV of two sections in ncu's layout: --list names each section with its samples; a section's
summary gives the stall reasons' shares, the opcodes' shares (predicates skipped, modifiers
dropped), the top instructions in order with their largest stall reasons, and the regions; a file
that is not ncu's source page, a section without the sample columns, and --kernel out of range
exit 1 with a message; bad arguments exit 2.

Run by CTest as: python3 test_ncu_stalls.py PATH_TO_ncu_stalls.py
"""
from script_test import ScriptTest, main

HEADER = ('"Address","Source","Warp Stall Sampling (All Samples)",'
          '"Warp Stall Sampling (Not-issued Samples)","# Samples","Instructions Executed",'
          '"stall_long_sb","stall_wait","stall_long_sb (Not Issued)"')


def instruction(address, sass, samples, executed, long_sb, wait):
    return (f'"{address}","{sass}","{samples}","{samples}","{samples}","{executed}",'
            f'"{long_sb}","{wait}","{long_sb}"')


SECTION_A = ['"Kernel Name","void finish<8>(Args)",', HEADER,
             instruction("0x10", "      LDG.E.128 R4, desc[UR4][R2.64]", 2, 100, 0, 2),
             instruction("0x20", "      DFMA R6, R8, R4, RZ", 60, 100, 57, 3),
             instruction("0x30", "@!P0  DFMA R6, R8, R10, R6", 30, 100, 20, 10),
             instruction("0x40", "      SHFL.UP PT, R12, R6, 0x1, RZ", 8, 1000, 0, 8)]
SECTION_B = ['"Kernel Name","void condense<8>(Args)",', HEADER,
             instruction("0x10", "      DMUL R2, R4, R6", 5, 10, 5, 0)]


class NcuStallsTest(ScriptTest):
    def source(self, lines):
        """An ncu source-page CSV of `lines`."""
        return self.write("source.csv", lines)

    def test_list_names_every_section(self):
        r = self.run_script(self.source(SECTION_A + SECTION_B), "--list")
        self.assertEqual(r.returncode, 0, r.stderr)
        lines = r.stdout.splitlines()
        self.assertEqual(len(lines), 2)
        self.assertRegex(lines[0], r"^\s*0\s+100 samples\s+4 instructions\s+void finish<8>")
        self.assertRegex(lines[1], r"^\s*1\s+5 samples\s+1 instructions\s+void condense<8>")

    def test_summary_of_a_section(self):
        r = self.run_script(self.source(SECTION_A + SECTION_B), "--kernel", "0", "--top", "2",
                            "--regions", "2")
        self.assertEqual(r.returncode, 0, r.stderr)
        out = r.stdout
        self.assertIn("4 instructions, 100 stall samples, 1300 executed", out)
        # Stall reasons over their own total (77 long_sb + 23 wait).
        self.assertRegex(out, r"long_sb\s+77\.0%")
        self.assertRegex(out, r"wait\s+23\.0%")
        # Opcodes: the predicated DFMA counts as DFMA; LDG.E.128 as LDG.
        self.assertRegex(out, r"DFMA\s+90\.0%\s+15\.4%")
        self.assertRegex(out, r"SHFL\s+8\.0%\s+76\.9%")
        self.assertRegex(out, r"LDG\s+2\.0%\s+7\.7%")
        top = out[out.index("top 2 instructions:"):].splitlines()[1:3]
        self.assertRegex(top[0], r"^\s+1\s+60\.00% ex=\s+100 DFMA R6, R8, R4, RZ\s+"
                                 r"long_sb=95% wait=5%")
        self.assertRegex(top[1], r"^\s+2\s+30\.00% ex=\s+100 @!P0 DFMA")
        self.assertRegex(out, r"0-\s+2\s+62\.0% ex=\s+200")
        self.assertRegex(out, r"2-\s+4\s+38\.0% ex=\s+1100")

    def test_range_prints_the_instructions(self):
        r = self.run_script(self.source(SECTION_A), "--top", "1", "--range", "3:4")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertRegex(r.stdout.splitlines()[-1], r"^\s+3\s+8\.00% ex=\s+1000 SHFL\.UP")

    def test_bad_input_exits_1(self):
        cases = [
            (["some,other,csv", "1,2,3"], [], "no 'Kernel Name' line"),
            (['"Kernel Name","k",', '"Address","Source"', '"0x10","NOP"'], [],
             "lacks column(s) Warp Stall Sampling (All Samples), Instructions Executed"),
            (SECTION_A, ["--kernel", "1"], "--kernel 1: the file has sections 0..0"),
        ]
        for lines, args, message in cases:
            r = self.run_script(self.source(lines), *args)
            self.assertEqual(r.returncode, 1, (message, r.stdout, r.stderr))
            self.assertIn(message, r.stderr)
        r = self.run_script(self.path("missing.csv"))
        self.assertEqual(r.returncode, 1)
        self.assertIn("cannot read", r.stderr)

    def test_bad_arguments_exit_2(self):
        path = self.source(SECTION_A)
        for args in (["--top", "0"], ["--regions", "x"], ["--range", "5:2"], ["--range", "3"]):
            r = self.run_script(path, *args)
            self.assertEqual(r.returncode, 2, (args, r.stderr))


if __name__ == "__main__":
    main()
