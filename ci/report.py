#!/usr/bin/python3
"""boundbench report: the hardware comparison of one or more results files.

    report.py RUN.json [RUN.json ...] --out DIR

Writes DIR/report.html (self-contained: images embedded, opens offline), the PNG files beside it and
DIR/report.json (what each figure shows: title, legend entries, runs; and the headline numbers).
Each run is named by its short label: the results file's top-level `label` (`run --label`), else
the file's name without `.json`; that label is on every legend and headline row.

Contents: a headline table per run (DRAM bandwidth = the best STREAM case, cache read bandwidth per
level apart from it, best FLOP/s per precision, checks); the roofline of each device (measured
STREAM slope, datasheet slope where known, compute roof per precision, points named and any point
above its own bound ringed); the memory hierarchy; precision sweeps as error over its bound; other
swept case families (bandwidth or FLOP/s from zero, else time, with the median's 95% interval as
error bars); and, against the first run, a sorted per-case change view with an interval
(Hodges-Lehmann, reportlib/intervals.py).
New suites' cases appear without changes here. Exit 2 with a one-line error on bad input.

The parts live in ci/reportlib/: runs (loading), intervals, headline, drawing, roofline, sweeps,
changes (before/after) and page (HTML and report.json).
"""
import argparse
import os
import sys

from reportlib.intervals import classify, hodges_lehmann_ratio  # noqa: F401 (tests import them)
from reportlib.page import write_report
from reportlib.runs import fail, load, unique_labels


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("runs", nargs="+", metavar="RUN.json")
    ap.add_argument("--out", required=True, metavar="DIR")
    args = ap.parse_args(argv)
    runs = [load(path) for path in args.runs]
    unique_labels(runs)
    try:
        os.makedirs(args.out, exist_ok=True)
    except OSError as e:
        fail(f"{args.out}: cannot create ({e.strerror})")

    try:
        write_report(runs, args.out)
    except (KeyError, TypeError, ValueError, AttributeError, IndexError) as e:
        # A file that passed load() yet holds a field of the wrong type or shape.
        fail(f"malformed results ({type(e).__name__}: {e}) in one of: {', '.join(args.runs)}")
    except OSError as e:
        fail(f"{args.out}: cannot write ({e.strerror})")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
