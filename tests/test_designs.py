"""The experimental designs are balanced by construction: checked on the seating tables themselves
(every strategy in every seat, every pair meeting, every ordered pair in every ordered pair of
seats, equally often; unchanged by renaming the strategies), then on games played by them."""

import itertools

import numpy as np
import pytest

from samsim import components, engine
from samsim.engine import designs
from samsim.engine.registry import StrategyError
from samsim.runs.simulate import simulate

DATA = components.load()
CASES = [(players, n) for players in range(3, 7) for n in range(1, 9)
         if designs.design_size(players, n) <= 25_000]


def _counts(rows: np.ndarray, n: int):
    """(strategy x seat counts, meetings of each two, counts of (a at s, b at t))."""
    players = rows.shape[1]
    seat = np.zeros((n, players), np.int64)
    np.add.at(seat, (rows, np.arange(players)), 1)
    ordered = np.zeros((n, n, players, players), np.int64)
    for s, t in itertools.permutations(range(players), 2):
        np.add.at(ordered, (rows[:, s], rows[:, t], s, t), 1)
    present = np.zeros((len(rows), n), np.int64)
    np.put_along_axis(present, rows, 1, axis=1)
    return seat, present.T @ present, ordered


@pytest.mark.parametrize("players,n", CASES)
def test_a_pool_design_is_balanced_and_exchangeable(players, n):
    rows = designs.pool_seatings(players, n)
    assert len(rows) == designs.design_size(players, n)
    seat, meet, ordered = _counts(rows, n)
    assert (seat == seat[0, 0]).all()  # every strategy in every seat equally often
    off = ~np.eye(n, dtype=bool)
    assert len(set(meet[off].tolist())) <= 1  # every two meet equally often
    pairs = ordered[off]  # [ordered strategy pairs, s, t]
    seats_off = ~np.eye(players, dtype=bool)
    assert len(set(pairs[:, seats_off].reshape(-1).tolist())) <= 1  # every ordered pair of seats
    counts = np.apply_along_axis(np.bincount, 1, rows, minlength=n)
    assert (counts.max(axis=1) - counts.min(axis=1) <= 1).all()  # as even as the table allows
    # renaming the strategies leaves the design as it is (so identical copies are exchangeable)
    rename = np.random.default_rng(players * 10 + n).permutation(n)
    assert sorted(map(tuple, rename[rows].tolist())) == sorted(map(tuple, rows.tolist()))


def test_pool_design_seats_specs_and_refuses_designs_too_large():
    lineup = designs.pool_design(4, ["greedy", "saver", "undercut(margin=2)"])
    assert len(lineup.seatings) == 36 and lineup.design == designs.POOL_DESIGN
    assert lineup.config() == {"pool": ["greedy", "saver", "undercut(margin=2)"],
                               "design": designs.POOL_DESIGN}
    assert lineup.specs()[0] == ["greedy", "greedy", "saver", "undercut(margin=2)"]
    with pytest.raises(StrategyError, match="balanced design"):
        designs.pool_design(6, [f"greedy(temperature={k})" for k in range(12)])
    with pytest.raises(StrategyError, match="greedy is given twice"):
        designs.pool_design(4, ["greedy", "saver", "greedy(tile_scale=1.0)"])


@pytest.mark.parametrize("players,k", [(4, 2), (4, 3), (4, 4), (6, 3), (3, 4), (4, 6)])
def test_compare_placements_are_balanced(players, k):
    at = designs.placements(players, k)
    assert (at < players).all()
    present = at >= 0
    assert (present.sum(axis=1) == min(players, k)).all()
    for c in range(k):
        seats = np.bincount(at[present[:, c], c], minlength=players)
        assert (seats == seats[0]).all()
    for a, b in itertools.permutations(range(k), 2):
        both = present[:, a] & present[:, b]
        grid = np.zeros((players, players), np.int64)
        np.add.at(grid, (at[both, a], at[both, b]), 1)
        assert len(set(grid[~np.eye(players, dtype=bool)].tolist())) == 1


def test_games_of_a_pool_design_seat_everyone_equally():
    pool = ["greedy", "undercut", "saver", "holiday", "random"]
    lineup = designs.pool_design(4, pool)
    df = simulate(2 * len(lineup.seatings), 4, seed=2, data=DATA, strategies=lineup)
    counts = df.groupby(["strategy", "seat"], observed=True).size().unstack()
    assert counts.shape == (5, 4) and (counts.to_numpy() == 2 * 24).all()
    for game in (0, 77, 239):  # game k of the run is its seating played alone
        alone = engine.run_batch(1, 4, 2, game, DATA, strategies=lineup.seating(game))
        assert df[df["game"] == game]["money"].tolist() == alone.money[0].tolist()


def test_a_pool_balance_plays_whole_passes():
    from samsim.analysis import balance

    [count] = balance.run([3], games=31, seed=1, pool=["fixed", "saver"], data=DATA)
    assert count.games == 36  # six passes of the 6 seatings, not 31 games of an unfinished one
    assert "every two met in 36 games" in count.design
