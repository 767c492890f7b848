"""The statistics of samsim.stats.inference against textbook values and independent computations, and
simulation checks of what the theory promises (coverage, false-positive rate)."""

import math

import numpy as np
import pytest
from scipy import stats

from samsim.stats import inference

# Student's sleep data (Cushny & Peebles 1905; R's `sleep`): extra hours of sleep, drug 2 minus
# drug 1, for 10 patients. R: t.test(extra ~ group, paired = TRUE) gives t = -4.0621, df = 9,
# p-value = 0.002833, 95% CI -2.4598858 -0.7001142, mean difference -1.58 (group 1 minus 2).
SLEEP = np.array([1.2, 2.4, 1.3, 1.3, 0.0, 1.0, 1.8, 0.8, 4.6, 1.4])


def test_paired_difference_is_the_textbook_paired_t_test():
    d = inference.paired_difference(SLEEP, margin=0.5)
    assert d.mean == pytest.approx(1.58)
    assert d.low == pytest.approx(0.7001142, abs=1e-6)
    assert d.high == pytest.approx(2.4598858, abs=1e-6)
    assert d.p_value == pytest.approx(0.002833, abs=1e-6)
    assert d.n == 10 and d.effect_size == pytest.approx(1.58 / np.std(SLEEP, ddof=1))


def test_equivalence_is_two_one_sided_tests():
    """TOST p = the larger of the two one-sided t tests against -margin and +margin."""
    rng = np.random.default_rng(1)
    for margin, shift in ((0.5, 0.0), (0.5, 0.3), (0.2, 0.0), (1.0, -0.9)):
        d = rng.normal(shift, 1.0, 400)
        lower = stats.ttest_1samp(d, -margin, alternative="greater").pvalue
        upper = stats.ttest_1samp(d, margin, alternative="less").pvalue
        assert inference.paired_difference(d, margin).p_equivalent == pytest.approx(
            max(lower, upper), rel=1e-9)


def test_verdicts_say_the_effect_or_the_equivalence_or_that_it_is_open():
    beats = inference.paired_difference(np.array([0.03, 0.04, 0.02, 0.05, 0.03, 0.04]), 0.005)
    assert inference.verdict(beats, "A", "B").startswith("A beats B by 3.5 ± ")
    loses = inference.paired_difference(-np.array([0.03, 0.04, 0.02, 0.05, 0.03, 0.04]), 0.005)
    assert inference.verdict(loses, "A", "B").startswith("B beats A by 3.5 ± ")
    rng = np.random.default_rng(2)
    same = inference.paired_difference(rng.normal(0, 0.01, 5000), 0.005)
    assert inference.verdict(same, "A", "B") == ("no difference larger than ±0.5 points of win "
                                                 "rate between A and B (equivalence test)")
    open_ = inference.paired_difference(rng.normal(0, 0.3, 20), 0.005)
    assert inference.verdict(open_, "A", "B").startswith("undecided: A − B = ")


def test_games_needed_is_the_t_sample_size_in_whole_groups():
    # the smallest n with t(0.975, n - 1) * 0.3 / sqrt(n) <= 0.01 (the normal formula says 3458)
    n = next(n for n in range(2, 10_000) if stats.t.ppf(0.975, n - 1) * 0.3 / n ** 0.5 <= 0.01)
    assert inference.games_needed(0.3, 0.01) == n > 3458
    assert inference.games_needed(0.3, 0.01, group_size=12) == 12 * n
    small = next(n for n in range(2, 100) if stats.t.ppf(0.975, n - 1) * 1.0 / n ** 0.5 <= 0.5)
    assert inference.games_needed(1.0, 0.5) == small  # where t and z differ most


def test_p_values_print_without_zero_and_bonferroni_caps_at_one():
    assert inference.format_p(0.0) == "< 1e-300" and inference.format_p(3e-301) == "< 1e-300"
    assert inference.format_p(0.01234) == "0.012" and inference.format_p(float("nan")) == ""
    assert inference.bonferroni([0.01, 0.2, 0.5]).tolist() == [0.03, 0.6000000000000001, 1.0]


