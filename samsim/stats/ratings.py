"""Plackett-Luce strengths from finishing orders, with a bootstrap over independent units.

Why this model: finishing second of six is worth more than finishing last, which a winner-only
count ignores and an all-pairs count turns into many dependent pairwise results. Plackett-Luce
reads an order as successive choices (the first among all present, then among the rest, ...),
so every place counts and partial tables (pairs) share the likelihood. Ties are broken uniformly
at random: the likelihood keeps its form, and the rule favours no one.

Why counts, not one record per game: choix's fitters take one Python record per game and loop
over them in Python; a thousand bootstrap refits of hundreds of thousands of games would take
hours. The likelihood needs only, per unit, how often each contestant was chosen and how often
each choice set came up, so a refit costs the same whatever the number of games.

Why units: the games of a group share a deal and are correlated; resampling games would treat
them as independent and give intervals that are too narrow. Groups are independent.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy.optimize import minimize

#: Ridge on the negative log-likelihood (choix's ``alpha``): keeps a contestant that never wins
#: (or never loses) a resample finite, and makes the optimum's mean exactly 0.
RIDGE = 1e-6


@dataclass(frozen=True)
class Ratings:
    strength: np.ndarray  # float[k]: Plackett-Luce log-worths, mean 0
    low: np.ndarray  # float[k]: bootstrap percentile interval
    high: np.ndarray
    diff_low: np.ndarray  # float[k, k]: interval of strength[i] - strength[j]
    diff_high: np.ndarray
    resamples: int
    units: int  # independent units resampled
    confidence: float

    def frame(self, names) -> pd.DataFrame:
        """Strongest first; stable, so equal strengths keep the caller's order."""
        order, names = np.argsort(-self.strength, kind="stable"), list(names)
        return pd.DataFrame({"strategy": [names[i] for i in order], "strength": self.strength[
            order], "low": self.low[order], "high": self.high[order]})

    def differences(self, names) -> pd.DataFrame:
        """Pairs need their own intervals: the strengths of a resample move together, so
        overlapping strength intervals say little about the difference."""
        names, (i, j) = list(names), np.triu_indices(len(self.strength), 1)
        return pd.DataFrame({"a": [names[x] for x in i], "b": [names[x] for x in j],
                             "diff": self.strength[i] - self.strength[j],
                             "low": self.diff_low[i, j], "high": self.diff_high[i, j]})


def _statistics(ranks, units, rng):
    """Rows per unit: [times each contestant was chosen | times each choice set came up], and
    the sets as a 0/1 matrix [sets, k]."""
    ranks = np.asarray(ranks, dtype=float)
    k = ranks.shape[1]
    if not 2 <= k <= 62:
        raise ValueError(f"need 2 to 62 contestants (one bit each in a set), got {k}")
    present = ~np.isnan(ranks)
    order = np.lexsort((rng.random(ranks.shape), np.where(present, ranks, np.inf)), axis=1)
    count = present.sum(axis=1)
    bits = np.where(np.arange(k) < count[:, None], np.int64(1) << order, 0)
    suffix = np.cumsum(bits[:, ::-1], axis=1)[:, ::-1]  # who is left to choose from
    ids, unit = np.unique(np.asarray(units), return_inverse=True)
    choice = np.arange(k - 1) < (count - 1)[:, None]  # the last place is no choice
    masks, winner = suffix[:, :-1][choice], order[:, :-1][choice]
    unit = np.broadcast_to(unit[:, None], choice.shape)[choice]
    if k <= 20:  # a table of all sets beats sorting millions of masks
        seen = np.bincount(masks, minlength=1 << k) > 0
        sets, set_index = np.flatnonzero(seen), (np.cumsum(seen) - 1)[masks]
    else:
        sets, set_index = np.unique(masks, return_inverse=True)
    width = k + len(sets)
    cells = np.concatenate([unit * width + winner, unit * width + k + set_index])
    stats = np.bincount(cells, minlength=len(ids) * width).reshape(len(ids), width)
    member = ((sets[:, None] >> np.arange(k)) & 1).astype(float)
    # contestants never compared with each other have no estimable difference: only the ridge
    # would set it, so refuse rather than report an arbitrary number
    if (absent := np.flatnonzero(member.sum(axis=0) == 0)).size:
        raise ValueError(f"contestants {absent.tolist()} never played a game against another "
                         "contestant: their strength cannot be estimated")
    reach = linked = (member.T @ member > 0) | np.eye(k, dtype=bool)
    for _ in range(k):
        reach = reach.astype(float) @ linked > 0
    if not reach.all():
        groups = sorted({tuple(np.flatnonzero(row).tolist()) for row in reach})
        raise ValueError(f"contestants fall into groups never compared with each other: {groups}")
    return stats.astype(float), member


