"""Is strategy A better than B? Duplicate deals, paired statistics, sequential stopping.

The unit of analysis is a *duplicate group*: one deal played once for every seating of the
contestants (every placement of them among the seats when there are at most
``MAX_ARRANGEMENTS``, else every rotation), the other seats played by the *field* strategy. The deal
(flags, tiles, tourist cards, chip draws) depends only on the group (``Control.per_deal``), so its
luck is shared by every contestant and cancels in their differences; how much variance that
removes is measured on the games themselves (``inference.variance_reduction``).

A contestant's score in a group is its mean win share (draws shared) over the group's games; its
money, the mean final score. Pairs are compared on the per-group differences
(``inference.paired_difference``). Up to ``players`` contestants share every game; with more,
each pair plays its own groups (same deals), with the field in the other seats.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass, field, replace

import numpy as np
import pandas as pd

from samsim import inference

#: Seatings per group at most when every placement of the contestants is played.
MAX_ARRANGEMENTS = 30
#: Equivalence margin, in win share (0.005 = half a point of win rate).
DEFAULT_MARGIN = 0.005


class CompareError(ValueError):
    """A comparison that cannot be set up as asked."""


@dataclass(frozen=True)
class Design:
    """Who plays where in a duplicate group."""

    contestants: tuple[str, ...]  # specs
    field: str
    players: int
    arrangements: np.ndarray  # int64[S, C]: seat of each contestant in each seating
    duplicate: bool = True  # the games of a group share one deal (else each has its own)

    @property
    def size(self) -> int:
        """Games per group."""
        return len(self.arrangements)

    @property
    def everywhere(self) -> bool:
        """Whether every placement is played (else only the rotations)."""
        return self.size == math.perm(self.players, len(self.contestants))

    def seatings(self) -> list[list[str]]:
        rows = []
        for seats in self.arrangements:
            row = [self.field] * self.players
            for spec, seat in zip(self.contestants, seats):
                row[seat] = spec
            rows.append(row)
        return rows


SEATINGS = ("all", "rotations")


def design(contestants, players: int, field: str, seatings: str = "all",
           duplicate: bool = True) -> Design:
    """Every placement of the contestants (``seatings="all"``, when there are at most
    MAX_ARRANGEMENTS), else the rotations of contestants 0..C-1 in seats 0..C-1. With all
    placements, a strategy compared with itself ties every group exactly (each seating has its
    mirror); rotations leave it the seat-order noise of real play."""
    if seatings not in SEATINGS:
        raise CompareError(f"seatings must be one of {', '.join(SEATINGS)}, got {seatings!r}")
    k = len(contestants)
    if k < 2:
        raise CompareError("compare needs at least two strategies, e.g. samsim compare greedy undercut")
    if k > players:
        raise CompareError(f"{k} strategies do not fit at a {players}-player table together")
    if seatings == "all" and math.perm(players, k) <= MAX_ARRANGEMENTS:
        arrangements = list(itertools.permutations(range(players), k))
    else:
        arrangements = [tuple((i + r) % players for i in range(k)) for r in range(players)]
    return Design(tuple(contestants), field, players, np.array(arrangements, np.int64), duplicate)


@dataclass
class Groups:
    """What the games of some duplicate groups gave, contestant by contestant."""

    share: np.ndarray  # float[G, S, C]: win credit in each game of each group
    money: np.ndarray  # float[G, S, C]: final score
    ahead: np.ndarray  # int[G, C, C]: games of the group in which i finished ahead of j
    chunks: list[np.ndarray] = field(default_factory=list)  # per chunk: credit per contestant + field

    @property
    def n(self) -> int:
        return len(self.share)

    def difference(self, i: int, j: int) -> np.ndarray:
        """Each group's win-share difference of contestants i and j (the paired values)."""
        return (self.share[:, :, i] - self.share[:, :, j]).mean(axis=1)

    def extend(self, other: "Groups") -> "Groups":
        return Groups(np.concatenate([self.share, other.share]),
                      np.concatenate([self.money, other.money]),
                      np.concatenate([self.ahead, other.ahead]), self.chunks + other.chunks)


