"""The statistics behind ``samsim compare`` and ``samsim balance``: intervals, tests, stopping rules.

Each function takes plain arrays (one value per duplicate group, or counts) and leaves the
arithmetic to scipy, statsmodels and choix; what is written here is the choice of method:

* differences between two strategies are paired: one value per duplicate group (one deal, every
  seating), so the t interval and test on those values are exact up to the normal approximation,
  whatever the correlation between the games of a group;
* "no difference" is claimed only by an equivalence test (two one-sided tests, TOST), never by a
  large p-value;
* sequential stopping uses the generalised SPRT of chess engine testing on the group values, and
  reports an interval that stays valid at any stopping time (a confidence sequence), since the
  fixed-sample interval is too narrow after an optional stop;
* several pairs: Holm's step-down correction; a ranking: Bradley-Terry strengths from the pairwise
  finishing order, with intervals from a bootstrap over duplicate groups;
* seats: simultaneous multinomial intervals (Goodman) and a chi-square test of equal chances;
* chunks: a chi-square test of homogeneity flags a chunk whose results disagree with the rest
  (a seeding or batching bug shows up there first).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy import stats


#: The smallest p-value worth printing: below it a float's tail is rounding, not evidence.
P_FLOOR = 1e-300


def format_p(p: float) -> str:
    """A p-value as text: two significant digits, ``< 1e-300`` where the computation underflows
    (never ``0``), and empty where there is none."""
    if p is None or math.isnan(p):
        return ""
    return f"< {P_FLOOR:.0e}" if p < P_FLOOR else f"{p:.2g}"


@dataclass(frozen=True)
class Difference:
    """The mean of paired differences (one per duplicate group), with its tests."""

    mean: float
    low: float  # 95% interval (or the confidence asked for)
    high: float
    sd: float  # of the group differences
    n: int  # groups
    p_value: float  # two-sided t test of mean 0
    p_equivalent: float  # TOST: the mean lies within +-margin
    margin: float

    @property
    def half_width(self) -> float:
        return (self.high - self.low) / 2

    @property
    def effect_size(self) -> float:
        """Standardised mean difference of the groups (Cohen's d_z)."""
        return self.mean / self.sd if self.sd > 0 else 0.0


def paired_difference(d, margin: float, confidence: float = 0.95) -> Difference:
    """Mean of the group differences ``d``, its t interval, the t test of zero and the TOST
    equivalence test for the margin +-``margin``."""
    from statsmodels.stats.weightstats import DescrStatsW

    d = np.asarray(d, dtype=float)
    n = len(d)
    if n < 2:
        raise ValueError("a paired difference needs at least 2 groups")
    mean, sd = float(d.mean()), float(d.std(ddof=1))
    if sd == 0:  # identical groups: the interval is the point, and equivalence is exact
        inside = abs(mean) < margin
        return Difference(mean, mean, mean, 0.0, n, 1.0 if mean == 0 else 0.0,
                          0.0 if inside else 1.0, margin)
    low, high = stats.t.interval(confidence, n - 1, loc=mean, scale=sd / math.sqrt(n))
    p = float(stats.ttest_1samp(d, 0.0).pvalue)
    p_eq = float(DescrStatsW(d).ttost_mean(-margin, margin)[0])
    return Difference(mean, float(low), float(high), sd, n, p, p_eq, margin)


def verdict(diff: Difference, a: str, b: str, scale: float = 100.0,
            unit: str = "points of win rate", alpha: float = 0.05) -> str:
    """The plain sentence a user reads first: the effect and its interval, not the p-value."""
    def fmt(x):
        return f"{x * scale:.1f}" if abs(x * scale) >= 0.1 or x == 0 else f"{x * scale:.2g}"

    if diff.low > 0 or diff.high < 0:
        winner, loser = (a, b) if diff.mean > 0 else (b, a)
        return f"{winner} beats {loser} by {fmt(abs(diff.mean))} ± {fmt(diff.half_width)} {unit}"
    if diff.p_equivalent < alpha:
        return f"no difference larger than ±{fmt(diff.margin)} {unit} (equivalence test)"
    return (f"undecided: {a} − {b} = {fmt(diff.mean)} ± {fmt(diff.half_width)} {unit}; "
            f"more games would settle it")


def games_for_half_width(sd: float, half_width: float, confidence: float = 0.95) -> int:
    """Groups needed for a t interval of the given half-width at this spread (normal approx)."""
    z = stats.norm.ppf(0.5 + confidence / 2)
    return math.ceil((z * sd / half_width) ** 2) if half_width > 0 else 0


def variance_reduction(per_game, per_group, group_size: int) -> float:
    """How many times smaller the variance of the estimated difference is with duplicate groups
    than with as many independent games: Var(one game's difference) / (group size x Var(one
    group's mean difference)). Both variances are measured on the same games: a game of a group
    is, on its own, an ordinary game (its deal is random), so the spread of single-game
    differences is the spread independent games would have."""
    v_game = float(np.var(per_game, ddof=1))
    v_group = float(np.var(per_group, ddof=1))
    return v_game / (group_size * v_group) if v_group > 0 else math.inf


# --------------------------------------------------------------------------------- sequential

@dataclass(frozen=True)
class SPRT:
    """Generalised sequential probability ratio test on group values (H0: mean <= theta0 against
    H1: mean >= theta1), as in chess engine testing: the log-likelihood ratio of two normal
    models, each with its variance estimated under its own hypothesis, against Wald's bounds."""

    theta0: float = 0.0
    theta1: float = 0.01
    alpha: float = 0.05
    beta: float = 0.05

    @property
    def upper(self) -> float:
        return math.log((1 - self.beta) / self.alpha)

    @property
    def lower(self) -> float:
        return math.log(self.beta / (1 - self.alpha))

    def llr(self, d) -> float:
        d = np.asarray(d, dtype=float)
        s0 = float(np.sum((d - self.theta0) ** 2))
        s1 = float(np.sum((d - self.theta1) ** 2))
        if s0 == 0 or s1 == 0:
            return math.inf if s1 == 0 else -math.inf
        return len(d) / 2 * math.log(s0 / s1)

    def decide(self, d) -> str | None:
        """"H1", "H0", or None to go on."""
        value = self.llr(d)
        if value >= self.upper:
            return "H1"
        if value <= self.lower:
            return "H0"
        return None


def confidence_sequence(d, alpha: float = 0.05, rho_groups: int = 100) -> tuple[float, float]:
    """An interval for the mean of ``d`` valid at any stopping time (so after a sequential test):
    Robbins' two-sided normal mixture boundary, |S_n - n mu| <= sqrt((V + rho) log((V + rho) /
    (rho alpha^2))) with V = n sigma^2 (Howard, Ramdas, McAuliffe, Sekhon 2021, eq. 3.7), sigma
    estimated from the data. ``rho_groups`` tunes where it is tightest (about that many groups)."""
    d = np.asarray(d, dtype=float)
    n = len(d)
    var = float(np.var(d, ddof=1)) if n > 1 else 0.0
    v, rho = n * var, max(rho_groups * var, 1e-12)
    half = math.sqrt((v + rho) * math.log((v + rho) / (rho * alpha ** 2))) / n
    mean = float(d.mean())
    return mean - half, mean + half


# ------------------------------------------------------------------------------- many pairs

def holm(p_values) -> np.ndarray:
    """Holm-adjusted p-values (family-wise error over all the pairs)."""
    from statsmodels.stats.multitest import multipletests

    p = np.asarray(p_values, dtype=float)
    return multipletests(p, method="holm")[1] if len(p) else p


def bradley_terry(wins, rng: np.random.Generator, resamples: int = 200,
                  confidence: float = 0.95) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Bradley-Terry strengths (log-odds scale, mean 0) from ``wins[group, i, j]`` = games of the
    group in which i finished ahead of j; returns (strength, low, high), the interval from a
    bootstrap over groups (the games of a group share a deal, so groups are the independent
    units)."""
    import choix

    wins = np.asarray(wins, dtype=float)
    k = wins.shape[1]

    def fit(total):
        params = choix.ilsr_pairwise_dense(total + 1e-9, alpha=1e-3)
        return params - params.mean()

    estimate = fit(wins.sum(axis=0))
    draws = np.empty((resamples, k))
    for b in range(resamples):
        draws[b] = fit(wins[rng.integers(0, len(wins), len(wins))].sum(axis=0))
    tail = (1 - confidence) / 2 * 100
    low, high = np.percentile(draws, [tail, 100 - tail], axis=0)
    return estimate, low, high


# ------------------------------------------------------------------------------------- seats

def multinomial_intervals(counts, alpha: float = 0.05) -> np.ndarray:
    """Simultaneous intervals for the shares of ``counts`` (Goodman 1965): all hold together
    with probability 1 - alpha. Rows: (low, high) per category."""
    from statsmodels.stats.proportion import multinomial_proportions_confint

    return multinomial_proportions_confint(np.asarray(counts, dtype=float), alpha=alpha,
                                           method="goodman")


def equal_chances(counts) -> float:
    """p-value of the chi-square test that every category has the same chance."""
    return float(stats.chisquare(np.asarray(counts, dtype=float)).pvalue)


# ------------------------------------------------------------------------------------ chunks

@dataclass(frozen=True)
class ChunkCheck:
    p_value: float  # homogeneity of all chunks
    flagged: list[int]  # chunks whose own contribution is significant after Bonferroni
    chunk_p: np.ndarray

    def summary(self) -> str:
        if self.flagged:
            return (f"chunks inconsistent with the rest: {', '.join(map(str, self.flagged))} "
                    f"(chi-square p={self.p_value:.2g}): check the seeding")
        return f"chunks consistent with each other (chi-square p={self.p_value:.2g})"


def chunk_consistency(table, alpha: float = 0.001) -> ChunkCheck:
    """``table[chunk, category]``: results of each chunk (wins per strategy or seat). Chi-square
    test of homogeneity; a chunk is flagged when its own chi-square contribution (categories - 1
    degrees of freedom) has p < alpha / chunks."""
    table = np.asarray(table, dtype=float)
    keep = table.sum(axis=0) > 0
    table = table[:, keep]
    if table.shape[0] < 2 or table.shape[1] < 2:
        return ChunkCheck(1.0, [], np.ones(table.shape[0]))
    result = stats.chi2_contingency(table, correction=False)
    contribution = ((table - result.expected_freq) ** 2 / result.expected_freq).sum(axis=1)
    chunk_p = stats.chi2.sf(contribution, table.shape[1] - 1)
    flagged = [int(i) for i in np.flatnonzero(chunk_p < alpha / table.shape[0])]
    return ChunkCheck(float(result.pvalue), flagged, chunk_p)


__all__ = ["P_FLOOR", "format_p", "Difference", "paired_difference", "verdict", "games_for_half_width",
           "variance_reduction", "SPRT", "confidence_sequence", "holm", "bradley_terry",
           "multinomial_intervals", "equal_chances", "ChunkCheck", "chunk_consistency"]
