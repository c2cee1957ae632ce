"""What the tests of the bench/ scripts share: the script under test, named on the command line
(`python3 test_NAME.py PATH_TO_SCRIPT [unittest arguments]`), run in a subprocess with the same
interpreter, and a temporary directory per test for the files it reads and writes.
"""
import os
import subprocess
import sys
import tempfile
import unittest

SCRIPT = None  # the script under test: main() sets it from the command line


class ScriptTest(unittest.TestCase):
    """A test case with a temporary directory (self.tmp.name) removed after each test."""

    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.addCleanup(self.tmp.cleanup)

    def path(self, name):
        """Where a file called `name` lives in this test's directory."""
        return os.path.join(self.tmp.name, name)

    def write(self, name, lines):
        """Writes `lines` (one string each) to the file `name`; returns its path."""
        path = self.path(name)
        with open(path, "w") as f:
            f.write("\n".join(lines) + "\n")
        return path

    def run_script(self, *args, timeout=None):
        """Runs the script under test with `args`; stdout and stderr captured as text."""
        return subprocess.run([sys.executable, SCRIPT, *map(str, args)], capture_output=True,
                              text=True, timeout=timeout)


def main(verbosity=1):
    """Takes the script under test from the command line, then runs the calling module's tests."""
    global SCRIPT
    if len(sys.argv) < 2:
        sys.exit(f"usage: {os.path.basename(sys.argv[0])} PATH_TO_SCRIPT [unittest arguments]")
    SCRIPT = os.path.abspath(sys.argv.pop(1))
    unittest.main(module="__main__", verbosity=verbosity)