def test_clustered_rate_is_wilson_for_one_seat_a_game_and_widens_with_clustering():
    from samsim.stats.tally import clustered_rate, wilson_interval

    rng = np.random.default_rng(4)
    wins = rng.random(2000) < 0.3  # one seat a game, binary: Wilson's interval exactly
    n, y = len(wins), wins.sum()
    _, low, high = clustered_rate(n, y, n, y, n, y)
    wl, wh = wilson_interval(y, n)
    assert low == pytest.approx(wl, rel=1e-3) and high == pytest.approx(wh, rel=1e-3)
    # two seats a game that win or lose together: as precise as half the seats
    _, low2, high2 = clustered_rate(n, 2 * y, 2 * n, 4 * y, 4 * n, 4 * y)
    assert (high2 - low2) == pytest.approx(high - low, rel=0.02)


def test_variance_ratio_is_one_for_independent_games_and_counts_correlation():
    """Games without a shared effect: ratio ~1. Games of a group sharing an effect of variance
    tau^2 next to noise sigma^2: the ratio is (tau^2 + sigma^2) / (S tau^2 + sigma^2)."""
    rng = np.random.default_rng(3)
    size, groups = 12, 20000
    games = rng.normal(0, 1, (groups, size))
    assert inference.variance_reduction(games.ravel(), games.mean(axis=1), size) == \
        pytest.approx(1.0, abs=0.03)
    tau, sigma = 0.5, 1.0
    shared = games + rng.normal(0, tau, (groups, 1))
    expected = (tau ** 2 + sigma ** 2) / (size * tau ** 2 + sigma ** 2)
    assert inference.variance_reduction(shared.ravel(), shared.mean(axis=1), size) == \
        pytest.approx(expected, rel=0.05)


# ---------------------------------------------------------------------------------- sequential


def test_gsprt_llr_is_the_normal_likelihood_ratio_with_fitted_variances():
    rng = np.random.default_rng(4)
    d = rng.normal(0.004, 0.2, 300)
    sprt = inference.SPRT(0.0, 0.01)
    s0 = np.sqrt(np.mean((d - 0.0) ** 2))
    s1 = np.sqrt(np.mean((d - 0.01) ** 2))
    direct = stats.norm.logpdf(d, 0.01, s1).sum() - stats.norm.logpdf(d, 0.0, s0).sum()
    assert sprt.llr(d) == pytest.approx(direct, rel=1e-9)
    assert sprt.upper == pytest.approx(math.log(19)) and sprt.lower == pytest.approx(-math.log(19))


def _sequential_runs(mean, runs, rng, sd=0.2, batch=50, most=400):
    """Decisions and stopping-time interval coverage of the SPRT on simulated group values."""
    sprt = inference.SPRT(0.0, 0.01)
    decisions, covered = [], 0
    for _ in range(runs):
        d = np.empty(0)
        decision = None
        while decision is None and len(d) < most * batch:
            d = np.append(d, rng.normal(mean, sd, batch))
            decision = sprt.decide(d)
        decisions.append(decision)
        low, high = inference.confidence_sequence(d, 0.05, rho_groups=batch)
        covered += low <= mean <= high
    return decisions, covered / runs


@pytest.mark.slow
def test_gsprt_error_rates_and_confidence_sequence_coverage_by_simulation():
    """At the boundary of H0 (edge 0) the test accepts H1 at most alpha of the time; at H1's
    edge it accepts H1 at least 1 - beta of the time; the interval reported at the stop covers
    the true edge at least 95% of the time, where the fixed-sample t interval would not."""
    rng = np.random.default_rng(5)
    runs = 400
    null, coverage0 = _sequential_runs(0.0, runs, rng)
    false_positive = null.count("H1")
    assert stats.binomtest(false_positive, runs, 0.05, alternative="greater").pvalue > 0.01, \
        false_positive
    alt, coverage1 = _sequential_runs(0.01, runs, rng)
    assert stats.binomtest(alt.count("H1"), runs, 0.95, alternative="less").pvalue > 0.01
    assert coverage0 >= 0.95 and coverage1 >= 0.95


# ---------------------------------------------------------------------------------- many pairs


def test_holm_matches_the_hand_computed_step_down():
    # sorted 0.005, 0.01, 0.03, 0.04 times 4, 3, 2, 1 = 0.02, 0.03, 0.06, 0.04 -> monotone
    # 0.02, 0.03, 0.06, 0.06, in the input order:
    adjusted = inference.holm([0.01, 0.04, 0.03, 0.005])
    assert adjusted == pytest.approx([0.03, 0.06, 0.06, 0.02])


