#!/usr/bin/env python3
"""Offline replay of `boundbench run`'s stopping rule (issue 27) over a results file's samples in
the order they were taken (`samples_s`, `round_samples_s` for a pairing group's rounds).

For each case (a pairing group's members together: a group stops when every member has) it
replays the rule (harness/stats.cpp): looks at min_samples * 2^(k-1) samples, look k judging the
median's order-statistic interval at confidence 1 - alpha_k (the file's `alpha_spending`: looks
1..K at 1 - share*alpha/K, look K + j at 1 - (1-share)*alpha/(j(j+1)); files without it were taken
under alpha_k = alpha/(k(k+1)); `--spending` replays another); stop when the half-width /
median <= precision (or nvbench's stddev/mean <= max_rel_noise) with min_time_s in, or at the
timeout with min_samples in. Where the recorded samples end before the precision is reached, the
samples needed are extrapolated: the half-width at the last look scaled by sqrt(n/n') and by the
ratio of the looks' normal quantiles (a look later judges at a higher confidence), and the time
by the case's mean sample (a group: its mean round).

Then it predicts, per policy, how many cases end at half-width <= precision and the run's time
(the recorded run's time outside sampling kept as it was):
  recorded    the file as it is;
  timeout=T   every case's timeout T (a sweep point's T/10, >= 0.1 s; a group the members' sum);
  budget=B    the rule as recorded, plus B extra seconds given to the cases that stopped short,
              cheapest first (what a scheduler that knew each case's future could reach: an
              upper bound for any shared-budget rule);
  online      what `run` does with spare seconds (harness/stats.h, on_track_factor): at its
              limit a unit extrapolates from its last look and keeps sampling when it is on track
              to reach the precision within CAP x its limit and the run's spare seconds, first
              come first served, cover it.

usage: replay_stopping.py RUN.json [--precision 0.01] [--budget-s 135] [--spending K,SHARE|legacy]
                          [--cases] [--json OUT]

Everything past the recorded samples is an extrapolation (an estimate), and the replay does not
replay a group's check-driven sampling (its time limit is taken as the group's own), nor the
samples a member took alone after its group's rounds (`pairing.alone`, newer files): a group is
replayed from its rounds, as the rule before members went on alone. A member with its own samples
(`pairing.own_samples`) is replayed from its rounds too; its "recorded" figures are of its own
samples, and the seconds sampled count both."""
import argparse
import json
import math
import statistics
import sys
from collections import defaultdict
from statistics import NormalDist


def binom_half_cdf(n, k):
    if k >= n:
        return 1.0
    if k < 0:
        return 0.0
    # log-space sum of C(n, j) / 2^n for j <= k
    lg = math.lgamma
    terms = [lg(n + 1) - lg(j + 1) - lg(n - j + 1) - n * math.log(2) for j in range(k + 1)]
    m = max(terms)
    return min(1.0, math.exp(m) * sum(math.exp(t - m) for t in terms))


_ranks_cache = {}


def median_ranks(n, conf):
    """1-based (low, high, coverage) as harness/stats.cpp median_interval_ranks."""
    key = (n, round(conf, 12))
    if key in _ranks_cache:
        return _ranks_cache[key]
    tail = (1 - conf) / 2
    lo, hi = 1, (n + 1) // 2
    if binom_half_cdf(n, 0) > tail:
        hi = 1
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if binom_half_cdf(n, mid - 1) <= tail:
            lo = mid
        else:
            hi = mid - 1
    r = (lo, n + 1 - lo, 1 - 2 * binom_half_cdf(n, lo - 1))
    _ranks_cache[key] = r
    return r


def look_index(n, m):
    if n < m:
        return 0
    k, at = 1, m
    while at < n:
        at *= 2
        k += 1
    return k


