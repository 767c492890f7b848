"""Calibration: the statistics mean what they say, checked on real games over many seeds.

Known-null setups (a strategy against its own copies, under every design and deal mode; chunks of
one correct run) must give false verdicts, rejections and misses at rates no larger than alpha;
known-effect setups must be found. These are the fast versions, run on every CI run; the ``slow``
ones repeat them with ten times the seeds, at 6 players, and for the sequential test.
"""

import shutil
from pathlib import Path

import numpy as np
import pytest
from scipy import stats

import samsim
from samsim import components
from samsim.analysis import compare
from samsim.engine import designs
from samsim.runs import results
from samsim.stats import inference

DATA = components.load()
LIBRARY = Path(samsim.__file__).resolve().parent.parent / "strategies"


def _at_most(events: int, runs: int, rate: float) -> bool:
    """Is ``events`` in ``runs`` consistent with a true rate of at most ``rate``? (one-sided
    binomial test at 1%, so that a correct method fails this check once in a hundred seeds)"""
    return stats.binomtest(events, runs, rate, alternative="greater").pvalue > 0.01


def _false_verdicts(contestants, players, groups, runs, duplicate=False, field="saver", seed=0):
    games = groups * compare.design(contestants, players, field).size
    false = 0
    for r in range(runs):
        c = compare.compare(contestants, players, games, seed=seed + r, field_spec=field,
                            duplicate=duplicate)
        false += any("beats" in v for v in c.pairs_frame()["verdict"])
    return false


@pytest.mark.parametrize("contestants,players,duplicate", [
    (["fixed", "fixed"], 4, False),
    (["fixed"] * 3, 4, False),
    (["fixed"] * 3, 4, True),
    (["fixed"] * 4, 3, False),  # more than seats: the pool design
])
def test_a_strategy_against_its_copies_is_declared_better_at_most_alpha(contestants, players,
                                                                        duplicate):
    """The rotations design of old put A before B always and made 40 of 40 seeds say "fixed
    beats fixed"; every design now is exchangeable, and verdicts are simultaneous over pairs."""
    runs = 40
    false = _false_verdicts(contestants, players, compare.MIN_GROUPS, runs, duplicate)
    assert _at_most(false, runs, compare.ALPHA), f"{false} of {runs} runs declared a winner"


def test_a_real_difference_is_found_and_its_interval_covers_the_large_run():
    """Known effect: undercut against saver (field greedy). The estimate of a 20x larger run
    stands in for the truth; small runs' simultaneous intervals must cover it and decide."""
    big = compare.compare(["undercut", "saver"], 4, 12 * 2000, seed=99).pairs[0].share.mean
    covered = decided = 0
    runs = 30
    for r in range(runs):
        p = compare.compare(["undercut", "saver"], 4, 12 * 100, seed=r).pairs[0]
        covered += p.share.low <= big <= p.share.high
        decided += p.share.low > 0
    assert _at_most(runs - covered, runs, 0.05 + 0.05), covered  # truth itself is estimated
    assert decided >= runs * 0.8, decided


@pytest.mark.parametrize("duplicate", [False, True])
def test_the_chunk_check_rejects_correct_runs_at_most_alpha(duplicate):
    """Chunks of one correct comparison (duplicate deals too, where the old chi-square on games
    rejected every run) are tested at the level of groups: p-values at most alpha often below
    alpha (checked at alpha = 10% to have power with few runs). Chunks of 60 groups: with a few
    dozen units per chunk the F approximation is a little liberal (11% at 10% with 24)."""
    plan = compare.design(["fixed", "saver"], 4, "fixed", duplicate=duplicate)
    p_values = []
    for seed in range(40):
        groups = compare.play(plan, 0, 300, seed, DATA, chunk_size=12 * 60)
        p_values.append(groups.chunk_check().p_value)
    rejected = int((np.array(p_values) < 0.10).sum())
    assert _at_most(rejected, len(p_values), 0.10), sorted(p_values)[:8]


def test_the_chunk_check_finds_a_chunk_from_another_run():
    plan = compare.design(["fixed", "saver"], 4, "fixed")
    good = compare.play(plan, 0, 300, 1, DATA, chunk_size=12 * 60)
    other = compare.play(compare.design(["saver", "fixed"], 4, "fixed"), 0, 60, 2, DATA)
    assert not good.chunk_check().rejected
    bad = good.extend(other)  # a chunk whose labels are swapped, as a seating fault would do
    check = bad.chunk_check()
    assert check.rejected and check.flagged[0] == 5, check.summary()


def _twin(tmp_path) -> str:
    """A copy of the built-in ``fixed`` under another name: the same play, another label."""
    folder = tmp_path / "twins"
    folder.mkdir()
    shutil.copy(LIBRARY / "fixed.py", folder / "twin.py")
    return str(folder / "twin.py")


def test_win_rate_intervals_of_a_strategy_with_several_seats_cover_at_the_nominal_rate(tmp_path):
    """fixed and its twin share every game, two seats each (a pool smaller than the table), so
    each wins exactly a quarter of its seat-games in expectation. The game-clustered interval
    covers 1/4 at about 95%; Wilson's over seat-games, which treats a strategy's two seats of a
    game as independent, was 1.17x the real spread here (README, "Win rates in reports")."""
    lineup = designs.pool_design(4, ["fixed", _twin(tmp_path)])
    covered = []
    for seed in range(150):
        tally = results.run_simulation(600, 4, seed, DATA, strategies=lineup)
        row = tally.summary().loc[(4, "fixed")]
        covered.append(row["win_low"] <= 0.25 <= row["win_high"])
    rate = np.mean(covered)
    assert 0.90 <= rate <= 0.99, rate


