"""Intervals of one case's time and of its change between runs (as `boundbench compare`)."""
import math

import numpy as np

from .runs import CHANGE_THRESHOLD, Z95, MAX_PAIR_SAMPLES, _positive


def time_interval(b):
    """The median's distribution-free interval (schema 2), or None."""
    lo, hi = b.get("median_ci_low_s"), b.get("median_ci_high_s")
    if _positive(lo) and _positive(hi) and lo <= b["median_s"] <= hi:
        return lo, hi
    return None


def rate_points(cases, work_of, scale):
    """y = work/median_s/scale per case, with asymmetric error bars from the median's interval."""
    ys, low, high, have = [], [], [], False
    for b in cases:
        work = work_of(b)
        y = work / b["median_s"] / scale
        iv = time_interval(b)
        ys.append(y)
        if iv:
            have = True
            low.append(y - work / iv[1] / scale)
            high.append(work / iv[0] / scale - y)
        else:
            low.append(0.0)
            high.append(0.0)
    return ys, ([low, high] if have else None)


def time_points(cases, scale):
    ys, low, high, have = [], [], [], False
    for b in cases:
        y = b["median_s"] * scale
        iv = time_interval(b)
        ys.append(y)
        low.append(y - iv[0] * scale if iv else 0.0)
        high.append(iv[1] * scale - y if iv else 0.0)
        have = have or iv is not None
    return ys, ([low, high] if have else None)


def thinned(samples):
    """At most MAX_PAIR_SAMPLES evenly spaced order statistics of the samples: ranks
    (i(n-1) + (cap-1)/2) / (cap-1) in integers, as compare's thinned_order_statistics
    (harness/change_interval.cpp); sorted first, so samples_s may be in time order or sorted."""
    s = sorted(samples)
    n, cap = len(s), MAX_PAIR_SAMPLES
    if n <= cap:
        return np.asarray(s, dtype=float)
    return np.asarray([s[(i * (n - 1) + (cap - 1) // 2) // (cap - 1)] for i in range(cap)])


def hodges_lehmann_ratio(base_samples, new_samples):
    """The ratio new/base of typical times and its ~95% interval, as `boundbench compare` computes
    it (harness/change_interval.cpp): the Hodges-Lehmann shift of the log times (median of all N
    pairwise differences log y_j - log x_i) with the Moses interval [D_(k), D_(N+1-k)] (1-based),
    k = floor(N/2 - z sqrt(n1 n2 (n1+n2+1)/12)), at least 1 (Hollander & Wolfe 4.3; normal
    approximation of U), exponentiated. Each side first thinned to 200 order statistics. Returns
    (ratio, low, high), or None below 2 samples a side."""
    x, y = np.log(thinned(base_samples)), np.log(thinned(new_samples))
    m, n = len(x), len(y)
    if m < 2 or n < 2:
        return None
    d = (y[:, None] - x[None, :]).ravel()
    big_n = d.size
    k = max(int(math.floor(big_n / 2 - Z95 * math.sqrt(m * n * (m + n + 1) / 12.0))), 1)
    mid = [(big_n - 1) // 2, big_n // 2]
    idx = sorted(set([k - 1, big_n - k] + mid))
    part = np.partition(d, idx)
    est = 0.5 * (part[mid[0]] + part[mid[1]])
    return math.exp(est), math.exp(part[k - 1]), math.exp(part[big_n - k])


def case_change(base_cases, new_cases):
    """(ratio, low, high, method) of one case's median time, new over base."""
    bs = [s for b in base_cases for s in b.get("samples_s", []) if _positive(s)]
    ns = [s for b in new_cases for s in b.get("samples_s", []) if _positive(s)]
    if len(bs) >= 2 and len(ns) >= 2:
        r = hodges_lehmann_ratio(bs, ns)
        if r:
            return r + ("hodges-lehmann",)
    base, new = base_cases[0], new_cases[0]
    ratio = new["median_s"] / base["median_s"]
    ib, inew = time_interval(base), time_interval(new)
    if ib and inew:  # both medians' intervals: the widest ratio they allow
        return ratio, inew[0] / ib[1], inew[1] / ib[0], "median intervals"
    return ratio, None, None, "no samples"


def classify(low, high, threshold=CHANGE_THRESHOLD):
    if low is None:
        return "no interval"
    if low > 1 + threshold:
        return "slower"
    if high < 1 - threshold:
        return "faster"
    if low >= 1 - threshold and high <= 1 + threshold:
        return "same"
    return "ambiguous"