def seq_conf(k, rule):
    """1 - alpha_k of look k (harness/stats.cpp sequential_confidence) under the rule's spending."""
    k, alpha = max(k, 1), rule["alpha"]
    spending = rule.get("alpha_spending")
    if not spending:  # files written before the spending was recorded
        return 1 - alpha / (k * (k + 1))
    flat, share = spending["flat_looks"], spending["flat_share"]
    if k <= flat:
        return 1 - alpha * share / flat
    j = k - flat
    return 1 - alpha * (1 - share) / (j * (j + 1))


def half_width(samples, conf):
    """(half-width / median, coverage ok) of the median's interval at `conf`."""
    s = sorted(samples)
    n = len(s)
    lo, hi, cov = median_ranks(n, conf)
    med = s[n // 2] if n % 2 else 0.5 * (s[n // 2 - 1] + s[n // 2])
    return (s[hi - 1] - s[lo - 1]) / 2 / med, cov >= conf


def z_of(conf):
    return NormalDist().inv_cdf(1 - (1 - conf) / 2)


def own(e):
    """Whether an entry's samples are its own, taken after its group's rounds."""
    return (e.get("pairing") or {}).get("own_samples") is True


def rounds_of(e):
    """How many samples an entry's order holds when complete: its rounds where its samples are
    its own, else all of them."""
    return e["pairing"]["rounds"] if own(e) else e["samples"]


class Unit:
    """One case sampled alone, or a pairing group's members (rounds aligned)."""

    def __init__(self, name, members, rule):
        self.name = name
        self.members = members  # list of (case name, samples in order, recorded entry)
        self.rule = rule
        self.rounds = min(len(m[1]) for m in members)
        self.complete = all(rounds_of(m[2]) == len(m[1]) for m in members)
        self.round_s = [sum(m[1][r] for m in members) for r in range(self.rounds)]
        # Own samples come after the rounds, which are not among them: both were sampled.
        self.recorded_s = sum(m[2]["mean_s"] * m[2]["samples"] + (sum(m[1]) if own(m[2]) else 0)
                              for m in members)

    def hw_at(self, n):
        conf = seq_conf(look_index(n, self.rule["min_samples"]), self.rule)
        return [half_width(m[1][:n], conf) for m in self.members], conf

    def member_needs(self, precision):
        """Per member, the rounds and seconds (of the unit's rounds) at which its median's
        interval first reaches `precision` at a scheduled look: from the recorded samples where
        they reach it, else extrapolated from the last scheduled look they hold."""
        m0 = self.rule["min_samples"]
        cum = [0.0]
        for x in self.round_s:
            cum.append(cum[-1] + x)
        mean_round = cum[-1] / max(self.rounds, 1)
        out = []
        for _, order, _ in self.members:
            found = None
            look, last = m0, None
            while look <= self.rounds:
                conf = seq_conf(look_index(look, m0), self.rule)
                h, ok = half_width(order[:look], conf)
                last = (look, h, conf)
                if ok and h <= precision and cum[look] >= self.rule["min_time_s"]:
                    found = (look, cum[look])
                    break
                look *= 2
            if found is None and last is not None:
                n, h, conf = last
                z0 = z_of(conf)
                if n < 20:  # [min, max] or nearly: scale the normal approximation instead
                    med = statistics.median(order[:n])
                    mad = statistics.median(abs(x - med) for x in order[:n])
                    h = max(z0 * 1.2533 * 1.4826 * mad / med / math.sqrt(n), 1e-12)
                look = n * 2
                while look < 10_000_000:
                    zk = z_of(seq_conf(look_index(look, m0), self.rule))
                    if h * math.sqrt(n / look) * zk / z0 <= precision:
                        found = (look, cum[-1] + (look - self.rounds) * mean_round)
                        break
                    look *= 2
            out.append(found or (math.inf, math.inf))
        return out, mean_round, cum


def load_units(run, rule):
    by_group = defaultdict(list)
    singles = []
    for e in run["benchmarks"]:
        if e.get("run_type") == "aggregate" or "samples_s" not in e:
            continue
        p = e.get("pairing")
        order = e.get("round_samples_s") or e["samples_s"]
        item = (e["name"], order, e)
        if p:
            by_group[(p["group"], p["run"], e["name"].split("/")[0])].append(item)
        else:
            singles.append(item)
    units = []
    for name, order, e in singles:
        units.append(Unit(name, [(name, order, e)], case_rule(rule, e)))
    for key, items in by_group.items():
        units.append(Unit("/".join(map(str, key)), items, case_rule(rule, items[0][2])))
    return units


def case_rule(rule, e):
    """The rule a case ran under: a sweep point's (StoppingRule::for_sweep_point) when its name
    says it is one (the results do not record it; its limits do: min_samples 5)."""
    r = dict(rule)
    sweep = e.get("sweep_point")
    if sweep is None:
        sweep = any(
            s in e["name"]
            for s in ("-sweep/", "attention/naive/fp32/host/d64/", "attention/tiled/fp32/host/d64/",
                      "precision/gemm/", "precision/summation/")
        )
    if sweep:
        r["min_samples"] = min(r["min_samples"], 5)
        r["min_time_s"] = r["min_time_s"] / 50
        r["timeout_s"] = max(r["timeout_s"] / 10, 0.1)
    r["sweep"] = sweep
    return r


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("run")
    ap.add_argument("--precision", type=float, default=None)
    ap.add_argument("--budget-s", type=float, default=120,
                    help="extra run-wide seconds (default 120, run --spare's default)")
    ap.add_argument("--spending", default=None,
                    help="replay under another alpha spending: K,SHARE (looks 1..K at share*alpha/K) "
                         "or legacy (alpha/(k(k+1)))")
    ap.add_argument("--cases", action="store_true", help="print every case short of precision")
    ap.add_argument("--json", help="write the per-case table here")
    a = ap.parse_args()
    run = json.load(open(a.run))
    rule = dict(run["context"]["boundbench"]["options"]["stopping_rule"])
    if a.precision:
        rule["precision"] = a.precision
    if a.spending == "legacy":
        rule.pop("alpha_spending", None)
    elif a.spending:
        try:
            k, share = a.spending.split(",")
            k, share = int(k), float(share)
        except ValueError:
            sys.exit(f"replay_stopping.py: --spending {a.spending!r}: expected K,SHARE or legacy")
        if k < 1 or not 0 < share < 1:
            sys.exit(f"replay_stopping.py: --spending {a.spending!r}: K >= 1 and 0 < SHARE < 1")
        rule["alpha_spending"] = {"flat_looks": k, "flat_share": share}
    prec = rule["precision"]
    units = load_units(run, rule)
    cases = sum(len(u.members) for u in units)
    recorded_ok = sum(
        1 for u in units for m in u.members
        if (m[2]["median_ci_high_s"] - m[2]["median_ci_low_s"]) / 2 / m[2]["median_s"] <= prec
    )
    sampled_s = sum(u.recorded_s for u in units)
    total_s = run["context"]["boundbench"].get("elapsed_s")
    print(f"{a.run}: {cases} cases in {len(units)} sampling units; sampled {sampled_s:.1f} s")
    print(f"recorded: {recorded_ok}/{cases} = {100 * recorded_ok / cases:.1f}% at half-width <= "
          f"{100 * prec:g}%")

    table = []
    for u in units:
        needs, mean_round, cum = u.member_needs(prec)
        m0 = u.rule["min_samples"]
        table.append({"unit": u.name, "u": u, "members": [m[0] for m in u.members],
                      "sweep": u.rule["sweep"], "needs_s": [n[1] for n in needs],
                      "min_s": cum[min(m0, u.rounds)] if u.rounds else 0.0,
                      "recorded_s": cum[-1], "mean_round_s": mean_round})

    def unit_limit(r, timeout):
        t = timeout if not r["sweep"] else max(timeout / 10, 0.1)
        return t * len(r["members"])

    def outcome(r, limit_s):
        """(seconds sampled, members at precision) when the unit samples up to limit_s."""
        need = max(r["needs_s"])
        stop = need if need <= limit_s else max(limit_s, r["min_s"])
        return stop, sum(1 for x in r["needs_s"] if x <= stop)

    def policy(timeout, budget=0.0):
        """(members at precision, sampling seconds): every unit up to its limit at `timeout`, then
        `budget` seconds given to the units short of it, cheapest per member first (an oracle)."""
        spent, ok, extras = 0.0, 0, []
        for r in table:
            L = unit_limit(r, timeout)
            t, k = outcome(r, L)
            need = max(r["needs_s"])
            if need > L and need < math.inf:
                extras.append(((need - t) / max(1, len(r["members"]) - k), need - t,
                               len(r["members"]) - k))
            spent += t
            ok += k
        extra = 0.0
        for _, cost, gain in sorted(extras):
            if extra + cost <= budget:
                extra += cost
                ok += gain
        return ok, spent + extra

    ok, t = policy(rule["timeout_s"])
    print(f"replay, recorded rule (timeout {rule['timeout_s']:g} s): {ok}/{cases} = "
          f"{100 * ok / cases:.1f}%; sampling {t:.1f} s")
    for T in (10, 15, 30, 60):
        ok, t = policy(T)
        print(f"timeout={T:>3} s: {ok}/{cases} = {100 * ok / cases:.1f}% (extrapolated); "
              f"sampling {t:.1f} s")
    budget = a.budget_s
    for b in (budget, 2 * budget, 4 * budget):
        ok, t = policy(rule["timeout_s"], b)
        print(f"budget={b:.0f} s shared, cheapest first (oracle): {ok}/{cases} = "
              f"{100 * ok / cases:.1f}%; sampling {t:.1f} s")
    # The online rule (run --spare): at a unit's limit, the extrapolation says how long it needs;
    # it keeps sampling when that is within its check limit (max(limit, CAP_S)) and the run's
    # spare seconds (first come, first served, in run order) still cover it. What it then spends
    # is the replayed need where the samples show it, else the extrapolation.
    for cap_s in (5, 10, 15):
        for pool in (budget / 2, budget, 2 * budget):
            left, ok, spent = pool, 0, 0.0
            for r in table:
                L = unit_limit(r, rule["timeout_s"])
                t, k = outcome(r, L)
                need = max(r["needs_s"])
                cap = max(L, cap_s) / L
                if need > t and need <= cap * L and need - t <= left:
                    left -= need - t
                    t, k = need, len(r["members"])
                spent += t
                ok += k
            print(f"online: on track within max(limit, {cap_s} s), {pool:.0f} s spare: {ok}/{cases} = "
                  f"{100 * ok / cases:.1f}%; sampling {spent:.1f} s")
    need95 = math.ceil(0.95 * cases)
    base_ok, base_t = policy(rule["timeout_s"])
    lo, hi = 0.0, 1e6
    for _ in range(60):  # the least oracle budget that reaches 95%
        mid = (lo + hi) / 2
        if policy(rule["timeout_s"], mid)[0] >= need95:
            hi = mid
        else:
            lo = mid
    print(f"95% is {need95} cases: the oracle needs {hi:.0f} s of extra sampling for it "
          f"(extrapolated)" if hi < 1e6 else f"95% is {need95} cases: not reached by any budget")
    if a.cases:
        print(f"\n{'unit (members short at timeout)':64} {'short':>5} {'need_s':>8} {'limit':>6}")
        rows = []
        for r in table:
            L = unit_limit(r, rule["timeout_s"])
            short = sum(1 for x in r["needs_s"] if x > outcome(r, L)[0])
            if short:
                rows.append((max(r["needs_s"]), r["unit"], short, L))
        for need, name, short, L in sorted(rows):
            print(f"{name[:64]:64} {short:5d} {need:8.1f} {L:6.1f}")
    if a.json:
        json.dump([{k: v for k, v in r.items() if k != "u"} for r in table], open(a.json, "w"),
                  indent=1, default=str)


def limit_of(r, T, rule):
    t = T if not r["sweep"] else max(T / 10, 0.1)
    return t * r["members"]


if __name__ == "__main__":
    sys.exit(main())
