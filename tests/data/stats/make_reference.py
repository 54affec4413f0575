#!/usr/bin/env python3
"""Reference values for tests/unit/test_stats.cpp, computed from the definitions by brute force.

Independent of the C++ code: exact probabilities are Fractions obtained by enumerating every
split of the pooled sample (itertools.combinations) and counting pairs by definition; the
Hodges-Lehmann interval sorts all pairwise differences. Only the standard library is used.

    python3 tests/data/stats/make_reference.py > tests/data/stats/reference.txt
"""
import itertools
import math
import random
from fractions import Fraction

# ---------------------------------------------------------------- definitions

def twice_u(a, b):
    """2U: pairs with b_j > a_i count 2, ties 1 (U counts ties one half)."""
    return sum(2 if y > x else 1 if y == x else 0 for x in a for y in b)


def twice_u_distribution(pooled, m):
    """P(2U = v) over all C(N, m) equally likely choices of the first sample (by enumeration)."""
    counts = {}
    n_total = len(pooled)
    for chosen in itertools.combinations(range(n_total), m):
        chosen_set = set(chosen)
        a = [pooled[i] for i in chosen]
        b = [pooled[i] for i in range(n_total) if i not in chosen_set]
        v = twice_u(a, b)
        counts[v] = counts.get(v, 0) + 1
    total = math.comb(n_total, m)
    return {v: Fraction(c, total) for v, c in counts.items()}


def u_distribution_recurrence(m, n):
    """Classical no-ties counts f(m, n, u) = f(m-1, n, u-n) + f(m, n-1, u), as Fractions.

    Used for samples too large to enumerate; checked against enumeration on small ones below.
    """
    from functools import lru_cache

    @lru_cache(maxsize=None)
    def f(i, j, u):
        if u < 0:
            return 0
        if i == 0 or j == 0:
            return 1 if u == 0 else 0
        return f(i - 1, j, u - j) + f(i, j - 1, u)

    total = math.comb(m + n, m)
    return [Fraction(f(m, n, u), total) for u in range(m * n + 1)]


def exact_p(a, b, dist=None):
    m, n = len(a), len(b)
    mn = m * n
    if dist is None:
        dist = twice_u_distribution(a + b, m)
    observed = abs(twice_u(a, b) - mn)
    return sum((p for v, p in dist.items() if abs(v - mn) >= observed), Fraction(0))


