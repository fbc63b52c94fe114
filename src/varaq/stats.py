"""The few statistics the arena reports, written out so the numbers can be checked by hand.

A duplicate arena compares two bots by the *paired* difference of each deal (the same cards
played both ways), so its confidence interval is the one for a mean of paired differences:
Student's t with ``n - 1`` degrees of freedom.  Match win rates get a Wilson interval, which
behaves at 0% and 100% where the plain normal interval does not.  No numpy or scipy: the arena
must run wherever Varaq runs.

>>> m = mean_ci95([10, -20, 30, 0, 40])
>>> m.mean, round(m.low, 2), round(m.high, 2)
(12.0, -17.64, 41.64)
>>> round(t_quantile_975(4), 4)
2.7764
>>> percentile([1, 2, 3, 4], 50)
2.5
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from statistics import NormalDist

__all__ = [
    "MeanInterval", "mean_ci95", "t_quantile_975", "t_two_sided_mass", "percentile",
    "wilson_ci95", "running_ci95", "Z_975",
]

#: The 97.5% point of the standard normal: a two-sided 95% interval is mean ± Z_975 · se.
Z_975 = NormalDist().inv_cdf(0.975)

# Beyond this many degrees of freedom the exact t sum gets long and the first-order expansion
# around the normal is already exact to about 1e-7.
_EXACT_DF_LIMIT = 1000


@dataclass(frozen=True, slots=True)
class MeanInterval:
    """A sample mean with its two-sided 95% confidence interval."""

    mean: float
    low: float
    high: float
    n: int
    #: Standard error of the mean (0 for fewer than two values).
    se: float


def t_two_sided_mass(t: float, df: int) -> float:
    """P(|T| < t) for Student's t with ``df`` degrees of freedom.

    The closed forms of Abramowitz & Stegun 26.7.3 (odd ``df``) and 26.7.4 (even ``df``): a
    finite sum of positive terms in ``cos θ``, with ``θ = atan(t / √df)``, so there is no
    cancellation to lose precision to.
    """
    if df < 1:
        raise ValueError("degrees of freedom must be at least 1")
    if t <= 0:
        return 0.0
    theta = math.atan(t / math.sqrt(df))
    sin, cos2 = math.sin(theta), math.cos(theta) ** 2
    if df % 2 == 0:
        # sin θ · (1 + 1/2 cos²θ + 1·3/(2·4) cos⁴θ + … up to cos^(df-2) θ)
        term, total = 1.0, 1.0
        for k in range(1, df // 2):
            term *= (2 * k - 1) / (2 * k) * cos2
            total += term
        return sin * total
    if df == 1:
        return 2 * theta / math.pi
    # (2/π) · (θ + sin θ · cos θ · (1 + 2/3 cos²θ + 2·4/(3·5) cos⁴θ + … up to cos^(df-3) θ))
    term, total = 1.0, 1.0
    for k in range(1, (df - 1) // 2):
        term *= (2 * k) / (2 * k + 1) * cos2
        total += term
    return 2 / math.pi * (theta + sin * math.sqrt(cos2) * total)


def t_quantile_975(df: int) -> float:
    """The 97.5% point of Student's t: a 95% interval for a mean is mean ± this · se."""
    if df < 1:
        raise ValueError("degrees of freedom must be at least 1")
    if df > _EXACT_DF_LIMIT:
        z = Z_975
        return z + (z**3 + z) / (4 * df)
    low, high = 0.0, 20.0
    while t_two_sided_mass(high, df) < 0.95:
        high *= 2
    for _ in range(80):
        mid = (low + high) / 2
        if t_two_sided_mass(mid, df) < 0.95:
            low = mid
        else:
            high = mid
    return (low + high) / 2


def mean_ci95(values: Sequence[float]) -> MeanInterval:
    """Mean and t-based 95% interval of paired differences (one value per duplicate deal).

    With a single value the interval is that value alone: there is no spread to estimate, and
    an empty interval says so more honestly than an infinite one.
    """
    n = len(values)
    if n == 0:
        raise ValueError("no values to average")
    mean = math.fsum(values) / n
    if n == 1:
        return MeanInterval(mean, mean, mean, 1, 0.0)
    variance = math.fsum((v - mean) ** 2 for v in values) / (n - 1)
    se = math.sqrt(variance / n)
    half = t_quantile_975(n - 1) * se
    return MeanInterval(mean, mean - half, mean + half, n, se)


def percentile(values: Sequence[float], q: float) -> float:
    """The ``q``-th percentile (0-100), interpolating linearly between order statistics."""
    if not values:
        raise ValueError("no values")
    if not 0 <= q <= 100:
        raise ValueError("percentile must be between 0 and 100")
    ordered = sorted(values)
    pos = (len(ordered) - 1) * q / 100
    below = math.floor(pos)
    above = min(below + 1, len(ordered) - 1)
    return ordered[below] + (ordered[above] - ordered[below]) * (pos - below)


def wilson_ci95(successes: int, trials: int) -> tuple[float, float]:
    """Wilson score 95% interval for a proportion (a match win rate); (0, 1) with no trials."""
    if trials <= 0:
        return (0.0, 1.0)
    if not 0 <= successes <= trials:
        raise ValueError("successes must be between 0 and the number of trials")
    z = Z_975
    p = successes / trials
    denom = 1 + z * z / trials
    centre = (p + z * z / (2 * trials)) / denom
    half = z * math.sqrt(p * (1 - p) / trials + z * z / (4 * trials * trials)) / denom
    return (max(0.0, centre - half), min(1.0, centre + half))


def running_ci95(
    values: Sequence[float],
) -> tuple[list[int], list[float], list[float], list[float]]:
    """After each value, the mean so far and its 95% interval: the arena's plot.

    One pass (Welford's update), so a plot of ten thousand deals costs no more than the
    deals' own sum; the interval starts at the second value.
    """
    xs: list[int] = []
    means: list[float] = []
    lows: list[float] = []
    highs: list[float] = []
    mean = 0.0
    squares = 0.0
    for n, value in enumerate(values, 1):
        delta = value - mean
        mean += delta / n
        squares += delta * (value - mean)
        half = t_quantile_975(n - 1) * math.sqrt(squares / (n - 1) / n) if n > 1 else 0.0
        xs.append(n)
        means.append(mean)
        lows.append(mean - half)
        highs.append(mean + half)
    return xs, means, lows, highs
