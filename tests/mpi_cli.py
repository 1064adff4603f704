"""What the command-line tests of the suites run under mpirun share (collectives_cli_test.py,
strategies_cli_test.py): boundbench under mpirun (oversubscribed, as root where need be, an MPMD
rank with other arguments), boundbench alone, the skip when mpirun is absent, the results file's
validation, and the entry point that takes the binary from the command line.
"""
import os
import shutil
import subprocess
import sys
import unittest

BOUNDBENCH = None  # set by main()
SRC = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
MPIRUN = shutil.which("mpirun")


def mpirun(subcommand, np, *args, timeout=300, mpmd=None):
    """`mpirun -np NP boundbench SUBCOMMAND ARGS`; with `mpmd`, one more rank with those args."""
    cmd = [MPIRUN, "--oversubscribe"]
    if os.geteuid() == 0:
        cmd.append("--allow-run-as-root")
    cmd += ["-np", str(np), BOUNDBENCH, subcommand, *args]
    if mpmd:
        cmd += [":", "-np", "1", BOUNDBENCH, subcommand, *mpmd]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)


def bb(*args, timeout=300):
    return subprocess.run([BOUNDBENCH, *args], capture_output=True, text=True, timeout=timeout)


def needs_mpi(test):
    return unittest.skipUnless(MPIRUN, "mpirun not found (install openmpi-bin: ci/setup.sh)")(test)


def validate(results_path):
    """ci/validate_results.py on a complete results file with at least one benchmark."""
    return subprocess.run([sys.executable, os.path.join(SRC, "ci", "validate_results.py"),
                           results_path, "--require-complete", "--min-benchmarks", "1"],
                          capture_output=True, text=True)


def main():
    """Usage: TEST.py BOUNDBENCH [unittest args...]"""
    global BOUNDBENCH
    BOUNDBENCH = os.path.abspath(sys.argv.pop(1))
    unittest.main(module="__main__")