def play(plan: Design, first: int, stop: int, seed: int, data, threads=None,
         chunk_size: int | None = None) -> Groups:
    """Play groups ``first .. stop-1``: game ids j*S .. j*S+S-1, on deal j (duplicate) or each
    on its own deal."""
    from samsim import engine, strategy

    size, k = plan.size, len(plan.contestants)
    seats = strategy.Lineup([[strategy.parse_spec(s) for s in row] for row in plan.seatings()])
    per_chunk = size * max(1, (chunk_size or engine.DEFAULT_CHUNK) // size)
    games = (stop - first) * size
    share = np.empty((games, k))
    money = np.empty((games, k))
    rank = np.empty((games, k))
    chunks = []
    for start, n, st in engine.batches([(first * size, stop * size)], plan.players, seed, data,
                                       seats, per_chunk, threads,
                                       per_deal=size if plan.duplicate else 1):
        rows = np.arange(n)
        at = plan.arrangements[(start + rows) % size]  # [n, C] seats of the contestants
        lo = start - first * size
        share[lo:lo + n] = st.win_credit[rows[:, None], at]
        money[lo:lo + n] = st.score[rows[:, None], at]
        rank[lo:lo + n] = st.rank[rows[:, None], at]
        credit = st.win_credit[:n].sum(axis=0)  # per seat; the field is what is left
        contestants = share[lo:lo + n].sum(axis=0)
        chunks.append(np.append(contestants, credit.sum() - contestants.sum()))
    shape = (stop - first, size, k)
    rank = rank.reshape(shape)
    ahead = (rank[:, :, :, None] < rank[:, :, None, :]).sum(axis=1)
    return Groups(share.reshape(shape), money.reshape(shape), ahead, chunks)


@dataclass(frozen=True)
class Pair:
    a: int
    b: int
    share: inference.Difference
    money: inference.Difference
    reduction: float  # variance of the share difference: independent games / these groups
    money_reduction: float  # the same for the money difference
    p_holm: float = math.nan
    decision: str | None = None  # sequential: "H1", "H0" or None (undecided)
    interval: tuple[float, float] | None = None  # sequential: valid at the stopping time
    groups: int = 0


def pair(groups: Groups, a: int, b: int, i: int, j: int, margin: float, size: int) -> Pair:
    """Contestants i and j of ``groups`` (a and b in the comparison's numbering)."""
    per_game = groups.share[:, :, i] - groups.share[:, :, j]
    coins = groups.money[:, :, i] - groups.money[:, :, j]
    share = inference.paired_difference(groups.difference(i, j), margin)
    money = inference.paired_difference(coins.mean(axis=1), margin=1.0)
    return Pair(a, b, share, money,
                inference.variance_reduction(per_game.reshape(-1), groups.difference(i, j), size),
                inference.variance_reduction(coins.reshape(-1), coins.mean(axis=1), size),
                groups=groups.n)


@dataclass
class Comparison:
    contestants: list[str]
    field: str
    players: int
    seed: int
    designs: list[Design]
    pairs: list[Pair]
    strength: np.ndarray
    strength_low: np.ndarray
    strength_high: np.ndarray
    chunk_checks: list[inference.ChunkCheck]  # one per table played (chunks of one table agree)
    games: int
    margin: float
    sequential: inference.SPRT | None = None

    def verdict(self, p: Pair) -> str:
        a, b = self.contestants[p.a], self.contestants[p.b]
        if self.sequential is None:
            return inference.verdict(p.share, a, b)
        edge = f"{self.sequential.theta1 * 100:g} point"
        low, high = p.interval
        seen = (f"; {a} − {b} = {p.share.mean * 100:+.1f} points ({low * 100:+.1f} to "
                f"{high * 100:+.1f}, valid at the stop)")
        if p.decision == "H1":
            return f"{a} beats {b}: edge >= {edge} favoured over <= 0{seen}"
        if p.decision == "H0":
            return f"{a} does not beat {b}: edge <= 0 favoured over >= {edge}{seen}"
        return f"undecided after {p.groups:,} groups{seen}"


    def pairs_frame(self) -> pd.DataFrame:
        """One row per pair: the win-share and money differences (first minus second) with
        their intervals and tests, the variance ratio of the design, and the verdict."""
        rows = []
        for p in self.pairs:
            low, high = p.interval if p.interval else (p.share.low, p.share.high)
            rows.append({
                "a": self.contestants[p.a], "b": self.contestants[p.b], "groups": p.groups,
                "win_diff": 100 * p.share.mean, "win_low": 100 * low, "win_high": 100 * high,
                "money_diff": p.money.mean, "money_low": p.money.low, "money_high": p.money.high,
                "effect_size": p.share.effect_size, "p_value": p.share.p_value,
                "p_holm": p.p_holm, "p_equivalent": p.share.p_equivalent,
                "variance_ratio": p.reduction, "money_variance_ratio": p.money_reduction,
                "decision": p.decision or "", "verdict": self.verdict(p)})
        return pd.DataFrame(rows)

    def ranking_frame(self) -> pd.DataFrame:
        """Bradley-Terry strengths (log-odds of finishing ahead of the average contestant),
        strongest first, with bootstrap 95% intervals."""
        df = pd.DataFrame({"strategy": self.contestants, "strength": self.strength,
                           "low": self.strength_low, "high": self.strength_high})
        return df.sort_values("strength", ascending=False, kind="stable").reset_index(drop=True)

    def description(self) -> list[str]:
        plan = self.designs[0]
        seat_text = ("every placement of the compared strategies" if plan.everywhere
                     else "every rotation of the compared strategies")
        deals = "one deal per group (duplicate)" if plan.duplicate else "a fresh deal per game"
        tables = "one table for all" if len(self.designs) == 1 else \
            f"{len(self.designs)} tables, one per pair"
        how = (f"sequential: GSPRT H0 edge <= {self.sequential.theta0 * 100:g} vs H1 edge >= "
               f"{self.sequential.theta1 * 100:g} points, alpha {self.sequential.alpha:g} "
               f"(Bonferroni over pairs), beta {self.sequential.beta:g}; intervals are "
               f"confidence sequences, valid at the stopping time"
               if self.sequential else
               f"fixed sample; 95% t intervals over groups, Holm-adjusted p-values, "
               f"equivalence margin ±{self.margin * 100:g} points")
        return [f"{self.players} players; field: {self.field} in the other seats; {tables}",
                f"groups of {plan.size} games: {seat_text}, {deals}",
                f"{self.games:,} games, seed {self.seed}; {how}"]

    def notes(self) -> list[str]:
        lines = []
        for p in self.pairs:
            lines.append(f"{self.contestants[p.a]} vs {self.contestants[p.b]}: "
                         f"{_precision(p.reduction, self.designs[0].duplicate)} (measured: "
                         f"variance of one game's difference over {self.designs[0].size} x that "
                         f"of one group's; money: {p.money_reduction:.2f})")
        for plan, check in zip(self.designs, self.chunk_checks):
            lines.append(f"{' vs '.join(plan.contestants)}: {check.summary()}")
        lines.append("conditional on the strategies and the field: a multiplayer strategy's "
                     "strength depends on who else sits at the table")
        return lines


def _precision(ratio: float, duplicate: bool) -> str:
    """What the measured variance ratio means for the user's game budget."""
    design = "duplicate groups" if duplicate else "these groups"
    text = f"{design} are as precise as {ratio:.2f}x as many independent games"
    if duplicate and ratio < 1:
        text += " (the deal's luck does not cancel here; --deals independent is cheaper)"
    return text


def _units(contestants, players, field_spec, seatings, duplicate):
    """(design, contestant indices) for every table to play: one for all, or one per pair."""
    k = len(contestants)
    if k <= players:
        return [(design(contestants, players, field_spec, seatings, duplicate), list(range(k)))]
    return [(design([contestants[i], contestants[j]], players, field_spec, seatings, duplicate),
             [i, j]) for i, j in itertools.combinations(range(k), 2)]


def compare(contestants, players: int = 4, games: int = 100_000, seed: int = 0, field_spec="greedy",
            data=None, threads=None, margin: float = DEFAULT_MARGIN,
            sequential: inference.SPRT | None = None, batch_games: int = 20_000,
            seatings: str = "all", duplicate: bool = True) -> Comparison:
    """Compare the contestants (specs) at a ``players``-player table, the other seats playing
    ``field_spec``. ``games`` is the budget (the most, with ``sequential``), spread over the
    tables; sequential stopping looks every ``batch_games`` games per table."""
    from samsim import components

    data = data or components.load()
    contestants = list(contestants)
    units = _units(contestants, players, field_spec, seatings, duplicate)
    k = len(contestants)
    per_table = max(1, games // len(units))
    # every pair is one test: alpha is split over all of them (Bonferroni)
    test = replace(sequential, alpha=sequential.alpha / math.comb(k, 2)) if sequential else None
    results = []
    for plan, members in units:
        most = max(2, per_table // plan.size)
        step = max(2, batch_games // plan.size) if sequential else most
        within = list(itertools.combinations(range(len(members)), 2))
        groups = play(plan, 0, min(most, step), seed, data, threads)
        while groups.n < most and test and any(
                test.decide(groups.difference(i, j)) is None for i, j in within):
            groups = groups.extend(play(plan, groups.n, min(most, groups.n + step), seed, data,
                                        threads))
        results.append((plan, members, groups))

    pairs = []
    for plan, members, groups in results:
        for i, j in itertools.combinations(range(len(members)), 2):
            p = pair(groups, members[i], members[j], i, j, margin, plan.size)
            if test:
                d = groups.difference(i, j)
                p = replace(p, decision=test.decide(d), interval=inference.confidence_sequence(
                    d, 0.05, rho_groups=max(2, batch_games // plan.size)))
            pairs.append(p)
    if not sequential:
        adjusted = inference.holm([p.share.p_value for p in pairs])
        pairs = [replace(p, p_holm=float(q)) for p, q in zip(pairs, adjusted)]

    wins = []
    for _, members, groups in results:
        full = np.zeros((groups.n, k, k))
        full[np.ix_(range(groups.n), members, members)] = groups.ahead
        wins.append(full)
    strength, low, high = inference.bradley_terry(np.concatenate(wins), np.random.default_rng(seed))
    checks = [inference.chunk_consistency(np.array(groups.chunks)) for _, _, groups in results]
    return Comparison(contestants, field_spec, players, seed, [plan for plan, _, _ in results],
                      pairs, strength, low, high, checks,
                      sum(g.n * plan.size for plan, _, g in results), margin, sequential)


__all__ = ["Design", "design", "Groups", "play", "Pair", "pair", "Comparison", "compare",
           "CompareError", "MAX_ARRANGEMENTS", "DEFAULT_MARGIN"]
