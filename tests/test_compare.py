"""``samsim compare`` on real games: the duplicate design, the numbers it reports, its verdicts,
and the sequential test's false-positive rate (a strategy compared with itself)."""

import math
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from scipy import stats

from samsim import compare, components, engine, inference

DATA = components.load()
SAMSIM = str(Path(sys.executable).parent / "samsim")


def test_a_group_seats_every_placement_or_every_rotation():
    two = compare.design(["greedy", "saver"], 4, "fixed")
    assert two.size == 12 and two.everywhere
    assert sorted(map(tuple, two.arrangements)) == sorted(
        (a, b) for a in range(4) for b in range(4) if a != b)
    assert two.seatings()[0] == ["greedy", "saver", "fixed", "fixed"]
    rot = compare.design(["greedy", "saver"], 4, "fixed", seatings="rotations")
    assert rot.size == 4 and not rot.everywhere
    assert rot.arrangements.tolist() == [[0, 1], [1, 2], [2, 3], [3, 0]]
    many = compare.design(["a", "b", "c"], 6, "fixed")  # 120 placements: rotations instead
    assert many.size == 6 and math.perm(6, 3) > compare.MAX_ARRANGEMENTS
    with pytest.raises(compare.CompareError, match="at least two"):
        compare.design(["greedy"], 4, "fixed")
    with pytest.raises(compare.CompareError, match="do not fit"):
        compare.design(["a", "b", "c", "d", "e"], 4, "fixed")
    with pytest.raises(compare.CompareError, match="seatings"):
        compare.design(["a", "b"], 4, "fixed", seatings="some")


def test_group_scores_are_the_games_played_alone():
    """Each game of a duplicate group is its seating played alone on the group's deal (game id
    = group with one game per deal), and the scores read the compared strategies' seats."""
    plan = compare.design(["undercut", "saver"], 4, "greedy")
    groups = compare.play(plan, 3, 5, seed=11, data=DATA)
    assert groups.share.shape == (2, 12, 2)
    for group in (3, 4):
        for s in (0, 5, 11):
            alone = engine.run_batch(1, 4, 11, group, DATA, strategies=plan.seatings()[s])
            a, b = plan.arrangements[s]
            assert groups.share[group - 3, s].tolist() == [alone.win_credit[0, a],
                                                           alone.win_credit[0, b]]
            assert groups.money[group - 3, s].tolist() == [alone.score[0, a], alone.score[0, b]]


def test_a_strategy_against_itself_ties_every_duplicate_group_exactly():
    """With every placement and one deal per group, each seating has its mirror: a strategy
    compared with itself gets the same share in every group, so the design leaves no noise of
    its own. (This is why the false-positive test below uses fresh deals.)"""
    plan = compare.design(["fixed", "fixed"], 4, "greedy")
    groups = compare.play(plan, 0, 20, seed=3, data=DATA)
    d = groups.share[:, :, 0].mean(axis=1) - groups.share[:, :, 1].mean(axis=1)
    assert np.all(d == 0)
    assert groups.share[:, :, 0].std() > 0  # the games themselves differ


def test_the_variance_ratio_is_about_one_without_shared_deals():
    """With a fresh deal per game the groups are ordinary games, so the measured ratio must be
    1 up to sampling error: a check of the measurement on real games, not only on paper."""
    result = compare.compare(["fixed", "saver"], 4, 36_000, seed=2, field_spec="fixed",
                             duplicate=False)
    assert result.pairs[0].reduction == pytest.approx(1.0, abs=0.15)
    shared = compare.compare(["fixed", "saver"], 4, 36_000, seed=2, field_spec="fixed")
    assert shared.pairs[0].reduction != pytest.approx(1.0, abs=0.15)  # the deal matters


def test_comparison_of_three_reports_pairs_holm_ranking_and_chunks():
    result = compare.compare(["saver", "undercut", "fixed"], 4, 24_000, seed=4)
    pairs = result.pairs_frame()
    assert list(zip(pairs["a"], pairs["b"])) == [("saver", "undercut"), ("saver", "fixed"),
                                                 ("undercut", "fixed")]
    assert (pairs["p_holm"] >= pairs["p_value"] - 1e-15).all()
    assert pairs.loc[0, "verdict"].startswith("undercut beats saver by ")
    assert (pairs["win_low"] <= pairs["win_diff"]).all() and \
        (pairs["win_diff"] <= pairs["win_high"]).all()
    ranking = result.ranking_frame()
    assert ranking["strategy"].iloc[-1] == "saver"
    assert (ranking["low"] <= ranking["strength"]).all()
    assert len(result.chunk_checks) == 1 and result.chunk_checks[0].flagged == []
    assert result.games == 24_000
    # the same seed plays the same games
    again = compare.compare(["saver", "undercut", "fixed"], 4, 24_000, seed=4)
    assert again.pairs_frame()["win_diff"].tolist() == pairs["win_diff"].tolist()


def test_more_strategies_than_seats_play_one_table_per_pair():
    result = compare.compare(["saver", "undercut", "fixed", "greedy"], 3, 6 * 1200, seed=5,
                             field_spec="fixed")
    assert len(result.designs) == 6 and len(result.pairs) == 6
    assert all(len(plan.contestants) == 2 for plan in result.designs)
    assert len(result.ranking_frame()) == 4


def test_sequential_stops_early_when_the_answer_is_clear():
    result = compare.compare(["saver", "undercut"], 4, 400_000, seed=6,
                             sequential=inference.SPRT(), batch_games=2400)
    p = result.pairs[0]
    assert p.decision == "H0"  # saver minus undercut: edge <= 0
    assert result.games < 400_000
    low, high = p.interval
    assert low < p.share.mean < high and high < 0
    assert "does not beat" in result.verdict(p)


@pytest.mark.slow
def test_sequential_false_positive_rate_against_itself_is_at_most_alpha():
    """fixed against fixed (the field fixed too, a fresh deal per game, so the two are
    exchangeable and the true edge is 0): the GSPRT of H0 edge <= 0 against H1 edge >= 1 point
    accepts H1 in at most alpha = 5% of independent runs (binomial test at 1%)."""
    runs = 120
    accepted = 0
    for seed in range(runs):
        result = compare.compare(["fixed", "fixed"], 4, 240_000, seed=1000 + seed,
                                 field_spec="fixed", duplicate=False,
                                 sequential=inference.SPRT(), batch_games=2400)
        decision = result.pairs[0].decision
        assert decision is not None, "undecided within the budget"
        accepted += decision == "H1"
    assert stats.binomtest(accepted, runs, 0.05, alternative="greater").pvalue > 0.01, accepted


def test_the_compare_command_writes_its_report(tmp_path):
    out = tmp_path / "cmp"
    done = subprocess.run([SAMSIM, "compare", "undercut", "saver", "--games", "2400", "--seed",
                           "3", "--out", str(out)], capture_output=True, text=True, timeout=900,
                          cwd=tmp_path, env={**os.environ, "COLUMNS": "100"})
    assert done.returncode == 0, done.stderr
    assert "undercut beats saver by" in done.stdout
    assert "as precise as" in done.stdout and "chunks consistent" in done.stdout
    text = (out / "compare.md").read_text()
    assert "## Verdicts" in text and "seed 3" in text and "sha256" in text
    assert (out / "pairs.png").stat().st_size > 1000
    assert (out / "pairs.csv").read_text().startswith("a,b,groups,win_diff")
