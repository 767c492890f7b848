"""Is the game fair at 3, 4, 5 and 6 players? What decides it besides play?

For each player count, games with a stated strategy in every seat (the same one by default, so
that any seat effect is the game's, not the strategies') are measured for:

* seats: win rate per seat (position from the tie-breaker card's starting place) against the fair
  share 1/N, simultaneous multinomial intervals and a chi-square test of equal chances;
* ties: how the final money and win share of seats that won more of the ties the tie-breaker card
  settles (equal bids: who is offered a tile first; equal room prices: who is offered tourists
  first) differ from those of seats that lost them, from a regression on ties won and lost with
  errors clustered by game;
* money: final money quantiles, the winner-to-last spread, draws, and how often the free-rooms
  tie-break decides the winner;
* market: tourists arriving against free rooms, tourists turned away, money earned, per round
  (rounds 6 and 12 bring double arrivals);
* tiles: price paid per tile kind against the buyers' win rate, errors clustered by game.

The findings come in two kinds, never ranked together. Seat effects are causal: every seat plays
the same strategy (or the same pool, seated evenly), so a seat's deviation from 1/N is the seat's
doing; their intervals hold simultaneously (Goodman). Ties and tiles are associations: how many
ties a seat wins and whether it buys a tile depend on how it bids and on the deal, which also
decide who wins, so they describe the games, not what a tie or a tile is worth. Their intervals
hold simultaneously within a player count (Bonferroni over all of that count's association
intervals) and their p-values are Holm-adjusted over the same family: among several unadjusted
95% intervals, one missing zero by chance alone is to be expected. Within each kind, findings are
ranked by size in points of win rate, largest first. Everything here is conditional on the
strategies played: a seat advantage against greedy players may vanish against cautious ones.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import NamedTuple

import numpy as np
import pandas as pd

from samsim.components import TILE_KINDS, GameData
from samsim.stats import inference

#: The family-wise error rate of each player count's association intervals taken together.
ALPHA = 0.05
#: Games a balance needs per player count (and population), else it is refused before any game:
#: with fewer, Goodman's seat intervals miss a fair seat's 1/N more often than 5% (at 10 and 20
#: games, 6-9% at 4 and 6 players; tests/test_balance.py), and the clustered variance of the
#: ties and tiles, with the game as the cluster, is far too small (10 games gave p = 3e-173).
MIN_GAMES = 30


class Findings(NamedTuple):
    """One player count's findings, by kind, each (size in points of win rate, sentence). The
    kinds are kept apart because their numbers mean different things: a seat effect is caused by
    the seat, an association only describes which seats won."""

    effects: list[tuple[float, str]]  # seats: causal (same strategy everywhere)
    associations: list[tuple[float, str]]  # ties and tiles: observational, confounded by play
    facts: list[tuple[float, str]]  # descriptive, no interval (draws, free-rooms decisions)


@dataclass
class PlayerCount:
    """The measurements at one table size."""

    players: int
    games: int
    seats: pd.DataFrame  # seat, wins, win_rate, low, high (simultaneous), fair
    equal_p: float
    ties: pd.DataFrame  # kind, per_game, coins/points with _low, _high (simultaneous), _p, _holm
    money: dict  # quantiles, spread, draws, free_rooms_decides
    market: pd.DataFrame  # per round
    tiles: pd.DataFrame  # per tile kind; diff, diff_low, diff_high (simultaneous), p, holm
    final_money: pd.Series = None  # seats with each final score (its distribution)
    associations: int = 0  # association intervals of this player count (the Bonferroni family)
    design: str = ""  # who played, and for a pool how often each two met
    findings: Findings = field(default_factory=lambda: Findings([], [], []))
    gains: pd.DataFrame = None  # round x seat: coins earned that round minus the other seats' mean
    seat_ties: pd.DataFrame = None  # per seat: ties won and lost per game, by kind
    skill: dict | None = None  # with several strategies seated (``skill``)

    @property
    def association_confidence(self) -> float:
        """The confidence of each association interval, so that all of them hold together with
        probability 1 - ALPHA (Bonferroni)."""
        return 1 - ALPHA / max(self.associations, 1)


def seats(results: pd.DataFrame, players: int) -> tuple[pd.DataFrame, float]:
    wins = results.groupby("seat")["win_credit"].sum().reindex(range(players), fill_value=0)
    ci = inference.multinomial_intervals(wins.to_numpy())
    games = results["game"].nunique()
    table = pd.DataFrame({"seat": range(players), "wins": wins.to_numpy(),
                          "win_rate": wins.to_numpy() / games, "low": ci[:, 0], "high": ci[:, 1],
                          "fair": 1 / players})
    return table, inference.equal_chances(wins.to_numpy())


def tie_kinds(results: pd.DataFrame) -> tuple[str, ...]:
    """The tie counts that can be told apart. When every equal bid is also an equal room price
    (equal cards: the packaged data), the tie-breaker's two orders are the same ties in opposite
    directions (clockwise for tiles, counter-clockwise for tourists), so only their sum can be
    measured: ("build",), reported as "card". (A variant whose price ties go clockwise makes them
    the same ties in the same direction: joint too.)"""
    bw, bl = results["build_ties_won"], results["build_ties_lost"]
    pw, pl = results["price_ties_won"], results["price_ties_lost"]
    joint = bool(((bw == pl).all() and (bl == pw).all()) or ((bw == pw).all() and (bl == pl).all()))
    return ("build",) if joint else ("build", "price")


def ties(results: pd.DataFrame, confidence: float = 0.95) -> pd.DataFrame:
    """How seats that won one more tie and lost one fewer (as many ties in all) differ in final
    money (coins) and win share (points): beta_won - beta_lost from one OLS per outcome with seat
    dummies, errors clustered by game, with intervals at ``confidence`` and unadjusted p-values.

    An association, not what a tie is worth: the ties a seat meets and wins follow from its bids
    and its position, which also move its money, so a seat that won more ties differs in more than
    its ties (the regression holds the seat fixed, not the play)."""
    import statsmodels.api as sm

    kinds = tie_kinds(results)
    joint = len(kinds) == 1
    cols = [f"{k}_ties_{w}" for k in kinds for w in ("won", "lost")]
    seat = pd.get_dummies(results["seat"], prefix="seat", drop_first=True, dtype=float)
    x = sm.add_constant(pd.concat([results[cols].astype(float), seat], axis=1))
    fits = {y: sm.OLS(results[y].astype(float), x).fit(
        cov_type="cluster", cov_kwds={"groups": results["game"].to_numpy()})
        for y in ("score", "win_credit")}
    rows = []
    for kind in kinds:
        row = {"kind": "card" if joint else kind,
               "per_game": float(results[f"{kind}_ties_won"].mean())}
        for y, name, scale in (("score", "coins", 1.0), ("win_credit", "points", 100.0)):
            test = fits[y].t_test(f"{kind}_ties_won - {kind}_ties_lost = 0")
            low, high = test.conf_int(alpha=1 - confidence)[0]
            row.update({name: float(test.effect[0]) * scale, f"{name}_low": low * scale,
                        f"{name}_high": high * scale, f"{name}_p": float(test.pvalue)})
        rows.append(row)
    return pd.DataFrame(rows)


def money(results: pd.DataFrame) -> dict:
    per_game = results.groupby("game")
    top = per_game["score"].transform("max")
    at_top = results[results["score"] == top]
    tied = at_top.groupby("game").agg(seats=("seat", "size"), rooms=("free_rooms", "nunique"))
    spread = per_game["score"].max() - per_game["score"].min()
    q = results["score"].quantile([0.1, 0.25, 0.5, 0.75, 0.9])
    return {"mean": float(results["score"].mean()), "sd": float(results["score"].std()),
            **{f"q{int(k * 100)}": float(v) for k, v in q.items()},
            "spread_mean": float(spread.mean()), "spread_median": float(spread.median()),
            "draws": float((per_game["win_credit"].max() < 1).mean()),
            "top_tied": float((tied["seats"] > 1).mean()),
            "free_rooms_decides": float(((tied["seats"] > 1) & (tied["rooms"] > 1)).mean())}


def market(rounds: pd.DataFrame) -> pd.DataFrame:
    game_level = rounds[rounds["seat"] == 0].groupby("round")[
        ["arrived", "free_rooms", "turned_away"]].mean()
    income = rounds.sort_values(["game", "seat", "round"])
    earned = income.groupby(["game", "seat"])["income"].diff().fillna(income["income"])
    table = game_level.assign(earned=earned.groupby(income["round"]).mean(),
                              hosted=rounds.groupby("round")["hosted"].mean())
    return table.reset_index()


def buyer_difference(win_credit, buyer, game, confidence: float = 0.95) -> dict:
    """Win rate of buyers minus that of the other seats (fractions), from the OLS of the win
    credit on a buyer indicator, errors clustered by game: one value per seat and game.

    The seats of one game are not independent (one of them wins, and who buys what depends on
    the others' bids), so an interval that treats seat rows as independent (Welch) can be too
    narrow; the game is the independent unit. Returns diff, low, high, p (two-sided, unadjusted);
    NaN where every seat or none bought."""
    import statsmodels.api as sm

    y = np.asarray(win_credit, dtype=float)
    b = np.asarray(buyer, dtype=bool)
    if b.sum() < 2 or (~b).sum() < 2:
        nan = float("nan")
        return {"diff": nan, "low": nan, "high": nan, "p": nan}
    fit = sm.OLS(y, sm.add_constant(b.astype(float))).fit(
        cov_type="cluster", cov_kwds={"groups": np.asarray(game)})
    low, high = fit.conf_int(alpha=1 - confidence)[1]
    return {"diff": float(fit.params[1]), "low": float(low), "high": float(high),
            "p": float(fit.pvalues[1])}


def tiles(results: pd.DataFrame, rounds: pd.DataFrame, data: GameData,
          confidence: float = 0.95) -> pd.DataFrame:
    """Per tile kind bought: tiles bought, mean price paid (the buyer's bid), and the win rate of
    seats that bought one against those that did not (``buyer_difference``: clustered by game,
    interval at ``confidence``, unadjusted p). An association, not an effect: who buys is not
    random (strong positions bid more), so buyers differ in more than their tile."""
    bought = rounds[rounds["tile"] >= 0]
    paid = data.components.card_bid[bought["card"].to_numpy()]
    key = results.set_index(["game", "seat"])["win_credit"]
    rows = []
    for kind, name in enumerate(TILE_KINDS):
        mine = bought["tile"].to_numpy() == kind
        if not mine.any():
            continue
        buyers = pd.MultiIndex.from_arrays([bought["game"][mine], bought["seat"][mine]]).unique()
        is_buyer = key.index.isin(buyers)
        a, b = key[is_buyer].to_numpy(), key[~is_buyer].to_numpy()
        d = buyer_difference(key.to_numpy(), is_buyer, key.index.get_level_values("game"),
                             confidence)
        rows.append({"tile": name, "bought": int(mine.sum()), "price": float(paid[mine].mean()),
                     "buyer_win_rate": float(a.mean()),
                     "others_win_rate": float(b.mean()) if len(b) else float("nan"),
                     "diff": 100 * d["diff"], "diff_low": 100 * d["low"],
                     "diff_high": 100 * d["high"], "p": d["p"]})
    return pd.DataFrame(rows)


def association_count(results: pd.DataFrame, rounds: pd.DataFrame) -> int:
    """How many association intervals one player count reports: two per tie kind (coins and
    points) and one per tile kind bought. Known before fitting, so that each interval can be
    computed at the Bonferroni confidence directly."""
    return 2 * len(tie_kinds(results)) + int(rounds.loc[rounds["tile"] >= 0, "tile"].nunique())


def adjust(tie_table: pd.DataFrame, tile_table: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Holm-adjusted p-values over one player count's associations (tie coins and points, tiles)
    together: ``coins_holm``, ``points_holm`` and ``holm`` columns. A test without a p-value
    (no seat or every seat bought) is left out of the family."""
    tie_table, tile_table = tie_table.copy(), tile_table.copy()
    cells = [(tie_table, f"{c}_p", f"{c}_holm", i) for c in ("coins", "points")
             for i in tie_table.index] + [(tile_table, "p", "holm", i) for i in tile_table.index]
    for table, _, out, _ in cells:
        table[out] = np.nan
    p = np.array([table.at[i, col] for table, col, _, i in cells], dtype=float)
    known = ~np.isnan(p)
    adjusted = inference.holm(p[known])
    for (table, _, out, i), value in zip([c for c, k in zip(cells, known) if k], adjusted):
        table.at[i, out] = float(value)
    return tie_table, tile_table


def measure(results: pd.DataFrame, rounds: pd.DataFrame, data: GameData) -> PlayerCount:
    players = int(results["players"].iloc[0])
    seat_table, equal_p = seats(results, players)
    m = association_count(results, rounds)
    confidence = 1 - ALPHA / max(m, 1)
    tie_table, tile_table = adjust(ties(results, confidence),
                                   tiles(results, rounds, data, confidence))
    count = PlayerCount(players, int(results["game"].nunique()), seat_table, equal_p, tie_table,
                        money(results), market(rounds), tile_table,
                        results["score"].value_counts().sort_index(), m)
    count.findings = findings(count)
    count.design = design_line(results)
    count.gains = gains(rounds)
    count.seat_ties = results.groupby("seat")[[f"{k}_ties_{w}" for k in ("build", "price")
                                               for w in ("won", "lost")]].mean()
    count.skill = skill(results)
    return count


def gains(rounds: pd.DataFrame) -> pd.DataFrame:
    """Coins each seat earns in each round, minus the mean of the other seats (round x seat):
    where a seat's advantage is made."""
    income = rounds.sort_values(["game", "seat", "round"])
    earned = income.groupby(["game", "seat"])["income"].diff().fillna(income["income"])
    table = earned.groupby([income["round"], income["seat"]]).mean().unstack("seat")
    n = table.shape[1]
    others = (table.sum(axis=1).to_numpy()[:, None] - table) / (n - 1)
    return table - others


def skill(results: pd.DataFrame) -> dict | None:
    """How much is skill and how much is luck, where several strategies played: the win-rate
    spread between the strongest and the weakest (points), the share of the final scores' spread
    within a game that the strategies seated explain (their between-strategy share of the
    within-game variance: skill) and the share of all score variance that lies between games
    (the deal, and who sat at the table). None with one strategy."""
    names = results["strategy"].astype(str)
    if names.nunique() < 2:
        return None
    rate = results.groupby(names)["win_credit"].mean().sort_values()
    score = results["score"].astype(float)
    within = score - score.groupby(results["game"]).transform("mean")
    by_strategy = within.groupby(names).transform("mean")
    total = float(((score - score.mean()) ** 2).sum())
    return {"strongest": str(rate.index[-1]), "weakest": str(rate.index[0]),
            "spread": 100 * float(rate.iloc[-1] - rate.iloc[0]),
            "skill_share": float((by_strategy ** 2).sum() / (within ** 2).sum()),
            "deal_share": float(1 - (within ** 2).sum() / total) if total else 0.0}


def schedule(players: int, start: int, clockwise: bool, rounds: int, doubles) -> pd.DataFrame:
    """Per round: where the tie-breaker card lies (t: before seat t), the seat first in tile
    offers among equal bids (t) and first in tourist offers among equal prices (t - 1, or t
    where price ties go clockwise); ``double``: the rounds with double arrivals."""
    t = [(start + r) % players for r in range(rounds)]
    return pd.DataFrame({"round": range(1, rounds + 1), "t": t, "tiles_first": t,
                         "tourists_first": [x if clockwise else (x - 1) % players for x in t],
                         "double": [r + 1 in doubles for r in range(rounds)]})


def explain(players: int, seat: int, count: "PlayerCount", data: GameData, top: int = 3) -> str:
    """Where a seat's effect under one population comes from: the rounds in which it earns most
    against the others (the double rounds?), its ties won and lost per game against the average
    seat, and where the tie-breaker card puts it first."""
    c = data.components
    g = count.gains[seat].sort_values(key=lambda x: -x.abs())
    rounds = ", ".join(f"{int(r)} ({v:+.1f})" for r, v in g.head(top).items())
    ties = count.seat_ties
    rel = ties.loc[seat] - ties.mean()
    sched = schedule(players, int(c.tiebreak_start[players]), bool(c.price_clockwise[players]),
                     c.rounds, set(np.flatnonzero(c.round_factor > 1) + 1))
    tiles = [int(r) for r in sched.loc[sched["tiles_first"] == seat, "round"]]
    tourists = [int(r) for r in sched.loc[sched["tourists_first"] == seat, "round"]]
    return (f"its earnings differ most from the other seats' in rounds {rounds} coins; ties won "
            f"/ lost per game against the average seat: equal bids {rel['build_ties_won']:+.2f} / "
            f"{rel['build_ties_lost']:+.2f}, equal prices {rel['price_ties_won']:+.2f} / "
            f"{rel['price_ties_lost']:+.2f}; the card puts it first for tiles in rounds "
            f"{', '.join(map(str, tiles)) or '–'} and for tourists in rounds "
            f"{', '.join(map(str, tourists)) or '–'}")


def design_line(results: pd.DataFrame) -> str:
    """Who played: one strategy everywhere, or a pool and how often each two of it met."""
    from samsim.stats.tally import Tally

    names = results["strategy"].astype(str).unique()
    if len(names) == 1:
        return f"{names[0]} in every seat"
    met = Tally().add(results).meetings["n"]
    pairs = met[[a != b for _, a, b in met.index]]
    each = (f"every two met in {int(pairs.min()):,} games" if pairs.min() == pairs.max() else
            f"pairs met in {int(pairs.min()):,} to {int(pairs.max()):,} games: unbalanced")
    return f"pool of {len(names)} seated by the balanced design; {each}"


def worst_seat(seats: pd.DataFrame) -> pd.Series:
    """The seat farthest from the fair share: its row, with ``dev`` (points) and whether its
    simultaneous interval excludes the fair share (``beyond_chance``)."""
    dev = seats.assign(dev=100 * (seats["win_rate"] - seats["fair"]))
    dev["beyond_chance"] = ~((dev["low"] <= dev["fair"]) & (dev["fair"] <= dev["high"]))
    return dev.loc[dev["dev"].abs().idxmax()]


TIE_WHAT = {"build": "equal bids (tile offers)", "price": "equal room prices (tourist offers)",
            "card": "equal cards (offered tiles first, so tourists last)"}
TIE_CAVEAT = ("association, not an effect: the ties a seat meets and wins follow from its bids "
              "and position")


def _size(x: float) -> float:
    return 0.0 if np.isnan(x) else abs(x)


def findings(c: PlayerCount) -> Findings:
    """Every imbalance as (size in points of win rate, sentence), by kind, largest first."""
    effects, associations = [], []
    worst = worst_seat(c.seats)
    sure = worst["beyond_chance"]
    effects.append((abs(worst["dev"]),
                    f"{c.players} players: seat {int(worst['seat'])} wins "
                    f"{100 * worst['win_rate']:.1f}% ({100 * worst['low']:.1f}–"
                    f"{100 * worst['high']:.1f}%, simultaneous) against a fair "
                    f"{100 / c.players:.1f}%: {worst['dev']:+.1f} points"
                    f"{'' if sure else ', within chance'}; equal chances "
                    f"{inference.format_p(c.equal_p, 'p')}"))
    level = f"{100 * c.association_confidence:.2f}%"
    for _, t in c.ties.iterrows():
        associations.append((
            _size(t["points"]),
            f"{c.players} players: among seats with as many ties on {TIE_WHAT[t['kind']]}, "
            f"those that won one more and lost one fewer finished {t['points']:+.1f} points of "
            f"win rate ({t['points_low']:+.1f} to {t['points_high']:+.1f}, {level} "
            f"simultaneous; {inference.format_p(t['points_holm'], 'Holm p')}) and "
            f"{t['coins']:+.1f} coins; {t['per_game']:.1f} such ties won per seat and game "
            f"({TIE_CAVEAT})"))
    tested = c.tiles[c.tiles["p"].notna()] if len(c.tiles) else c.tiles  # NaN: < 2 (non-)buyers
    for _, t in tested.iterrows():
        associations.append((
            _size(t["diff"]),
            f"{c.players} players: seats that bought {'an' if t['tile'][0] in 'aeiou' else 'a'} "
            f"{t['tile']} tile (mean price {t['price']:.1f}) win "
            f"{100 * t['buyer_win_rate']:.1f}% against "
            f"{100 * t['others_win_rate']:.1f}% for the others ({t['diff']:+.1f} points, "
            f"{t['diff_low']:+.1f} to {t['diff_high']:+.1f}, {level} simultaneous; Holm "
            f"{inference.format_p(t['holm'], 'p')}; association, not an effect: who buys is not "
            f"random)"))
    m = c.money
    facts = [(0.0, f"{c.players} players: the free-rooms tie-break decides "
                   f"{100 * m['free_rooms_decides']:.2f}% of games; {100 * m['draws']:.2f}% "
                   f"end in a draw")]
    return Findings(sorted(effects, key=lambda f: -f[0]),
                    sorted(associations, key=lambda f: -f[0]), facts)


def check_games(games: int, name: str = "--games") -> None:
    if games < MIN_GAMES:
        raise ValueError(f"{name}: a balance needs at least {MIN_GAMES} games per player count "
                         f"(got {games:,}): with fewer its intervals do not hold")


def lineups(players, strategy: str = "greedy", pool=None, games: int = 0,
            population=None) -> list:
    """(player count, line-up, games) of each count: ``strategy`` in every seat, or ``pool``
    seated by the balanced design, or a ``samsim.engine.populations.Population``'s (``games``
    rounded up to whole passes)."""
    from samsim.engine.designs import pool_design, whole_passes
    from samsim.engine.lineup import lineup

    check_games(games)
    out = []
    for n in players:
        seats = population.lineup(n) if population is not None else \
            pool_design(n, pool) if pool else lineup(n, strategy)
        out.append((n, seats, whole_passes(games, seats)))
    return out


def run(players=(3, 4, 5, 6), games: int = 20_000, seed: int = 7, strategy: str = "greedy",
        pool=None, data: GameData | None = None, threads=None, out=None, resume: bool = False,
        overwrite: bool = False, status=lambda players: None,
        progress=None, population=None) -> list[PlayerCount]:
    """Play and measure each player count (``lineups``). With ``out``, the games are kept in
    run folders ``out/<N>p/`` (resumable, as ``samsim simulate``'s); without, in a temporary
    folder. ``progress(n)``: as ``samsim.runs.results.run_simulation``'s, over all counts."""
    import tempfile
    from pathlib import Path

    from samsim import components
    from samsim.runs import results

    data = data or components.load()
    counts = []
    with tempfile.TemporaryDirectory(prefix="samsim-balance-") as tmp:
        root = Path(out) if out is not None else Path(tmp)
        for n, seats, total in lineups(players, strategy, pool, games, population):
            status(n)
            folder = root / f"{n}p"
            results.run_simulation(total, n, seed, data, threads=threads, out=folder,
                                   strategies=seats, record=("rounds",), resume=resume,
                                   overwrite=overwrite, progress=progress)
            counts.append(measure(results.load(folder), results.load(folder, "rounds"), data))
            if population is not None and population.mix:
                counts[-1].design = population.describe()  # pairs meet by chance, by design
    return counts


# ------------------------------------------------------------------------------ populations

@dataclass
class Robustness:
    """One player count's seat effects across the populations (``samsim.stats.seats``)."""

    players: int
    populations: list[str]
    games: list[int]
    margin: float  # points of win rate
    seats: list  # SeatVerdict per seat
    wins: np.ndarray  # [population, seat]: win credit

    @property
    def verdict(self) -> str:
        from samsim.stats.seats import table_verdict

        return table_verdict(self.seats)


def robustness(measured: dict[str, list[PlayerCount]], margin: float) -> list[Robustness]:
    """Per player count, each seat's verdict over the populations ``measured`` (name -> its
    player counts, in the same order for every population)."""
    from samsim.stats.seats import seat_verdicts

    names = list(measured)
    out = []
    for k, first in enumerate(measured[names[0]]):
        counts = [measured[name][k] for name in names]
        wins = np.array([c.seats["wins"].to_numpy() for c in counts])
        games = [c.games for c in counts]
        out.append(Robustness(first.players, names, games, margin,
                              seat_verdicts(wins, games, margin, ALPHA), wins))
    return out


def run_populations(populations, players=(3, 4, 5, 6), games: int = 20_000, seed: int = 7,
                    margin: float = 2.0, data: GameData | None = None, threads=None, out=None,
                    resume: bool = False, overwrite: bool = False,
                    status=lambda population, players: None, progress=None):
    """``run`` for each population (``samsim.engine.populations``), the games of each in
    ``out/<population>/<N>p/``, on the same seed (so mirrors of one deal meet the same deals);
    returns (population name -> its player counts, the robustness per player count)."""
    from pathlib import Path

    measured = {}
    for population in populations:
        folder = None if out is None else Path(out) / population.folder
        measured[population.name] = run(
            players, games, seed, data=data, threads=threads, out=folder, resume=resume,
            overwrite=overwrite, status=lambda n, name=population.name: status(name, n),
            progress=progress, population=population)
    return measured, robustness(measured, margin)


__all__ = ["ALPHA", "Findings", "PlayerCount", "adjust", "association_count", "buyer_difference",
           "findings", "lineups", "market", "measure", "money", "run", "Robustness", "robustness",
           "explain", "gains", "schedule", "skill",
           "run_populations", "seats", "tie_kinds", "ties",
           "tiles", "worst_seat"]
