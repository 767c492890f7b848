"""Plackett-Luce ratings: agreement with choix, recovery of known strengths (full tables, pairs,
ties), and the bootstrap's coverage when the games of a unit are correlated."""

import numpy as np
import pytest

from samsim.stats import ratings
from samsim.stats.ratings import plackett_luce

TRUTH = np.array([0.5, 0.2, 0.0, -0.7])


def finishing_ranks(theta, rng):
    """Plackett-Luce orders by the Gumbel trick: sorting theta + Gumbel noise draws a PL order.
    ``theta`` is [games, k] or [k]; returns ranks (1 = first)."""
    theta = np.atleast_2d(theta)
    utility = theta + rng.gumbel(size=theta.shape)
    return np.argsort(np.argsort(-utility, axis=1), axis=1) + 1.0


def standard_error(r):
    return (r.high - r.low) / (2 * 1.96)


def test_agrees_with_choix():
    choix = pytest.importorskip("choix")
    rng = np.random.default_rng(1)
    ranks = finishing_ranks(np.tile(TRUTH, (500, 1)), rng)
    rankings = [list(np.argsort(row)) for row in ranks]  # contestants, first to last
    r = plackett_luce(ranks, np.arange(len(ranks)), rng, resamples=20)
    # the maximum-likelihood estimate by another algorithm (choix.opt_rankings fits the same
    # penalised objective but loops over games in Python: a minute for these 500)
    expected = choix.ilsr_rankings(4, rankings, alpha=0.0, tol=1e-12)
    np.testing.assert_allclose(r.strength, expected - expected.mean(), atol=1e-4)


