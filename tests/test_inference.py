"""The statistics of samsim.inference against textbook values and independent computations, and
simulation checks of what the theory promises (coverage, false-positive rate)."""

import math

import numpy as np
import pytest
from scipy import stats

from samsim import inference

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
                                                 "rate (equivalence test)")
    open_ = inference.paired_difference(rng.normal(0, 0.3, 20), 0.005)
    assert inference.verdict(open_, "A", "B").startswith("undecided: A − B = ")


def test_games_for_half_width_is_the_normal_sample_size_formula():
    # sd 0.3, +-0.01 at 95%: (1.959964 * 0.3 / 0.01)^2 = 3457.3 -> 3458
    assert inference.games_for_half_width(0.3, 0.01) == 3458


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


def test_bradley_terry_recovers_known_strengths():
    """Head-to-head results drawn from strengths (0.6, 0, -0.6), four meetings per pair and
    group: the estimates are close, ordered, and their 99% bootstrap intervals hold the truth."""
    rng = np.random.default_rng(6)
    truth = np.array([0.6, 0.0, -0.6])
    groups = 2000
    wins = np.zeros((groups, 3, 3))
    for i, j in ((0, 1), (0, 2), (1, 2)):
        ahead = rng.binomial(4, 1 / (1 + np.exp(truth[j] - truth[i])), groups)
        wins[:, i, j], wins[:, j, i] = ahead, 4 - ahead
    est, low, high = inference.bradley_terry(wins, rng, resamples=200, confidence=0.99)
    assert np.all(np.diff(est) < 0)
    assert np.all(np.abs(est - truth) < 0.08)
    assert np.all((low <= truth) & (truth <= high)), (low, est, high)


# --------------------------------------------------------------------------------------- seats


def test_equal_chances_is_the_textbook_chi_square():
    # (18, 22, 20, 40) against 25 each: chi2 = (49 + 9 + 25 + 225) / 25 = 12.32, 3 df
    assert inference.equal_chances([18, 22, 20, 40]) == pytest.approx(stats.chi2.sf(12.32, 3))
    assert stats.chi2.sf(12.32, 3) == pytest.approx(0.006363, abs=1e-6)


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


def test_chunk_check_passes_homogeneous_chunks_and_flags_a_bad_one():
    rng = np.random.default_rng(8)
    shares = np.array([0.3, 0.25, 0.25, 0.2])
    table = np.array([rng.multinomial(5000, shares) for _ in range(20)])
    good = inference.chunk_consistency(table)
    assert good.p_value > 0.001 and good.flagged == []
    table[13] = rng.multinomial(5000, [0.2, 0.25, 0.25, 0.3])  # e.g. seats seeded wrongly
    bad = inference.chunk_consistency(table)
    assert bad.p_value < 1e-6 and bad.flagged == [13]
    assert "13" in bad.summary() and "consistent" in good.summary()
