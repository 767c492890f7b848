"""Is strategy A better than B? Balanced groups, paired statistics, sequential stopping.

The unit of analysis is a *group*: one pass through a design balanced by construction
(``samsim.engine.designs.placements``). Up to ``players`` contestants play every placement of them among
the seats, the other seats played by the *field* strategy; more contestants play the pool design
of them all (every table-sized subset in every arrangement), the population of ``samsim simulate
--pool`` with the same strategies, so the two answer the same question. Every contestant sits in
every seat, and in every position relative to every other, equally often in every group, and a
strategy compared with its own copy is exactly even in expectation.
The games of a group each have their own deal (the default: measured more precise for this game)
or share one (``duplicate``: the deal's luck is common to every contestant and cancels in their
differences where the game rewards seats more than play; ``inference.variance_reduction``
measures which is so).

A contestant's score in a group is its mean win share (draws shared) over the group's games; its
money, the mean final score. Pairs are compared on the per-group differences, which are
independent across groups (``inference.paired_difference``), with simultaneous intervals over
all the pairs and verdicts from the same adjusted test.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass, replace

import numpy as np
import pandas as pd

from samsim.stats import inference

#: Equivalence margin, in win share (0.005 = half a point of win rate).
DEFAULT_MARGIN = 0.005
#: Family-wise error rate of the verdicts (and 1 - the simultaneous confidence of the intervals).
ALPHA = 0.05
#: Fewest groups (independent units) behind any verdict: below it the t interval of a win-share
#: difference (a few discrete values per game) is not yet near its nominal coverage.
MIN_GROUPS = 30


class CompareError(ValueError):
    """A comparison that cannot be set up as asked."""


@dataclass(frozen=True)
class Design:
    """Who plays where in a group (``samsim.engine.designs.placements``)."""

    contestants: tuple[str, ...]  # specs
    field: str
    players: int
    arrangements: np.ndarray  # int64[S, C]: seat of each contestant in each seating, -1 = out
    duplicate: bool = False  # the games of a group share one deal (else each has its own)
    #: the Strategy each label names (contestants, then the field): a strategy file's label
    #: ("mine") is not a name that finds it again
    strategies: tuple = ()

    @property
    def size(self) -> int:
        """Games per group."""
        return len(self.arrangements)

    def seatings(self) -> list[list[str]]:
        rows = []
        for seats in self.arrangements:
            row = [self.field] * self.players
            for spec, seat in zip(self.contestants, seats):
                if seat >= 0:
                    row[seat] = spec
            rows.append(row)
        return rows


def design(contestants, players: int, field, duplicate: bool = False) -> Design:
    """The contestants' balanced design at a ``players`` table (the field in any free seat);
    strategies given as specs or ``Strategy`` objects."""
    from samsim.engine.designs import MAX_SEATINGS, design_size, placements
    from samsim.engine.registry import parse_spec

    k = len(contestants)
    if k < 2:
        raise CompareError("compare needs at least two strategies, e.g. samsim compare greedy undercut")
    if k > players and design_size(players, k) > MAX_SEATINGS:
        raise CompareError(f"{k} strategies at {players} players need groups of "
                           f"{design_size(players, k):,} games (at most {MAX_SEATINGS:,}): "
                           f"compare fewer")
    members = [parse_spec(s) for s in [*contestants, field]]
    contestants, field = [m.spec() for m in members[:-1]], members[-1].spec()
    return Design(tuple(contestants), field, players, placements(players, k), duplicate,
                  tuple(members))


@dataclass
class Groups:
    """What the games of some groups gave, contestant by contestant."""

    share: np.ndarray  # float[G, S, C]: win credit in each game of each group, NaN = sat out
    money: np.ndarray  # float[G, S, C]: final score
    rank: np.ndarray  # float[G, S, C]: finishing rank among all seats (1 = first; ties share)
    chunk: np.ndarray  # int[G]: the chunk of games each group was played in

    @property
    def n(self) -> int:
        return len(self.share)

    def difference(self, i: int, j: int) -> np.ndarray:
        """Each group's win-share difference of contestants i and j (the paired values): each
        one's mean over the games it played."""
        return _mean(self.share[:, :, i]) - _mean(self.share[:, :, j])

    def extend(self, other: "Groups") -> "Groups":
        shift = self.chunk.max() + 1 if self.n else 0
        return Groups(np.concatenate([self.share, other.share]),
                      np.concatenate([self.money, other.money]),
                      np.concatenate([self.rank, other.rank]),
                      np.concatenate([self.chunk, other.chunk + shift]))

    def chunk_check(self) -> inference.ChunkCheck:
        """Do the chunks agree? Each group is a unit: its contestants' mean win shares."""
        stats = inference.ChunkStats()
        values = _mean(self.share)
        for c in np.unique(self.chunk):
            stats.add(values[self.chunk == c])
        return stats.check()


