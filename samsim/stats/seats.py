"""Seat effects across populations: robust, dependent on the players, or none found.

A seat's win rate measured with one population of players (one strategy in every seat, or a pool)
is the game's as those players play it. An effect is called **robust** only when every population
shows it on the same side of the fair share 1/N; **none found** only when every population places
the seat within a stated margin of 1/N; it **depends on the players** when two populations are shown
to differ (their intervals for the seat do not overlap); else the verdict is **undecided** (more
games would settle it): one population showing an effect that the others' intervals do not rule
out is no evidence that the players matter.

Both calls rest on one family of intervals: per population, Goodman's simultaneous intervals for
the seats' win shares, each population's at level alpha / P (Bonferroni over the P populations),
so that all N x P intervals hold together with probability at least 1 - alpha. "Robust" is then an
intersection-union test (every population must reject the fair share, on one side), and so is
"none found" (every interval inside the margin: the equivalence test of each population at the
same level), so neither is claimed falsely with probability above alpha, whatever the number of
populations; nor is "depends on the players": where every population gives the seat the same
chance, all intervals hold that chance together with probability 1 - alpha, and then no two are
apart (tests/test_seat_verdicts.py calibrates all three).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from samsim.stats.inference import multinomial_intervals

ROBUST, DEPENDS, NONE_FOUND = "robust", "depends on the players", "none found"
UNDECIDED = "undecided: more games"


@dataclass(frozen=True)
class SeatVerdict:
    """One seat at one player count, across the populations (points of win rate against 1/N)."""

    seat: int
    verdict: str
    deviation: np.ndarray  # per population: win rate - 1/N, points
    low: np.ndarray  # per population: the simultaneous interval's ends, points from 1/N
    high: np.ndarray

    @property
    def size(self) -> tuple[float, float]:
        """The smallest and largest deviation over the populations (points)."""
        return float(self.deviation.min()), float(self.deviation.max())


def seat_verdicts(wins, games, margin: float, alpha: float = 0.05) -> list[SeatVerdict]:
    """``wins[p, s]``: win credit of seat s under population p, in ``games[p]`` games; ``margin``
    in points of win rate. One verdict per seat."""
    wins = np.asarray(wins, dtype=float)
    games = np.asarray(games, dtype=float)
    populations, players = wins.shape
    if populations < 1 or players < 2 or (games <= 0).any():
        raise ValueError("seat verdicts need at least one population of games and two seats")
    if margin <= 0:
        raise ValueError(f"the margin must be positive (points of win rate), got {margin}")
    fair = 100.0 / players
    low = np.empty_like(wins)
    high = np.empty_like(wins)
    for p in range(populations):
        ci = multinomial_intervals(wins[p], alpha=alpha / populations)
        low[p], high[p] = 100 * ci[:, 0] - fair, 100 * ci[:, 1] - fair
    deviation = 100 * wins / games[:, None] - fair
    out = []
    for s in range(players):
        above, below = (low[:, s] > 0).all(), (high[:, s] < 0).all()
        within = ((low[:, s] > -margin) & (high[:, s] < margin)).all()
        apart = low[:, s].max() > high[:, s].min()
        verdict = (ROBUST if above or below else NONE_FOUND if within else DEPENDS if apart
                   else UNDECIDED)
        out.append(SeatVerdict(s, verdict, deviation[:, s], low[:, s], high[:, s]))
    return out


def table_verdict(verdicts: list[SeatVerdict]) -> str:
    """The player count's answer: robust if any seat's effect is, none found if every seat's
    deviation is within the margin, it depends on the players if some seat's does, else
    undecided."""
    kinds = {v.verdict for v in verdicts}
    for verdict in (ROBUST, DEPENDS, UNDECIDED):
        if verdict in kinds:
            return verdict
    return NONE_FOUND