# --------------------------------------------------------------------------------------- seats


def test_equal_chances_is_the_textbook_chi_square():
    # (18, 22, 20, 40) against 25 each: chi2 = (49 + 9 + 25 + 225) / 25 = 12.32, 3 df
    assert inference.equal_chances([18, 22, 20, 40]) == pytest.approx(stats.chi2.sf(12.32, 3))
    assert stats.chi2.sf(12.32, 3) == pytest.approx(0.006363, abs=1e-6)


@pytest.mark.parametrize("players, games, points", [(4, 2000, 2.0), (6, 3000, 1.5), (3, 500, 4.0)])
def test_equal_chances_power_matches_simulated_games(players, games, points):
    """The stated power is the rejection rate of equal_chances over 2,000 simulated runs with one
    seat ``points`` ahead; and at no advantage it is alpha (the test's false-positive rate)."""
    rng = np.random.default_rng(players * 1000 + games)
    p = np.full(players, (1 - (1 / players + points / 100)) / (players - 1))
    p[0] = 1 / players + points / 100
    runs = rng.multinomial(games, p, size=2000)
    rejected = np.mean([inference.equal_chances(r) < 0.05 for r in runs])
    stated = inference.equal_chances_power(players, games, points)
    assert 0.1 < stated < 0.95, "a case where power is informative"
    assert abs(rejected - stated) < 0.04, (rejected, stated)
    assert inference.equal_chances_power(players, games, 0.0) == pytest.approx(0.05)


@pytest.mark.slow
def test_multinomial_intervals_cover_all_shares_together():
    """Goodman's intervals hold simultaneously: all four cover the true shares in at least 95%
    of samples (up to the simulation's own error)."""
    rng = np.random.default_rng(7)
    truth = np.array([0.28, 0.25, 0.24, 0.23])
    hits = 0
    runs = 1000
    for _ in range(runs):
        ci = inference.multinomial_intervals(rng.multinomial(2000, truth))
        hits += np.all((ci[:, 0] <= truth) & (truth <= ci[:, 1]))
    assert stats.binomtest(hits, runs, 0.95, alternative="less").pvalue > 0.01, hits / runs


# -------------------------------------------------------------------------------------- chunks


def _one_hot(rng, games, shares):
    return np.eye(len(shares))[rng.choice(len(shares), games, p=shares)]


def test_chunk_check_passes_homogeneous_chunks_and_flags_a_bad_one():
    rng = np.random.default_rng(8)
    shares = np.array([0.3, 0.25, 0.25, 0.2])
    chunks = [_one_hot(rng, 5000, shares) for _ in range(20)]
    good = inference.ChunkStats()
    for units in chunks:
        good.add(units)
    good = good.check()
    assert good.p_value > 0.001 and not good.rejected
    chunks[13] = _one_hot(rng, 5000, [0.2, 0.25, 0.25, 0.3])  # e.g. seats seeded wrongly
    bad = inference.ChunkStats()
    for units in chunks:
        bad.add(units)
    bad = bad.check()
    assert bad.p_value < 1e-6 and bad.flagged[0] == 13
    assert "13" in bad.summary() and "consistent" in good.summary()
    assert "below p=0.001" in good.summary()  # the threshold is stated


def test_chunk_check_is_statsmodels_manova_on_the_units():
    """The counts-only computation equals Pillai's trace of a MANOVA fitted to the raw units."""
    import pandas as pd
    from statsmodels.multivariate.manova import MANOVA

    rng = np.random.default_rng(9)
    values = rng.normal(size=(90, 3)) + np.repeat(rng.normal(0, 0.3, (3, 3)), 30, axis=0)
    chunk = np.repeat(np.arange(3), 30)
    check = inference.ChunkStats()
    for c in range(3):
        check.add(values[chunk == c])
    frame = pd.DataFrame(values, columns=["a", "b", "c"]).assign(chunk=chunk.astype(str))
    fit = MANOVA.from_formula("a + b + c ~ chunk", frame).mv_test()
    expected = fit.results["chunk"]["stat"].loc["Pillai's trace", "Pr > F"]
    assert check.check().p_value == pytest.approx(float(expected), rel=1e-8)
