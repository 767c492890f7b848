"""``samsim compare`` on real games: the duplicate design, the numbers it reports, its verdicts,
and the sequential test's false-positive rate (a strategy compared with itself)."""

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from samsim import components, engine
from samsim.analysis import compare, compare_report
from samsim.runs.simulate import simulate
from samsim.stats import inference

DATA = components.load()
SAMSIM = str(Path(sys.executable).parent / "samsim")


def test_a_group_seats_every_placement_or_the_pool_design():
    two = compare.design(["greedy", "saver"], 4, "fixed")
    assert two.size == 12 and not two.duplicate
    assert sorted(map(tuple, two.arrangements)) == sorted(
        (a, b) for a in range(4) for b in range(4) if a != b)
    assert two.seatings()[0] == ["greedy", "saver", "fixed", "fixed"]
    assert compare.design(["random", "saver", "greedy"], 6, "fixed").size == 120  # never fewer
    more = compare.design(["random", "saver", "greedy", "undercut"], 3, "fixed")  # the pool design
    assert more.size == 24 and (more.arrangements == -1).sum() == 24
    assert all("fixed" not in row for row in more.seatings())
    with pytest.raises(compare.CompareError, match="at least two"):
        compare.design(["greedy"], 4, "fixed")
    with pytest.raises(compare.CompareError, match="compare fewer"):
        compare.design([f"s{k}" for k in range(12)], 6, "fixed")


@pytest.mark.parametrize("duplicate", [True, False])
def test_group_scores_are_the_games_played_alone(duplicate):
    """Each game of a group is its seating played alone (on the group's deal, game id = group
    with one game per deal, or on its own: game id = group x size + seating), and the scores
    read the compared strategies' seats."""
    plan = compare.design(["undercut", "saver"], 4, "greedy", duplicate=duplicate)
    groups = compare.play(plan, 3, 5, seed=11, data=DATA)
    assert groups.share.shape == (2, 12, 2)
    for group in (3, 4):
        for s in (0, 5, 11):
            game = group if duplicate else group * 12 + s
            alone = engine.run_batch(1, 4, 11, game, DATA, strategies=plan.seatings()[s])
            a, b = plan.arrangements[s]
            assert groups.share[group - 3, s].tolist() == [alone.win_credit[0, a],
                                                           alone.win_credit[0, b]]
            assert groups.money[group - 3, s].tolist() == [alone.score[0, a], alone.score[0, b]]


def test_a_strategy_against_itself_ties_every_duplicate_group_exactly():
    """With every placement and one deal per group, each seating has its mirror: a strategy
    compared with itself gets the same share in every group, so the design leaves no noise of
    its own. (This is why the false-positive test below uses fresh deals.)"""
    plan = compare.design(["fixed", "fixed"], 4, "greedy", duplicate=True)
    groups = compare.play(plan, 0, 20, seed=3, data=DATA)
    d = groups.share[:, :, 0].mean(axis=1) - groups.share[:, :, 1].mean(axis=1)
    assert np.all(d == 0)
    assert groups.share[:, :, 0].std() > 0  # the games themselves differ


def test_the_variance_ratio_is_about_one_without_shared_deals():
    """With a fresh deal per game the groups are ordinary games, so the measured ratio must be
    1 up to sampling error: a check of the measurement on real games, not only on paper."""
    result = compare.compare(["fixed", "saver"], 4, 36_000, seed=2, field_spec="fixed")
    assert result.pairs[0].reduction == pytest.approx(1.0, abs=0.15)
    shared = compare.compare(["fixed", "saver"], 4, 36_000, seed=2, field_spec="fixed",
                             duplicate=True)
    assert shared.pairs[0].reduction != pytest.approx(1.0, abs=0.15)  # the deal matters


