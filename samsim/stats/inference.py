"""The statistics behind ``samsim compare`` and ``samsim balance``: intervals, tests, stopping rules.

Each function takes plain arrays (one value per duplicate group, or counts) and leaves the
arithmetic to scipy and statsmodels; what is written here is the choice of method:

* differences between two strategies are paired: one value per duplicate group (one deal, every
  seating), so the t interval and test on those values are exact up to the normal approximation,
  whatever the correlation between the games of a group;
* "no difference" is claimed only by an equivalence test (two one-sided tests, TOST), never by a
  large p-value;
* sequential stopping uses the generalised SPRT of chess engine testing on the group values, and
  reports an interval that stays valid at any stopping time (a confidence sequence), since the
  fixed-sample interval is too narrow after an optional stop;
* several pairs: simultaneous intervals (Bonferroni), and verdicts from the same adjusted test,
  so that no verdict contradicts its interval; Holm for families reported as p-values alone;
* seats: simultaneous multinomial intervals (Goodman) and a chi-square test of equal chances;
* chunks: a test of equal means over independent units flags a chunk whose results disagree
  with the rest (a seeding or batching bug shows up there first).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy import stats

#: The smallest p-value worth printing: below it a float's tail is rounding, not evidence.
P_FLOOR = 1e-300


def format_p(p: float, label: str = "") -> str:
    """A p-value as text: two significant digits, ``< 1e-300`` where the computation underflows
    (never ``0``), and empty where there is none; with a label, ``p=0.03`` or ``p < 1e-300``."""
    if p is None or math.isnan(p):
        return ""
    if p < P_FLOOR:
        return f"{label} < {P_FLOOR:.0e}" if label else f"< {P_FLOOR:.0e}"
    return f"{label}={p:.2g}" if label else f"{p:.2g}"


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
        return (f"no difference larger than ±{fmt(diff.margin)} {unit} between {a} and {b} "
                f"(equivalence test)")
    return (f"undecided: {a} − {b} = {fmt(diff.mean)} ± {fmt(diff.half_width)} {unit}; "
            f"more games would settle it")


def games_needed(sd: float, half_width: float, group_size: int = 1,
                 confidence: float = 0.95) -> int:
    """Games (whole groups of ``group_size``) for a t interval of +-``half_width`` on the mean of
    group values with standard deviation ``sd``: the smallest n with t(n-1) sd / sqrt(n) <= the
    half-width (the t quantile, not z: small samples need more than the normal formula says)."""
    if half_width <= 0 or sd <= 0:
        return 2 * group_size
    q = 1 - (1 - confidence) / 2
    n = max(2, math.ceil((stats.norm.ppf(q) * sd / half_width) ** 2))
    while stats.t.ppf(q, n - 1) * sd / math.sqrt(n) > half_width:  # t > z: a few steps up
        n += 1
    return n * group_size


def variance_reduction(per_game, per_group, group_size: int) -> float:
    """How many times smaller the variance of the estimated difference is with duplicate groups
    than with as many independent games: Var(one game's difference) / (group size x Var(one
    group's mean difference)); NaN where every group ties exactly. Both variances are measured
    on the same games: a game of a group is, on its own, an ordinary game (its deal is random),
    so the spread of single-game differences is the spread independent games would have."""
    v_game = float(np.var(per_game, ddof=1))
    v_group = float(np.var(per_group, ddof=1))
    return v_game / (group_size * v_group) if v_group > 0 else math.nan  # every group tied


# ------------------------------------------------------------------------------ common deals

@dataclass(frozen=True)
class Spread:
    """Do candidates that played the same deals differ? The two-way analysis of variance of
    their results (deals x candidates, one game each, no interaction term): the deal's luck
    is a row effect and drops out, so only the game-to-game noise left after it blurs the
    candidates' ranking."""

    f: float  # mean square of the candidates over the residual one (1 in expectation if alike)
    p_value: float  # of F(k-1, (n-1)(k-1)); NaN where no game differed from its deal's others
    noise: float  # residual variance of one game's result, the deal's share removed
    gain: float  # Var(difference) of independent games over that on common deals (>1: CRN paid)
    deals: int
    candidates: int


def common_deals_spread(values) -> Spread:
    """``values``: float[deals, candidates], one game of each candidate on each deal."""
    v = np.asarray(values, dtype=float)
    n, k = v.shape
    if n < 2 or k < 2:
        raise ValueError("common_deals_spread needs two deals and two candidates at least")
    rows = v.mean(axis=1, keepdims=True)
    cols = v.mean(axis=0, keepdims=True)
    residual = v - rows - cols + v.mean()
    dof = (n - 1) * (k - 1)
    noise = float((residual ** 2).sum() / dof)
    between = float(n * ((cols - v.mean()) ** 2).sum() / (k - 1))
    independent = float(2 * v.var(axis=0, ddof=1).mean())  # Var(x_i - x_j) for unrelated games
    if noise > 0:
        f = between / noise
        p = float(stats.f.sf(f, k - 1, dof))
        gain = independent / (2 * noise)  # on one deal, Var(x_i - x_j) = 2 noise
    else:
        f, p, gain = (math.inf if between > 0 else math.nan), math.nan, math.inf
    return Spread(f, p, noise, gain, n, k)


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

def bonferroni(p_values) -> np.ndarray:
    """Bonferroni-adjusted p-values: the test that goes with simultaneous intervals at
    1 - alpha / m, so that a verdict and its interval never disagree."""
    p = np.asarray(p_values, dtype=float)
    return np.minimum(1.0, p * len(p))


def holm(p_values) -> np.ndarray:
    """Holm-adjusted p-values (family-wise error over all the pairs)."""
    from statsmodels.stats.multitest import multipletests

    p = np.asarray(p_values, dtype=float)
    return multipletests(p, method="holm")[1] if len(p) else p


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


def equal_chances_power(players: int, games: int, points: float, alpha: float = 0.05) -> float:
    """The chance that ``equal_chances`` rejects at ``alpha`` in ``games`` games when one seat wins
    ``points`` of win rate more than 1/N and the others share the loss evenly: the noncentral
    chi-square with N - 1 degrees of freedom and noncentrality games * N * sum of squared
    deviations (tests/test_inference.py checks it against simulated games). What a p above
    alpha is worth: with low power, no rejection is no evidence of fairness."""
    d = points / 100
    deviations = np.array([d] + [-d / (players - 1)] * (players - 1))
    noncentrality = games * players * float((deviations ** 2).sum())
    df = players - 1
    return float(stats.ncx2.sf(stats.chi2.isf(alpha, df), df, noncentrality))


# ------------------------------------------------------------------------------------ chunks

@dataclass(frozen=True)
class ChunkCheck:
    p_value: float  # equal means in every chunk
    flagged: list[int]  # chunks apart from the rest at p < alpha / chunks, farthest first
    chunk_p: np.ndarray
    alpha: float

    @property
    def rejected(self) -> bool:
        return self.p_value < self.alpha

    def summary(self) -> str:
        rule = f"MANOVA over independent units, inconsistent below p={self.alpha:g}"
        if self.rejected:
            named = (f" (farthest from the rest first: {', '.join(map(str, self.flagged[:5]))})"
                     if self.flagged else "")
            return (f"chunks inconsistent with each other{named}: {format_p(self.p_value, 'p')} "
                    f"({rule}); a seeding or batching fault would show so")
        return f"chunks consistent with each other: {format_p(self.p_value, 'p')} ({rule})"


class ChunkStats:
    """Per chunk: independent units (games, or duplicate groups), and the sum and sum of outer
    products of their result vectors (win credit per seat, or per strategy): all that the check
    needs, added chunk by chunk in the memory of one."""

    def __init__(self):
        self.n, self.total, self.cross = [], [], []

    def add(self, values) -> None:
        """One chunk's units: ``values[unit, category]``."""
        v = np.asarray(values, dtype=float)
        if len(v):
            self.n.append(len(v))
            self.total.append(v.sum(axis=0))
            self.cross.append(v.T @ v)

    def extend(self, other: "ChunkStats") -> None:
        """Another tally's chunks of the same run."""
        self.n += other.n
        self.total += other.total
        self.cross += other.cross

    def check(self, alpha: float = 0.001) -> "ChunkCheck":
        return chunk_consistency(self.n, self.total, self.cross, alpha)


def chunk_consistency(n, total, cross, alpha: float = 0.001) -> ChunkCheck:
    """Do the chunks of one run agree? ``n[c]`` units in chunk c, ``total[c]`` the sum of their
    result vectors, ``cross[c]`` the sum of their outer products.

    A one-way MANOVA of the units' result vectors on their chunk (Pillai's trace, the most
    robust of its statistics, with its F approximation: statsmodels), so that few units per
    chunk are no reason for a false alarm. It works at the level of the independent unit: games
    of a duplicate group share a deal, so counting their wins as independent draws (a
    chi-square on counts) rejects a correct run. A chunk is named when its Wald distance from the
    other chunks together has p < alpha / chunks."""
    from statsmodels.multivariate.multivariate_ols import multivariate_stats

    n = np.asarray(n, dtype=float)
    chunks, units = len(n), n.sum()
    if chunks < 2 or units - chunks < 1:
        return ChunkCheck(1.0, [], np.ones(chunks), alpha)
    total, cross = np.asarray(total, dtype=float), np.asarray(cross, dtype=float)
    means = total / n[:, None]
    gap = means - total.sum(axis=0) / units
    between = np.einsum("c,ci,cj->ij", n, gap, gap)
    within = cross.sum(axis=0) - np.einsum("c,ci,cj->ij", n, means, means)
    # the result vectors may add up to a constant (one win per game): keep the dimensions
    # they actually vary in
    values, vectors = np.linalg.eigh(within + between)
    keep = vectors[:, values > 1e-10 * max(values.max(), 1e-300)]
    if keep.shape[1] == 0:
        return ChunkCheck(1.0, [], np.ones(chunks), alpha)
    e, h = keep.T @ within @ keep, keep.T @ between @ keep
    eigen = np.real(np.linalg.eigvals(np.linalg.solve(e + h, h)))
    table = multivariate_stats(eigen, keep.shape[1], chunks - 1, units - chunks)
    p = float(table.loc["Pillai's trace", "Pr > F"])
    inverse = np.linalg.pinv(keep.T @ within @ keep / (units - chunks))
    rest = (total.sum(axis=0) - total) / np.maximum(units - n, 1)[:, None]  # the other chunks
    apart = (means - rest) @ keep
    distance = np.einsum("ci,ij,cj->c", apart, inverse, apart) / (1 / n + 1 / np.maximum(
        units - n, 1))
    chunk_p = stats.chi2.sf(distance, keep.shape[1])
    flagged = [int(i) for i in np.argsort(-distance, kind="stable") if chunk_p[i] < alpha / chunks]
    return ChunkCheck(p, flagged, chunk_p, alpha)


__all__ = ["P_FLOOR", "format_p", "Difference", "paired_difference", "verdict", "games_needed",
           "variance_reduction", "SPRT", "confidence_sequence", "holm", "bonferroni",
           "multinomial_intervals", "equal_chances", "equal_chances_power", "ChunkCheck", "ChunkStats",
           "chunk_consistency"]
