#!/usr/bin/env python3
"""Runs GPU tests under GPGPU-Sim, one process per test suite (or per test), and prints test ->
PASS / FAIL / cannot run (why). Called by ci/gpusim.sh with the simulator's environment set
(LD_LIBRARY_PATH, ...).

Each process runs in its own directory (the simulator reads gpgpusim.config from the working
directory and writes its PTX files there) with its log and gtest's XML report. A test passes when
gtest reports it run and passed; it cannot run when it skipped itself with a reason that says so;
anything else (a failure, a crash, a timeout, or "no usable GPU": the simulator did not start) is
a FAIL. Exit 1 if any test FAILs."""
import argparse
import concurrent.futures
import os
import shutil
import subprocess
import sys
import time
import xml.etree.ElementTree as ET


PTXAS_WRAPPER = """#!/usr/bin/env bash
# ptxas, cached by (arguments, PTX): GPGPU-Sim runs `ptxas -v FILE.ptx` on every PTX file of the
# binary at each start-up, for the kernels' register counts (ci/gpusim_run.py).
set -u
real=%(real)s cache=%(cache)s
args=() ptx=""
for a in "$@"; do
  if [[ $a == *.ptx ]]; then ptx=$a args+=(PTX); else args+=("$a"); fi
done
key=$({ printf '%%s\\n' "${args[@]}"; cat "$ptx"; } | sha256sum | cut -c1-40)
if [[ -f $cache/$key ]]; then cat "$cache/$key" >&2; exit 0; fi
out=$(mktemp "$cache/.tmp.XXXXXX")
if "$real" "$@" 2>"$out"; then
  cat "$out" >&2 && mv "$out" "$cache/$key"
else
  rc=$?; cat "$out" >&2; rm -f "$out"; exit "$rc"
fi
"""


def cached_toolkit(work):
    """A copy of $CUDA_INSTALL_PATH (links) whose bin/ptxas caches its answers: the simulator's
    start-up then costs seconds, not tens of seconds, from the second process on."""
    src = os.environ["CUDA_INSTALL_PATH"]
    dest, cache = os.path.join(work, "cuda"), os.path.join(work, "ptxas-cache")
    shutil.rmtree(dest, ignore_errors=True)
    os.makedirs(os.path.join(dest, "bin"))
    os.makedirs(cache, exist_ok=True)
    for name in os.listdir(src):
        if name != "bin":
            os.symlink(os.path.realpath(os.path.join(src, name)), os.path.join(dest, name))
    for name in os.listdir(os.path.join(src, "bin")):
        real = os.path.realpath(os.path.join(src, "bin", name))
        if name == "ptxas":
            path = os.path.join(dest, "bin", "ptxas")
            with open(path, "w") as f:
                f.write(PTXAS_WRAPPER % {"real": real, "cache": cache})
            os.chmod(path, 0o755)
        else:
            os.symlink(real, os.path.join(dest, "bin", name))
    return dest


def run_group(name, tests, args):
    """Runs `tests` in one process (one suite, or one test with --per-test); one result each."""
    work = os.path.join(args.work, name.replace("/", "_"))
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    for f in os.listdir(args.config):
        shutil.copy(os.path.join(args.config, f), work)
    xml = os.path.join(work, "result.xml")
    log = os.path.join(work, "log.txt")
    start = time.monotonic()
    with open(log, "w") as out:
        try:
            proc = subprocess.run(
                [args.binary, "--gtest_filter=" + ":".join(tests), f"--gtest_output=xml:{xml}"],
                cwd=work, stdout=out, stderr=subprocess.STDOUT, timeout=args.timeout)
            code = proc.returncode
        except subprocess.TimeoutExpired:
            code = None
    seconds = time.monotonic() - start
    if code is None:
        return [(t, "FAIL", f"timed out: its process ran past {args.timeout:.0f} s", seconds, log)
                for t in tests]
    cases = {}
    try:
        for case in ET.parse(xml).getroot().iter("testcase"):
            cases[case.get("classname") + "." + case.get("name")] = case
    except (ET.ParseError, FileNotFoundError):
        pass
    # A failing test makes its process exit 1: only a process that failed with no failing test
    # (a crash after the tests, say) fails the tests that passed.
    failed = any(c.find("failure") is not None for c in cases.values())
    return [verdict(t, cases.get(t), 0 if failed and code == 1 else code, log) for t in tests]


def verdict(test, case, code, log):
    if case is None:
        return test, "FAIL", f"no gtest report (exit {code}): {last_line(log)}", 0.0, log
    seconds = float(case.get("time", "0"))
    failure = case.find("failure")
    if failure is not None:
        return test, "FAIL", failure.get("message", "").replace("\n", " ")[:300], seconds, log
    skipped = case.find("skipped")
    if case.get("result") == "skipped" or skipped is not None:
        why = skipped.get("message", "") if skipped is not None else ""
        why = why.split("\n", 1)[-1].strip()  # drop the "file:line" gtest puts first
        if why.startswith("cannot run under the simulator"):
            return test, "cannot run", why, seconds, log
        return test, "FAIL", f"skipped: {why}", seconds, log
    if code != 0:
        why = f"passed, but its process exited {code}: {last_line(log)}"
        return test, "FAIL", why, seconds, log
    return test, "PASS", "", seconds, log


def last_line(path):
    with open(path, errors="replace") as f:
        lines = [line.strip() for line in f if line.strip()]
    return lines[-1][:200] if lines else "(no output)"


def main():
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--binary", required=True)
    p.add_argument("--config", required=True, help="directory holding gpgpusim.config")
    p.add_argument("--work", required=True)
    p.add_argument("--jobs", type=int, default=2)
    p.add_argument("--timeout", type=float, default=600, help="per process")
    p.add_argument("--per-test", action="store_true",
                   help="one process per test (default: one per suite; each pays the start-up)")
    p.add_argument("tests", nargs="+")
    args = p.parse_args()
    start = time.monotonic()
    os.makedirs(args.work, exist_ok=True)
    os.environ["CUDA_INSTALL_PATH"] = cached_toolkit(args.work)
    groups = {}
    for t in args.tests:
        groups.setdefault(t if args.per_test else t.split(".")[0], []).append(t)
    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        futures = [pool.submit(run_group, g, ts, args) for g, ts in groups.items()]
        results = []
        for f in concurrent.futures.as_completed(futures):
            for r in f.result():
                results.append(r)
                print(f"gpusim: {r[1]:<11} {r[0]} ({r[3]:.0f} s)", flush=True)
    results.sort(key=lambda r: args.tests.index(r[0]))
    width = max(len(r[0]) for r in results)
    print(f"\n{'test':<{width}}  result       s  why")
    for test, verdict, why, seconds, _ in results:
        print(f"{test:<{width}}  {verdict:<11} {seconds:4.0f}  {why}")
    counts = {v: sum(r[1] == v for r in results) for v in ("PASS", "FAIL", "cannot run")}
    print(f"\ngpusim: {counts['PASS']} PASS, {counts['FAIL']} FAIL, "
          f"{counts['cannot run']} cannot run, of {len(results)} "
          f"({time.monotonic() - start:.0f} s, {args.jobs} at a time)")
    for test, verdict, _, _, log in results:
        if verdict == "FAIL":
            print(f"\n--- {test}: the end of {log}")
            with open(log, errors="replace") as f:
                sys.stdout.writelines(f.readlines()[-15:])
    return 1 if counts["FAIL"] else 0


if __name__ == "__main__":
    sys.exit(main())