def test_comparison_of_three_reports_pairs_rates_ranking_and_chunks():
    result = compare.compare(["saver", "undercut", "fixed"], 4, 24_000, seed=4)
    pairs = result.pairs_frame()
    assert list(zip(pairs["a"], pairs["b"])) == [("saver", "undercut"), ("saver", "fixed"),
                                                 ("undercut", "fixed")]
    assert np.allclose(pairs["p_adjusted"], np.minimum(1, 3 * pairs["p_value"]))
    assert result.confidence == pytest.approx(1 - 0.05 / 3)
    assert pairs.loc[0, "verdict"].startswith("undercut beats saver by ")
    assert (pairs["win_low"] <= pairs["win_diff"]).all() and \
        (pairs["win_diff"] <= pairs["win_high"]).all()
    ranking = result.ranking_frame()
    assert ranking["strategy"].iloc[-1] == "saver"
    assert (ranking["low"] <= ranking["strength"]).all()
    assert (ranking["win_low"] <= ranking["win_rate"]).all() and ranking["games"].eq(24_000).all()
    assert result.meetings().loc["saver", "fixed"] == 24_000
    assert not result.chunk_check.rejected
    assert result.games == 24_000
    # the same seed plays the same games
    again = compare.compare(["saver", "undercut", "fixed"], 4, 24_000, seed=4)
    assert again.pairs_frame()["win_diff"].tolist() == pairs["win_diff"].tolist()


def test_more_strategies_than_seats_play_the_pool_design():
    """Four strategies at three seats: every 3-subset in every arrangement, the same population
    as ``simulate --pool``, so compare's win rates are the pool run's, game for game."""
    from samsim.engine.designs import pool_design

    names = ["saver", "undercut", "fixed", "greedy"]
    result = compare.compare(names, 3, 24 * 40, seed=5, field_spec="fixed")
    assert result.design.size == 24 and len(result.pairs) == 6
    assert len(result.ranking_frame()) == 4
    assert (result.meetings().to_numpy()[~np.eye(4, dtype=bool)] == 40 * 12).all()
    df = simulate(24 * 40, 3, 5, DATA, strategies=pool_design(3, names))
    rates = df.groupby("strategy", observed=True)["win_credit"].mean()
    got = result.rates.set_index("strategy")["win_rate"]
    assert np.allclose(got[names], rates[names])
    told = " ".join(result.description()) + compare_report.markdown(result, "", None)
    assert "other seats" not in told  # no seat is left for a field: none is named
    assert told.count("field") == told.count("no field") > 0


def test_a_strategy_against_its_copy_gets_rows_of_its_own():
    """The known null from the command line (``samsim compare greedy greedy``): each copy is
    one row, not four rows of the two crossed, and the meeting table is filled."""
    result = compare.compare(["fixed", "fixed(dearest_first=0)"], 4, 24, seed=1, field_spec="saver")
    assert result.contestants == ["fixed", "fixed #2"]
    ranking = result.ranking_frame()
    assert sorted(ranking["strategy"]) == ["fixed", "fixed #2"]
    assert ranking.set_index("strategy")["win_rate"].to_dict() == \
        result.rates.set_index("strategy")["win_rate"].to_dict()
    assert result.meetings().loc["fixed", "fixed #2"] == 24
    assert "`fixed #2`" in compare_report.markdown(result, "", None)


def test_too_few_groups_give_no_verdict_but_the_games_needed():
    result = compare.compare(["undercut", "saver"], 4, 5, seed=1)
    assert result.games == 24  # two groups, the least that has a spread
    verdict = result.pairs_frame().loc[0, "verdict"]
    assert verdict.startswith("no verdict for undercut vs saver: 2 groups (24 games) played")
    assert f"at least {compare.MIN_GROUPS} groups ({compare.MIN_GROUPS * 12:,} games)" in verdict
    assert "beats" not in verdict and "no difference" not in verdict


def test_sequential_stops_early_when_the_answer_is_clear():
    result = compare.compare(["saver", "undercut"], 4, 400_000, seed=6,
                             sequential=inference.SPRT(), batch_games=2400)
    p = result.pairs[0]
    assert p.decision == "H0"  # saver minus undercut: edge <= 0
    assert result.games < 400_000
    low, high = p.interval
    assert low < p.share.mean < high and high < 0
    assert "does not beat" in result.verdict(p)


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
    assert (out / "pairs.csv").read_text().startswith("a,b,groups,games,win_diff")


def test_a_budget_whose_results_cannot_fit_in_memory_is_refused_before_any_game():
    plan = compare.design(["greedy", "saver"], 4, "fixed")
    with pytest.raises(compare.CompareError, match="GiB of results in memory"):
        compare.games_played(10**14, plan)