def test_recovers_full_tables():
    rng = np.random.default_rng(2)
    ranks = finishing_ranks(np.tile(TRUTH, (20_000, 1)), rng)
    r = plackett_luce(ranks, np.arange(20_000) // 4, rng, resamples=300)
    truth = TRUTH - TRUTH.mean()
    assert abs(r.strength.mean()) < 1e-9
    assert np.all(np.abs(r.strength - truth) < 4 * standard_error(r))
    assert r.units == 5000 and r.resamples == 300 and r.confidence == 0.95
    assert np.all((r.low < r.strength) & (r.strength < r.high))
    # the interval of i - j is the mirror image of j - i, and excludes 0 for these gaps
    np.testing.assert_allclose(r.diff_low, -r.diff_high.T, atol=1e-12)
    assert np.all(np.diag(r.diff_low) == 0) and np.all(np.diag(r.diff_high) == 0)
    assert r.diff_low[0, 1] > 0 and r.diff_low[1, 2] > 0 and r.diff_low[2, 3] > 0


def test_recovers_pair_tables():
    rng = np.random.default_rng(3)
    games = 20_000
    ranks = np.full((games, 4), np.nan)
    seats = np.argsort(rng.random((games, 4)), axis=1)[:, :2]  # two of the four play
    rows = np.arange(games)[:, None]
    ranks[rows, seats] = finishing_ranks(TRUTH[seats], rng)
    r = plackett_luce(ranks, np.arange(games), rng, resamples=300)
    assert np.all(np.abs(r.strength - (TRUTH - TRUTH.mean())) < 4 * standard_error(r))


def test_refuses_contestants_never_compared():
    rng = np.random.default_rng(4)
    ranks = finishing_ranks(np.zeros((100, 4)), rng)
    ranks[:, 3] = np.nan
    with pytest.raises(ValueError, match=r"contestants \[3\] never played"):
        plackett_luce(ranks, np.arange(100), rng, resamples=10)
    ranks[:50, 2:] = np.nan  # 0-1 and 2-3 only: two groups with no common game
    ranks[50:, :2] = np.nan
    ranks[50:, 2:] = finishing_ranks(np.zeros((50, 2)), rng)
    with pytest.raises(ValueError, match="never compared"):
        plackett_luce(ranks, np.arange(100), rng, resamples=10)


def test_ties_are_broken_fairly():
    rng = np.random.default_rng(5)
    games = 4000
    # 0 and 1 always tie with each other; 2 finishes first or last against them
    ranks = np.ones((games, 3))
    first = rng.random(games) < 0.3
    ranks[first, :2] = 2
    ranks[~first, 2] = 3
    r = plackett_luce(ranks, np.arange(games), rng, resamples=300)
    se = standard_error(r)
    assert abs(r.strength[0] - r.strength[1]) < 3 * max(se[0], se[1])
    assert r.diff_low[0, 1] < 0 < r.diff_high[0, 1]
    assert r.strength[2] < r.strength[0]
    r = plackett_luce(np.ones((games, 2)), np.arange(games), rng, resamples=300)  # all tied
    assert abs(r.strength[0]) < 3 * standard_error(r)[0]
    assert r.diff_low[0, 1] < 0 < r.diff_high[0, 1]


def test_frame_and_differences():
    r = ratings.Ratings(np.array([0.0, 0.5, 0.0, -0.5]), np.zeros(4), np.ones(4),
                        -np.ones((4, 4)), np.ones((4, 4)) * np.arange(4), 10, 5, 0.95)
    frame = r.frame(["a", "b", "c", "d"])
    assert list(frame.columns) == ["strategy", "strength", "low", "high"]
    assert list(frame.strategy) == ["b", "a", "c", "d"]  # stable: a before c
    diff = r.differences(["a", "b", "c", "d"])
    assert list(diff.columns) == ["a", "b", "diff", "low", "high"]
    assert list(zip(diff.a, diff.b)) == [("a", "b"), ("a", "c"), ("a", "d"), ("b", "c"),
                                         ("b", "d"), ("c", "d")]
    assert diff["diff"].iloc[0] == -0.5 and diff["high"].iloc[5] == 3


def test_batched_newton_matches_scipy():
    rng = np.random.default_rng(6)
    ranks = finishing_ranks(np.tile(TRUTH, (300, 1)), rng)
    ranks[::3, 1] = np.nan
    stats, member = ratings._statistics(ranks, np.arange(300) // 3, rng)
    counts = rng.poisson(1.0, (5, len(stats))) @ stats
    refit = ratings._refit(counts, member, np.zeros(4))
    handed_on = ratings._refit(counts, member, np.zeros(4), steps=1)  # scipy finishes
    for row, theta, other in zip(counts, refit, handed_on):
        np.testing.assert_allclose(theta, ratings._fit(row, member, np.zeros(4)), atol=1e-6)
        np.testing.assert_allclose(other, theta, atol=1e-6)


def coverage(units, size, seeds, spread):
    """Share of seeds whose 95% interval of strength[0] - strength[1] covers the truth (0: the
    two are exchangeable), resampling units and, naively, games. Each unit shifts 0 and 1 apart
    by +-spread * z for all its games (z ~ N(0, 1)), so the games of a unit are correlated."""
    covered = np.zeros(2)
    theta = np.array([0.2, 0.2, 0.0, -0.4])
    for seed in range(seeds):
        rng = np.random.default_rng(seed)
        shift = spread * rng.standard_normal(units)
        unit = np.repeat(np.arange(units), size)
        ranks = finishing_ranks(theta + np.outer(shift, [1, -1, 0, 0])[unit], rng)
        for column, ids in enumerate([unit, np.arange(len(unit))]):
            r = plackett_luce(ranks, ids, np.random.default_rng(seed), resamples=200)
            covered[column] += r.diff_low[0, 1] <= 0 <= r.diff_high[0, 1]
    return covered / seeds


def test_bootstrap_over_units_keeps_coverage():
    # seeds 0-99 give 0.94 and 0.68; five other blocks of 100 seeds gave 0.94-0.97 and 0.62-0.71
    by_unit, by_game = coverage(units=300, size=6, seeds=100, spread=1.5)
    assert by_unit >= 0.88  # binomial(100, 0.95): sd 0.022
    assert by_game <= 0.80  # resampling games ignores the correlation: intervals too narrow