def play(plan: Design, first: int, stop: int, seed: int, data, threads=None,
         chunk_size: int | None = None, progress=None) -> Groups:
    """Play groups ``first .. stop-1``: game ids j*S .. j*S+S-1, on deal j (duplicate) or each
    on its own deal. ``progress(n)`` as games are played."""
    from samsim import engine
    from samsim.engine.lineup import Lineup
    from samsim.engine.registry import parse_spec

    size, k = plan.size, len(plan.contestants)
    named = {m.spec(): m for m in plan.strategies}
    seats = Lineup([[named.get(s) or parse_spec(s) for s in row] for row in plan.seatings()])
    per_chunk = size * max(1, (chunk_size or engine.DEFAULT_CHUNK) // size)
    games = (stop - first) * size
    share, money, rank = (np.full((games, k), np.nan) for _ in range(3))
    chunk = np.empty(games, np.int64)
    for c, (start, n, st) in enumerate(engine.batches(
            [(first * size, stop * size)], plan.players, seed, data, seats, per_chunk, threads,
            per_deal=size if plan.duplicate else 1, progress=progress)):
        rows = np.arange(n)
        at = plan.arrangements[(start + rows) % size]  # [n, C] seats of the contestants
        out = at < 0
        lo = start - first * size
        for target, source in ((share, st.win_credit), (money, st.score), (rank, st.rank)):
            target[lo:lo + n] = np.where(out, np.nan, source[rows[:, None], np.maximum(at, 0)])
        chunk[lo:lo + n] = c
    shape = (stop - first, size, k)
    return Groups(share.reshape(shape), money.reshape(shape), rank.reshape(shape),
                  chunk.reshape(stop - first, size)[:, 0])


@dataclass(frozen=True)
class Pair:
    a: int
    b: int
    share: inference.Difference  # interval at the simultaneous level (1 - alpha / pairs)
    money: inference.Difference
    reduction: float  # variance of the share difference: independent games / these groups
    money_reduction: float  # the same for the money difference
    group_size: int
    p_adjusted: float = math.nan  # Bonferroni over the pairs: the verdict's test
    p_equivalent_adjusted: float = math.nan
    decision: str | None = None  # sequential: "H1", "H0" or None (undecided)
    interval: tuple[float, float] | None = None  # sequential: valid at the stopping time

    @property
    def groups(self) -> int:
        return self.share.n


def pair(groups: Groups, i: int, j: int, margin: float, size: int, confidence: float) -> Pair:
    """Contestants i and j. The variance ratio compares games in which both played with their
    group's difference; a pool design (not every contestant in every game) has no such single
    game difference, and gets NaN."""
    d = groups.difference(i, j)
    coins = _mean(groups.money[:, :, i]) - _mean(groups.money[:, :, j])
    share = inference.paired_difference(d, margin, confidence)
    money = inference.paired_difference(coins, 1.0, confidence)
    if np.isnan(groups.share).any():
        return Pair(i, j, share, money, math.nan, math.nan, size)
    per_game = groups.share[:, :, i] - groups.share[:, :, j]
    per_coin = groups.money[:, :, i] - groups.money[:, :, j]
    return Pair(i, j, share, money,
                inference.variance_reduction(per_game.reshape(-1), d, size),
                inference.variance_reduction(per_coin.reshape(-1), coins, size), size)


def _mean(values: np.ndarray) -> np.ndarray:
    """Mean over a group's games (axis 1) of those a contestant played."""
    return np.nanmean(values, axis=1)


@dataclass
class Comparison:
    contestants: list[str]
    field: str
    players: int
    seed: int
    design: Design
    pairs: list[Pair]
    rates: pd.DataFrame  # strategy, games, win_rate, low, high (each contestant's own)
    ratings: object  # samsim.stats.ratings.Ratings: Plackett-Luce on the finishing orders
    chunk_check: inference.ChunkCheck  # do the chunks of games agree?
    games: int
    margin: float
    alpha: float = ALPHA
    sequential: inference.SPRT | None = None

    @property
    def confidence(self) -> float:
        """Of each pair's interval: all of them hold together with 1 - alpha (Bonferroni)."""
        return 1 - self.alpha / len(self.pairs)

    def verdict(self, p: Pair) -> str:
        a, b = self.contestants[p.a], self.contestants[p.b]
        if p.groups < MIN_GROUPS:
            return (f"no verdict for {a} vs {b}: {p.groups:,} groups ({p.groups * p.group_size:,} "
                    f"games) played; a verdict needs at least {MIN_GROUPS} groups "
                    f"({MIN_GROUPS * p.group_size:,} games){self._needed(p)}")
        if self.sequential is None:
            said = inference.verdict(p.share, a, b, alpha=self.alpha / len(self.pairs))
            return said + (self._needed(p) if said.startswith("undecided") else "")
        edge = f"{self.sequential.theta1 * 100:g} point"
        low, high = p.interval
        seen = (f"; {a} − {b} = {p.share.mean * 100:+.1f} points ({low * 100:+.1f} to "
                f"{high * 100:+.1f}, valid at the stop)")
        if p.decision == "H1":
            return f"{a} beats {b}: edge >= {edge} favoured over <= 0{seen}"
        if p.decision == "H0":
            return f"{a} does not beat {b}: edge <= 0 favoured over >= {edge}{seen}"
        return f"undecided after {p.groups:,} groups{seen}"

    def _needed(self, p: Pair) -> str:
        """How many games would settle it: an interval of +-margin at the spread seen so far."""
        if p.share.sd <= 0 or p.groups < 2:
            return ""
        games = inference.games_needed(p.share.sd, self.margin, p.group_size, self.confidence)
        return (f"; about {games:,} games in all for an interval of ±{self.margin * 100:g} "
                f"points at the spread seen so far")

    def pairs_frame(self) -> pd.DataFrame:
        """One row per pair: the win-share and money differences (first minus second) with
        their simultaneous intervals and tests, the variance ratio of the design, the verdict."""
        rows = []
        for p in self.pairs:
            low, high = p.interval if p.interval else (p.share.low, p.share.high)
            rows.append({
                "a": self.contestants[p.a], "b": self.contestants[p.b], "groups": p.groups,
                "games": p.groups * p.group_size,
                "win_diff": 100 * p.share.mean, "win_low": 100 * low, "win_high": 100 * high,
                "money_diff": p.money.mean, "money_low": p.money.low, "money_high": p.money.high,
                "effect_size": p.share.effect_size, "p_value": p.share.p_value,
                "p_adjusted": p.p_adjusted, "p_equivalent": p.p_equivalent_adjusted,
                "variance_ratio": p.reduction, "money_variance_ratio": p.money_reduction,
                "decision": p.decision or "", "verdict": self.verdict(p)})
        return pd.DataFrame(rows)

    def ranking_frame(self) -> pd.DataFrame:
        """Plackett-Luce strengths (log-worth of finishing ahead), strongest first, with
        bootstrap intervals, next to each strategy's own win rate."""
        table = self.ratings.frame(self.contestants)
        return table.merge(self.rates, on="strategy", how="left")

    def description(self) -> list[str]:
        plan = self.design
        k = len(self.contestants)
        deals = "one deal per group (duplicate)" if plan.duplicate else "a fresh deal per game"
        seats = (f"every placement of the {k} compared strategies, {self.field} in the other "
                 f"seats" if k < self.players else
                 f"every placement of the {k} compared strategies" if k == self.players else
                 f"every {self.players}-strategy subset of the {k} in every arrangement (the "
                 f"pool design), no field")
        m = len(self.pairs)
        how = (f"sequential: GSPRT H0 edge <= {self.sequential.theta0 * 100:g} vs H1 edge >= "
               f"{self.sequential.theta1 * 100:g} points, alpha {self.sequential.alpha:g} "
               f"(Bonferroni over {m} pair{'s' * (m > 1)}), beta {self.sequential.beta:g}; "
               f"intervals are confidence sequences, valid at the stopping time"
               if self.sequential else
               f"fixed sample; {self.confidence:.2%} t intervals over groups, "
               f"simultaneous over {m} pair{'s' * (m > 1)} (Bonferroni: all hold together with "
               f"{1 - self.alpha:.0%}), verdicts from the same test; equivalence margin "
               f"±{self.margin * 100:g} points")
        return [f"{self.players} players; design: groups of {plan.size:,} games, {seats}: each "
                f"in every seat and every position relative to each other equally often; "
                f"{deals}",
                f"{self.games:,} games ({self.pairs[0].groups:,} groups), seed {self.seed}; "
                f"{how}; no verdict below {MIN_GROUPS} groups"]

    def meetings(self) -> pd.DataFrame:
        """Games in which each two contestants met (the design's meeting table)."""
        plan = self.design
        present = (plan.arrangements >= 0).astype(np.int64)
        table = present.T @ present * self.pairs[0].groups
        return pd.DataFrame(table, index=self.contestants, columns=self.contestants)

    def notes(self) -> list[str]:
        lines = []
        for p in self.pairs:
            if math.isnan(p.reduction) and len(self.contestants) > self.players:
                continue  # a pool design: no single game holds every pair
            lines.append(f"{self.contestants[p.a]} vs {self.contestants[p.b]}: "
                         f"{_precision(p.reduction, self.design.duplicate)}; money: "
                         f"{_ratio(p.money_reduction)} (measured: variance of one game's "
                         f"difference over {p.group_size} x that of one group's)")
        lines.append(self.chunk_check.summary())
        field = " and the field" if len(self.contestants) < self.players else ""
        lines.append(f"conditional on the strategies{field}: a multiplayer strategy's "
                     f"strength depends on who else sits at the table")
        return lines


def _ratio(ratio: float) -> str:
    return "every group tied exactly" if math.isnan(ratio) else f"{ratio:.2f}"


def _precision(ratio: float, duplicate: bool) -> str:
    """What the measured variance ratio means for the user's game budget."""
    if math.isnan(ratio):
        return "every group tied exactly (identical play on shared deals)"
    text = f"these groups are as precise as {ratio:.2f}x as many independent games"
    if duplicate and ratio < 1:
        text += " (the deal's luck does not cancel here; --deals independent is cheaper)"
    return text


def _labels(specs) -> list[str]:
    """The contestants' names in tables: a spec given again (a strategy against a copy of
    itself, the known null) is told apart as ``greedy #2``, so that no two rows share a name."""
    seen: dict[str, int] = {}
    names = []
    for spec in specs:
        seen[spec] = seen.get(spec, 0) + 1
        names.append(spec if seen[spec] == 1 else f"{spec} #{seen[spec]}")
    return names


def _rates(contestants, groups: Groups) -> pd.DataFrame:
    """Each contestant's own win rate over all its games, with groups as the units."""
    from samsim.stats.tally import clustered_rate

    rows = []
    for c, name in enumerate(contestants):
        share = groups.share[:, :, c]
        y, x = np.nansum(share, axis=1), (~np.isnan(share)).sum(axis=1).astype(float)
        rate, low, high = clustered_rate(groups.n, y.sum(), x.sum(), (y * y).sum(),
                                         (x * x).sum(), (x * y).sum())
        rows.append({"strategy": name, "games": int(x.sum()), "win_rate": float(rate),
                     "win_low": float(low), "win_high": float(high)})
    return pd.DataFrame(rows)


def _check_memory(games: int, k: int) -> None:
    """A comparison keeps each game's result per contestant (win share, money, rank: float64)
    until its groups are summed; a budget that cannot fit is refused before any game."""
    from samsim.engine.play import physical_memory

    need, have = games * (3 * k + 1) * 8, physical_memory()
    if need > have // 2:
        raise CompareError(f"{games:,} games of {k} strategies would keep {need / 2**30:,.1f} GiB "
                           f"of results in memory, more than half of this machine's "
                           f"{have / 2**30:,.0f} GiB: compare with fewer --games")


def games_played(games: int, plan: Design) -> int:
    """The games ``compare`` plays for a budget of ``games``: whole groups, at least two (a
    budget whose results would not fit in memory is refused here, before any game)."""
    played = max(2, games // plan.size) * plan.size
    _check_memory(played, len(plan.contestants))
    return played


def compare(contestants, players: int = 4, games: int = 100_000, seed: int = 0, field_spec="greedy",
            data=None, threads=None, margin: float = DEFAULT_MARGIN,
            sequential: inference.SPRT | None = None, batch_games: int = 20_000,
            duplicate: bool = False, alpha: float = ALPHA, progress=None) -> Comparison:
    """Compare the contestants (specs) at a ``players``-player table, any free seats playing
    ``field_spec``. ``games`` is the budget (the most, with ``sequential``), in whole groups
    (``games_played`` says how many that is); sequential stopping looks every ``batch_games``
    games, first after ``MIN_GROUPS`` groups. ``progress(n)`` as games are played."""
    from samsim import components
    from samsim.stats.ratings import plackett_luce

    data = data or components.load()
    # labels as Strategy.spec writes them: they name the code that played (greedy@1a2b3c4d for
    # a local file shadowing the built-in)
    plan = design(contestants, players, field_spec, duplicate)
    contestants, field_spec = _labels(plan.contestants), plan.field
    within = list(itertools.combinations(range(len(contestants)), 2))
    m = len(within)
    # every pair is one test: alpha is split over all of them (Bonferroni)
    test = replace(sequential, alpha=sequential.alpha / m) if sequential else None
    most = games_played(games, plan) // plan.size
    step = max(MIN_GROUPS, batch_games // plan.size) if sequential else most
    groups = play(plan, 0, min(most, step), seed, data, threads, progress=progress)
    while groups.n < most and test and any(
            test.decide(groups.difference(i, j)) is None for i, j in within):
        groups = groups.extend(play(plan, groups.n, min(most, groups.n + step), seed, data,
                                    threads, progress=progress))

    pairs = []
    for i, j in within:
        p = pair(groups, i, j, margin, plan.size, 1 - alpha / m)
        if test:
            d = groups.difference(i, j)
            p = replace(p, decision=test.decide(d), interval=inference.confidence_sequence(
                d, alpha / m, rho_groups=step))
        pairs.append(p)
    if not sequential:
        p_adj = inference.bonferroni([p.share.p_value for p in pairs])
        p_eq = inference.bonferroni([p.share.p_equivalent for p in pairs])
        pairs = [replace(p, p_adjusted=float(q), p_equivalent_adjusted=float(e))
                 for p, q, e in zip(pairs, p_adj, p_eq)]
    units = np.repeat(np.arange(groups.n), plan.size)
    ratings = plackett_luce(groups.rank.reshape(-1, len(contestants)), units,
                            np.random.default_rng(seed))
    return Comparison(contestants, field_spec, players, seed, plan, pairs,
                      _rates(contestants, groups), ratings, groups.chunk_check(),
                      groups.n * plan.size, margin, alpha, sequential)


__all__ = ["Design", "design", "Groups", "play", "Pair", "pair", "Comparison", "compare",
           "CompareError", "DEFAULT_MARGIN", "ALPHA", "MIN_GROUPS"]