def _terms(theta, counts, member):
    """Penalised negative log-likelihood, gradient, Hessian of every row of a batch at once
    (theta [B, k], counts [B, k + sets]): for k unknowns, Python overhead is the cost."""
    k = member.shape[1]
    chosen, offered = counts[:, :k], counts[:, k:]
    top = theta.max(axis=1, keepdims=True)
    z = np.exp(theta - top)
    s = z @ member.T
    prob = member * (z[:, None, :] / s[:, :, None])  # each contestant's chance in each set
    value = ((offered * (np.log(s) + top)).sum(axis=1) - (chosen * theta).sum(axis=1)
             + RIDGE * (theta * theta).sum(axis=1))
    weighted = prob * offered[:, :, None]
    grad = weighted.sum(axis=1) - chosen + 2 * RIDGE * theta
    hess = ((weighted.sum(axis=1) + 2 * RIDGE)[:, :, None] * np.eye(k)
            - weighted.transpose(0, 2, 1) @ prob)
    return value, grad, hess


def _fit(counts, member, start):
    """Trust-region Newton with the exact Hessian (Newton-CG stops early along the flat
    direction of a contestant held only by the ridge). Divided by the number of choices, the
    tolerance means the same for ten games and ten million."""
    total = counts[:member.shape[1]].sum()

    def part(theta, i):
        return _terms(theta[None], counts[None], member)[i][0] / total

    result = minimize(lambda t: (part(t, 0), part(t, 1)), start, jac=True,
                      hess=lambda t: part(t, 2), method="trust-exact", options={"gtol": 1e-13})
    return result.x - result.x.mean()


def _refit(counts, member, start, steps: int = 100):
    """All resamples at once by Newton steps from the estimate, halving a step that would raise
    the objective: one scipy call per resample costs a millisecond, more than the fit. A row
    stops when its Newton decrement (distance to the optimum per choice) is negligible; a step
    size test would never pass along a ridge-held direction, where steps stay at rounding noise.
    The likelihood ignores a common shift, so the Hessian gets 1 in that direction."""
    k = member.shape[1]
    theta = np.repeat(start[None] - start.mean(), len(counts), axis=0)
    scale = counts[:, :k].sum(axis=1)
    value, grad, hess = _terms(theta, counts, member)
    for _ in range(steps):
        step = np.linalg.solve(hess / scale[:, None, None] + 1 / k,
                               (grad / scale[:, None])[:, :, None])[:, :, 0]
        step -= step.mean(axis=1, keepdims=True)
        if (done := np.abs((step * grad).sum(axis=1)) / scale < 1e-18).all():
            break
        length = np.where(done, 0.0, 1.0)
        for _ in range(60):
            terms = _terms(theta - length[:, None] * step, counts, member)
            if not (worse := terms[0] > value + 1e-12 * np.abs(value)).any():
                break
            length[worse] /= 2
        theta, (value, grad, hess) = theta - length[:, None] * step, terms
    for b in np.flatnonzero(~done):  # not converged in `steps`: let scipy finish
        theta[b] = _fit(counts[b], member, theta[b])
    return theta - theta.mean(axis=1, keepdims=True)


def plackett_luce(ranks, units, rng: np.random.Generator, resamples: int = 1000,
                  confidence: float = 0.95) -> Ratings:
    """ranks: float/int array [games, k]: finishing rank of contestant j in game g (1 = first;
    equal values = tied); NaN where contestant j did not play that game (e.g. pair tables:
    only 2 of the k are present). units: int array [games]: the independent unit (group) of
    each game. Percentile intervals need no normal approximation, which fails for a contestant
    that rarely wins."""
    if not 0 < confidence < 1 or resamples < 1 or len(units) != len(ranks):
        raise ValueError(f"need 0 < confidence < 1 (got {confidence}), resamples >= 1 (got "
                         f"{resamples}) and one unit per game ({len(units)} for {len(ranks)})")
    stats, member = _statistics(ranks, units, rng)
    n, k = len(stats), member.shape[1]
    strength = _fit(stats.sum(axis=0), member, np.zeros(k))
    draws = np.empty((resamples, k))
    batch = max(1, min(resamples, 2**22 // n, 2**22 // member.size))  # bounds the memory
    for first in range(0, resamples, batch):
        size = min(batch, resamples - first)
        picks = rng.integers(0, n, (size, n)) + n * np.arange(size)[:, None]
        weights = np.bincount(picks.ravel(), minlength=size * n).reshape(size, n)
        draws[first:first + size] = _refit(weights.astype(float) @ stats, member, strength)
    tails = [(1 - confidence) / 2 * 100, 100 - (1 - confidence) / 2 * 100]
    low, high = np.percentile(draws, tails, axis=0)
    diff_low, diff_high = np.percentile(draws[:, :, None] - draws[:, None, :], tails, axis=0)
    return Ratings(strength, low, high, diff_low, diff_high, resamples, n, confidence)
