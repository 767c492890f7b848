"""Experimental designs: who sits where, so that an answer compares like with like.

A multiplayer strategy's results depend on its seat and on who sits around it, so every design
here is balanced by construction: it is unchanged by renaming the strategies and by renumbering
the seats. Every strategy then sits in every seat equally often, every two meet equally often,
every ordered pair sits in every ordered pair of seats equally often, and two identical
strategies have exactly the same expected results (the calibration tests check that a strategy
never beats its own copy more often than alpha allows). Smaller designs that balance only seats
and pairs exist; they are not exchangeable in that last sense, and are not used.
"""

from __future__ import annotations

import itertools
import math

import numpy as np

from samsim.engine.lineup import Lineup
from samsim.engine.registry import StrategyError, parse_spec

#: The pool design's name as runs record it (a run of another design is another run).
POOL_DESIGN = "balanced-1"
#: Most seatings a pool design may have: past it, a table of seatings is no longer small.
MAX_SEATINGS = 200_000


def design_size(players: int, pool_size: int) -> int:
    """Games in one pass through ``pool_design`` for a pool of ``pool_size`` at ``players``."""
    q, r = divmod(players, pool_size)
    return (math.comb(pool_size, r) * math.factorial(players)
            // (math.factorial(q + 1) ** r * math.factorial(q) ** (pool_size - r)))


def pool_seatings(players: int, pool_size: int) -> np.ndarray:
    """int64[S, players]: the pool index seated in each seat of every seating of the design."""
    q, r = divmod(players, pool_size)
    rows = []
    for extra in itertools.combinations(range(pool_size), r):
        base = [k for k in range(pool_size) for _ in range(q + (k in extra))]
        rows += sorted(set(itertools.permutations(base)))
    return np.array(rows, np.int64).reshape(-1, players)


def pool_design(players: int, pool) -> Lineup:
    """A pool of strategies (specs) seated by a design balanced by construction.

    Each game seats the pool as evenly as the table allows: a pool at least as large as the table
    gives one seat each to a subset of it, a smaller pool gives each strategy ``players //
    len(pool)`` seats or one more. The design plays every such composition (every subset, every
    choice of who gets the extra seat) in every arrangement over the seats (module docstring:
    why). Only whole passes through the seatings are balanced (``design_size`` games each)."""
    if isinstance(pool, str) or not pool:
        raise StrategyError("a pool needs a list of strategies, e.g. ['greedy', 'undercut']")
    if not isinstance(players, (int, np.integer)) or isinstance(players, bool) or players < 1:
        raise StrategyError(f"players must be a positive whole number, got {players!r}")
    members = [parse_spec(spec) for spec in pool]
    specs = [m.spec() for m in members]
    twice = next((s for s in specs if specs.count(s) > 1), None)
    if twice is not None:  # its seats would be counted as one strategy's: a design of fewer
        raise StrategyError(f"a pool names each strategy once: {twice} is given twice")
    n = len(members)
    size = design_size(players, n)
    if size > MAX_SEATINGS:
        raise StrategyError(f"a pool of {n} strategies at {players} players needs {size:,} "
                            f"seatings for a balanced design (at most {MAX_SEATINGS:,}): "
                            f"pool fewer strategies")
    seatings = [[members[k] for k in row] for row in pool_seatings(players, n).tolist()]
    return Lineup(seatings, members, POOL_DESIGN)


def mix_design(players: int, pool, draws: int = 64, seed: int = 0) -> Lineup:
    """A pool drawn at random per table: ``draws`` tables of ``players`` seats, each seat drawn
    from the pool with replacement (so a table may seat two copies of one strategy, as a mixed
    population of players would), each table played in all ``players`` rotations over the seats.
    The rotations keep it balanced over the seats by construction (every table's strategies sit
    in every seat equally often), which is what a seat effect needs; who meets whom is left to
    chance, as at a real table. ``seed`` makes the draws reproducible."""
    if isinstance(pool, str) or not pool or draws < 1:
        raise StrategyError("a mix needs a list of strategies and one draw or more")
    members = [parse_spec(spec) for spec in pool]
    rng = np.random.default_rng([int(seed), int(players), len(members)])
    tables = rng.integers(len(members), size=(draws, players))
    seatings = [[members[k] for k in np.roll(row, turn)] for row in tables for turn in range(players)]
    return Lineup(seatings, members, f"mix-{draws}-{seed}")


def whole_passes(games: int, lineup: Lineup) -> int:
    """``games`` rounded up to whole passes through a pool design (only these are balanced)."""
    k = len(lineup.seatings)
    return games if lineup.design is None or games < 1 else -(-games // k) * k


def placements(players: int, contestants: int) -> np.ndarray:
    """int64[S, C]: the seat of each contestant in every seating of a comparison, -1 where it
    sits out. Up to ``players`` contestants: every placement of them (the other seats: a field
    strategy); more: the pool design of them all."""
    if contestants <= players:
        return np.array(list(itertools.permutations(range(players), contestants)), np.int64)
    seats = pool_seatings(players, contestants)
    out = np.full((len(seats), contestants), -1, np.int64)
    rows = np.repeat(np.arange(len(seats)), players)
    out[rows, seats.reshape(-1)] = np.tile(np.arange(players), len(seats))
    return out


def around(players: int, field_size: int) -> np.ndarray:
    """int64[S, players]: one seat for a strategy on trial (-1) and the others filled from a field
    of ``field_size`` strategies (their index), balanced by construction: the trial seat goes
    round every seat, and the field's seats are the pool design of the others (every strategy
    of it in every seat, every two meeting, equally often). A field of one is that strategy in
    every other seat, so S = players."""
    others = pool_seatings(players - 1, field_size)
    return np.array([[*row[:seat], -1, *row[seat:]] for seat in range(players) for row in others],
                    np.int64)


__all__ = ["POOL_DESIGN", "MAX_SEATINGS", "design_size", "pool_seatings", "pool_design", "mix_design",
           "whole_passes", "placements", "around"]