def test_the_run_chunk_check_is_calibrated_on_correct_runs():
    p_values = []
    for seed in range(25):
        tally = results.run_simulation(1200, 4, seed, DATA, chunk_size=120,
                                       strategies=designs.pool_design(4, ["fixed", "saver"]))
        [(_, _, check)] = tally.chunk_checks()
        p_values.append(check.p_value)
    assert _at_most(int((np.array(p_values) < 0.10).sum()), len(p_values), 0.10)


@pytest.mark.slow
@pytest.mark.parametrize("contestants,players,duplicate", [
    (["fixed", "fixed"], 4, False),
    (["fixed"] * 3, 4, False),
    (["fixed"] * 3, 6, False),
    (["fixed"] * 3, 6, True),
    (["fixed"] * 5, 4, False),
])
def test_slow_false_verdicts_against_copies(contestants, players, duplicate):
    runs = 300
    false = _false_verdicts(contestants, players, 2 * compare.MIN_GROUPS, runs, duplicate,
                            seed=10_000)
    print(f"\n{len(contestants)} x fixed at {players} players, duplicate={duplicate}: "
          f"{false} of {runs} runs declared a winner")
    assert _at_most(false, runs, compare.ALPHA), f"{false} of {runs}"


@pytest.mark.slow
def test_slow_sequential_false_positive_rate_against_itself_is_at_most_alpha():
    """fixed against fixed (a fresh deal per game, so the two are exchangeable and the true edge
    is 0): the GSPRT of H0 edge <= 0 against H1 edge >= 1 point accepts H1 in at most alpha."""
    runs = 120
    accepted = 0
    for seed in range(runs):
        result = compare.compare(["fixed", "fixed"], 4, 240_000, seed=1000 + seed,
                                 field_spec="fixed", sequential=inference.SPRT(),
                                 batch_games=2400)
        decision = result.pairs[0].decision
        assert decision is not None, "undecided within the budget"
        accepted += decision == "H1"
    print(f"\nsequential, fixed against fixed: H1 accepted in {accepted} of {runs} runs")
    assert _at_most(accepted, runs, 0.05), accepted


@pytest.mark.slow
def test_slow_rate_coverage_in_a_larger_pool(tmp_path):
    lineup = designs.pool_design(4, ["fixed", _twin(tmp_path)])
    covered = [(lambda row: row["win_low"] <= 0.25 <= row["win_high"])(
        results.run_simulation(3000, 4, seed, DATA, strategies=lineup).summary().loc[(4, "fixed")])
        for seed in range(1000, 1600)]
    print(f"\nwin-rate interval of fixed (two seats a game) covers 1/4 in {np.mean(covered):.3f}")
    assert 0.93 <= np.mean(covered) <= 0.97, np.mean(covered)


# ------------------------------------------------------------------------------- one story

ROOT = Path(__file__).resolve().parent.parent


def _readme_tables() -> tuple[dict[str, float], dict[str, float]]:
    """The win rates (percent) of the README's quick-start table and of its strategy table."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    quick = text.split("## Quick start")[1].split("## Command line")[0]
    table = text.split("<!-- strategy-table -->")[1].split("<!-- /strategy-table -->")[0]
    out = []
    for part, column in ((quick, 1), (table, 4)):
        rates = {}
        for line in part.splitlines():
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            if len(cells) > column and cells[0].startswith("`") and cells[column][:1].isdigit():
                rates[cells[0].strip("`")] = float(cells[column].split("%")[0])
        out.append(rates)
    return out[0], out[1]


def test_the_readme_table_is_the_committed_comparison():
    """The README's strategy table, the committed comparison (experiments/pricing.toml) and the
    quick start (experiments/showdown.toml: the same games) tell one story."""
    import pandas as pd

    ranking = pd.read_csv(ROOT / "results" / "pricing" / "report" / "ranking.csv")
    for readme in _readme_tables():
        assert set(readme) == set(ranking["strategy"])
        for _, row in ranking.iterrows():
            assert readme[row["strategy"]] == round(100 * row["win_rate"], 1), row["strategy"]


@pytest.mark.slow
def test_slow_the_quick_start_agrees_with_the_committed_comparison():
    """The quick start's games, played again, give the committed comparison's win rates, every
    one inside the other's interval (they are the same games: equal to rounding)."""
    import pandas as pd

    from samsim.runs import experiment

    exp = experiment.load(ROOT / "experiments" / "showdown.toml")
    tally = results.run_simulation(exp.games, exp.players[0], exp.seed, DATA,
                                   strategies=designs.pool_design(exp.players[0], exp.pool))
    mine = tally.summary().xs(exp.players[0], level="players")
    ranking = pd.read_csv(ROOT / "results" / "pricing" / "report" / "ranking.csv")
    for _, row in ranking.iterrows():
        got = mine.loc[row["strategy"]]
        assert row["win_low"] <= got["win_rate"] <= row["win_high"]
        assert got["win_rate"] == pytest.approx(row["win_rate"], abs=1e-12)