def hl_rank_exact(m, n, alpha, u_dist):
    """Largest k >= 1 with P(U <= k-1) <= alpha/2 (and k <= (mn+1)//2); 0 if none."""
    tail = Fraction(alpha) / 2
    k, cumulative = 0, Fraction(0)
    for u in range((m * n + 1) // 2):
        cumulative += u_dist[u]
        if cumulative > tail:
            break
        k = u + 1
    return k


def continuous_u_distribution_by_enumeration(m, n):
    twice = twice_u_distribution(list(range(m + n)), m)
    return [twice.get(2 * u, Fraction(0)) for u in range(m * n + 1)]


def median_of(values):
    s = sorted(values)
    k = len(s)
    return s[k // 2] if k % 2 else (s[k // 2 - 1] + s[k // 2]) / 2


def hodges_lehmann(a, b, k):
    d = sorted(y - x for x in a for y in b)
    shift = median_of(d)
    if k >= 1:
        return shift, d[k - 1], d[len(d) - k]
    return shift, d[0], d[-1]


def normal_quantile(p):
    lo, hi = -40.0, 40.0
    for _ in range(200):
        mid = (lo + hi) / 2
        if 0.5 * math.erfc(-mid / math.sqrt(2)) < p:
            lo = mid
        else:
            hi = mid
    return (lo + hi) / 2


def tie_sizes(values):
    counts = {}
    for v in values:
        counts[v] = counts.get(v, 0) + 1
    return list(counts.values())


def normal_p_and_rank(a, b, alpha):
    m, n = len(a), len(b)
    total = m + n
    tie_sum = sum(t ** 3 - t for t in tie_sizes(a + b))
    sigma = math.sqrt(m * n / 12 * ((total + 1) - tie_sum / (total * (total - 1))))
    u = twice_u(a, b) / 2
    z = max(abs(u - m * n / 2) - 0.5, 0) / sigma
    p = math.erfc(z / math.sqrt(2))
    k = math.floor(m * n / 2 + 0.5 - normal_quantile(1 - alpha / 2) * sigma)
    k = min(k, (m * n + 1) // 2)
    return p, (k if k >= 1 else 0)


def quantile7(sorted_values, prob):
    h = (len(sorted_values) - 1) * prob
    lo = math.floor(h)
    hi = min(lo + 1, len(sorted_values) - 1)
    return sorted_values[lo] + (h - lo) * (sorted_values[hi] - sorted_values[lo])


def summary(x, confidence):
    s = sorted(x)
    n = len(s)
    med = quantile7(s, 0.5)
    mad = quantile7(sorted(abs(v - med) for v in s), 0.5)
    tail = (1 - Fraction(confidence)) / 2
    l = 0
    while l + 1 <= (n + 1) // 2 and Fraction(sum(math.comb(n, j) for j in range(l + 1)), 2 ** n) <= tail:
        l += 1
    used = max(l, 1)
    level = 1 - 2 * Fraction(sum(math.comb(n, j) for j in range(used)), 2 ** n)
    return (n, med, quantile7(s, 0.25), quantile7(s, 0.75), mad, int(l >= 1),
            s[used - 1], s[n - used], float(level))

# ---------------------------------------------------------------- cases

def fmt(values):
    return " ".join(repr(float(v)) for v in values)


def main():
    rng = random.Random(20240501)
    # Cross-check the two exact methods used here before trusting either.
    for m, n in [(3, 4), (5, 5), (2, 7)]:
        assert continuous_u_distribution_by_enumeration(m, n) == u_distribution_recurrence(m, n)

    print("# generated by make_reference.py; see README.md")
    summaries = {
        "n5_no_ci": [412.1, 409.8, 415.3, 410.0, 411.7],
        "n6": [412.1, 409.8, 415.3, 410.0, 411.7, 408.9],
        "n7_ties": [410.0, 410.0, 411.5, 409.0, 410.0, 420.0, 408.5],
        "n10": [round(rng.gauss(410, 4), 1) for _ in range(10)],
        "n17": [round(rng.gauss(485, 9), 2) for _ in range(17)],
        "n40": [round(rng.lognormvariate(6, 0.05), 2) for _ in range(40)],
    }
    for name, x in summaries.items():
        for conf in (0.95, 0.9):
            print(f"summary {name} | {fmt(x)} | {conf!r} | " + " ".join(repr(v) if isinstance(v, float) else str(v) for v in summary(x, conf)))

    exact_cases = {
        "m3n3_no_ci": ([410.0, 412.0, 409.0], [415.0, 418.0, 414.0], 0.05),
        "m3n3_alpha_0.1": ([410.0, 412.0, 409.0], [415.0, 418.0, 414.0], 0.1),
        "m5n5": ([410.2, 408.7, 411.9, 409.5, 412.4], [413.1, 409.9, 415.0, 416.2, 411.0], 0.05),
        "m4n6": ([1.0, 2.5, 3.1, 4.7], [2.2, 5.0, 6.1, 3.3, 7.4, 5.5], 0.05),
        "m6n6_ties": ([10.0, 11.0, 11.0, 12.0, 13.0, 10.0], [11.0, 12.0, 14.0, 13.0, 15.0, 12.0], 0.05),
        "m5n7_heavy_ties": ([1.0, 1.0, 2.0, 2.0, 2.0], [2.0, 2.0, 3.0, 3.0, 1.0, 3.0, 4.0], 0.05),
        "m8n8_shift": ([round(rng.gauss(410, 3), 1) for _ in range(8)],
                       [round(rng.gauss(485, 3), 1) for _ in range(8)], 0.05),
        "m7n9_alpha_0.01": ([round(rng.gauss(100, 2), 2) for _ in range(7)],
                            [round(rng.gauss(101, 2), 2) for _ in range(9)], 0.01),
        "m1n8": ([5.0], [4.0, 6.0, 7.0, 8.0, 3.0, 9.0, 10.0, 11.0], 0.05),
        "m9n4_reversed_sizes": ([round(rng.uniform(50, 60), 1) for _ in range(9)],
                                [round(rng.uniform(48, 58), 1) for _ in range(4)], 0.05),
        "m10n10_ties": ([float(round(rng.gauss(20, 2))) for _ in range(10)],
                        [float(round(rng.gauss(22, 2))) for _ in range(10)], 0.05),
        "all_equal": ([7.0, 7.0, 7.0, 7.0], [7.0, 7.0, 7.0, 7.0, 7.0], 0.05),
    }
    u_cache = {}
    for name, (a, b, alpha) in exact_cases.items():
        m, n = len(a), len(b)
        key = (min(m, n), max(m, n))
        if key not in u_cache:
            u_cache[key] = continuous_u_distribution_by_enumeration(*key)
        k = hl_rank_exact(m, n, alpha, u_cache[key])
        p = exact_p(a, b)
        shift, lo, hi = hodges_lehmann(a, b, k)
        print(f"compare {name} | {fmt(a)} | {fmt(b)} | {alpha!r} | exact | "
              f"{float(p)!r} {k} {shift!r} {lo!r} {hi!r}")

    # Larger samples without ties: exact p from the classical recurrence (enumeration is too
    # slow), k from the same distribution.
    for name, m, n, mu_b in [("m20n25_recurrence", 20, 25, 103.0), ("m15n15_recurrence", 15, 15, 100.5)]:
        values = set()
        while len(values) < m + n:
            values.add(round(rng.gauss(100, 3), 3))
        values = list(values)
        rng.shuffle(values)
        a = values[:m]
        b = [v + mu_b - 100 for v in values[m:]]
        b = [round(v, 3) for v in b]
        assert len(set(a + b)) == m + n, "recurrence cases must be tie-free"
        dist = u_distribution_recurrence(m, n)
        twice = {2 * u: p for u, p in enumerate(dist)}
        p = exact_p(a, b, twice)
        k = hl_rank_exact(m, n, 0.05, dist)
        shift, lo, hi = hodges_lehmann(a, b, k)
        print(f"compare {name} | {fmt(a)} | {fmt(b)} | 0.05 | exact | "
              f"{float(p)!r} {k} {shift!r} {lo!r} {hi!r}")

    normal_cases = {
        "m30n30_normal": ([round(rng.gauss(410, 5), 1) for _ in range(30)],
                          [round(rng.gauss(414, 5), 1) for _ in range(30)], 0.05),
        "m25n40_normal_ties": ([float(round(rng.gauss(50, 3))) for _ in range(25)],
                               [float(round(rng.gauss(51, 3))) for _ in range(40)], 0.05),
    }
    for name, (a, b, alpha) in normal_cases.items():
        p, k = normal_p_and_rank(a, b, alpha)
        shift, lo, hi = hodges_lehmann(a, b, k)
        print(f"compare {name} | {fmt(a)} | {fmt(b)} | {alpha!r} | normal | "
              f"{p!r} {k} {shift!r} {lo!r} {hi!r}")


if __name__ == "__main__":
    main()
