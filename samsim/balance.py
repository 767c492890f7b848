"""Is the game fair at 3, 4, 5 and 6 players? What decides it besides play?

For each player count, games with a stated strategy in every seat (the same one by default, so
that any seat effect is the game's, not the strategies') are measured for:

* seats: win rate per seat (position from the tie-breaker card's starting place) against the fair
  share 1/N, simultaneous multinomial intervals and a chi-square test of equal chances;
* ties: what winning a tie the tie-breaker card settles is worth (equal bids: who is offered a
  tile first; equal room prices: who is offered tourists first), from a regression of final
  money and win share on ties won and lost, with errors clustered by game;
* money: final money quantiles, the winner-to-last spread, draws, and how often the free-rooms
  tie-break decides the winner;
* market: tourists arriving against free rooms, tourists turned away, money earned, per round
  (rounds 6 and 12 bring double arrivals);
* tiles: price paid per tile kind against the buyers' win rate.

Findings are ranked by their size in points of win rate, largest first. Everything here is
conditional on the strategies played: a seat advantage against greedy players may vanish
against cautious ones.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from samsim import inference
from samsim.components import TILE_KINDS, GameData


@dataclass
class PlayerCount:
    """The measurements at one table size."""

    players: int
    games: int
    seats: pd.DataFrame  # seat, wins, win_rate, low, high (simultaneous), fair
    equal_p: float
    ties: pd.DataFrame  # kind, per_game, coins, coins_low, coins_high, points, points_low, points_high
    money: dict  # quantiles, spread, draws, free_rooms_decides
    market: pd.DataFrame  # per round
    tiles: pd.DataFrame  # per tile kind
    final_money: pd.Series = None  # seats with each final score (its distribution)
    findings: list[tuple[float, str]] = field(default_factory=list)  # (size in points, text)


def seats(results: pd.DataFrame, players: int) -> tuple[pd.DataFrame, float]:
    wins = results.groupby("seat")["win_credit"].sum().reindex(range(players), fill_value=0)
    ci = inference.multinomial_intervals(wins.to_numpy())
    games = results["game"].nunique()
    table = pd.DataFrame({"seat": range(players), "wins": wins.to_numpy(),
                          "win_rate": wins.to_numpy() / games, "low": ci[:, 0], "high": ci[:, 1],
                          "fair": 1 / players})
    return table, inference.equal_chances(wins.to_numpy())


def ties(results: pd.DataFrame) -> pd.DataFrame:
    """Worth of a won tie over a lost one (beta_won - beta_lost), in coins of final money and
    points of win share, from one OLS per outcome with seat dummies, clustered by game.

    When every equal bid is also an equal room price (equal cards: the packaged data), the
    tie-breaker's two orders are the same ties in opposite directions (clockwise for tiles,
    counter-clockwise for tourists), so only their sum can be measured: one row, "card"."""
    import statsmodels.api as sm

    joint = bool((results["build_ties_won"] == results["price_ties_lost"]).all()
                 and (results["build_ties_lost"] == results["price_ties_won"]).all())
    kinds = ("build",) if joint else ("build", "price")
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
            low, high = test.conf_int()[0]
            row.update({name: float(test.effect[0]) * scale, f"{name}_low": low * scale,
                        f"{name}_high": high * scale})
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


def tiles(results: pd.DataFrame, rounds: pd.DataFrame, data: GameData) -> pd.DataFrame:
    """Per tile kind: tiles bought, mean price paid (the buyer's bid), and the win rate of seats
    that bought one against those that did not (an association, not an effect: strong players
    may buy more)."""
    from statsmodels.stats.weightstats import CompareMeans

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
        low, high = CompareMeans.from_data(a, b).tconfint_diff(usevar="unequal") \
            if len(b) > 1 and len(a) > 1 else (np.nan, np.nan)
        rows.append({"tile": name, "bought": int(mine.sum()), "price": float(paid[mine].mean()),
                     "buyer_win_rate": float(a.mean()), "others_win_rate": float(b.mean()),
                     "diff": 100 * float(a.mean() - b.mean()), "diff_low": 100 * low,
                     "diff_high": 100 * high})
    return pd.DataFrame(rows)


def measure(results: pd.DataFrame, rounds: pd.DataFrame, data: GameData) -> PlayerCount:
    players = int(results["players"].iloc[0])
    seat_table, equal_p = seats(results, players)
    count = PlayerCount(players, int(results["game"].nunique()), seat_table, equal_p,
                        ties(results), money(results), market(rounds), tiles(results, rounds, data),
                        results["score"].value_counts().sort_index())
    count.findings = findings(count)
    return count


def worst_seat(seats: pd.DataFrame) -> pd.Series:
    """The seat farthest from the fair share: its row, with ``dev`` (points) and whether its
    simultaneous interval excludes the fair share (``beyond_chance``)."""
    dev = seats.assign(dev=100 * (seats["win_rate"] - seats["fair"]))
    dev["beyond_chance"] = ~((dev["low"] <= dev["fair"]) & (dev["fair"] <= dev["high"]))
    return dev.loc[dev["dev"].abs().idxmax()]


def findings(c: PlayerCount) -> list[tuple[float, str]]:
    """Every imbalance as (size in points of win rate, sentence), largest first."""
    out = []
    worst = worst_seat(c.seats)
    sure = worst["beyond_chance"]
    out.append((abs(worst["dev"]),
                f"{c.players} players: seat {int(worst['seat'])} wins {100 * worst['win_rate']:.1f}% "
                f"({100 * worst['low']:.1f}–{100 * worst['high']:.1f}%, simultaneous) against a "
                f"fair {100 / c.players:.1f}%: {worst['dev']:+.1f} points"
                f"{'' if sure else ', within chance'}; equal chances p={c.equal_p:.2g}"))
    for _, t in c.ties.iterrows():
        what = {"build": "an equal bid (tile offers)",
                "price": "an equal room price (tourist offers)",
                "card": "an equal card (offered tiles first, so tourists last)"}[t["kind"]]
        out.append((abs(t["points"]),
                    f"{c.players} players: winning the tie-break on {what} rather than losing it "
                    f"is worth {t['points']:+.1f} points of win rate ({t['points_low']:+.1f} to "
                    f"{t['points_high']:+.1f}) and {t['coins']:+.1f} coins; "
                    f"{t['per_game']:.1f} such ties won per seat and game"))
    for _, t in c.tiles.iterrows():
        out.append((abs(t["diff"]),
                    f"{c.players} players: seats that bought a {t['tile']} tile (mean price "
                    f"{t['price']:.1f}) win {100 * t['buyer_win_rate']:.1f}% against "
                    f"{100 * t['others_win_rate']:.1f}% for the others ({t['diff']:+.1f} points, "
                    f"{t['diff_low']:+.1f} to {t['diff_high']:+.1f}; association)"))
    m = c.money
    out.append((0.0, f"{c.players} players: the free-rooms tie-break decides "
                     f"{100 * m['free_rooms_decides']:.2f}% of games; {100 * m['draws']:.2f}% "
                     f"end in a draw"))
    return sorted(out, key=lambda f: -f[0])


def run(players=(3, 4, 5, 6), games: int = 20_000, seed: int = 7, strategy: str = "greedy",
        pool=None, data: GameData | None = None, threads=None, out=None, resume: bool = False,
        overwrite: bool = False, status=lambda players: None) -> list[PlayerCount]:
    """Play and measure each player count: ``strategy`` in every seat, or ``pool`` rotated
    through the seats. With ``out``, the games are kept in run folders ``out/<N>p/`` (resumable,
    as ``samsim simulate``'s); without, in a temporary folder."""
    import tempfile
    from pathlib import Path

    from samsim import components, results
    from samsim.strategy import lineup, rotation

    data = data or components.load()
    counts = []
    with tempfile.TemporaryDirectory(prefix="samsim-balance-") as tmp:
        root = Path(out) if out is not None else Path(tmp)
        for n in players:
            status(n)
            seats = rotation(n, pool) if pool else lineup(n, strategy)
            folder = root / f"{n}p"
            results.run_simulation(games, n, seed, data, threads=threads, out=folder,
                                   strategies=seats, record=("rounds",), resume=resume,
                                   overwrite=overwrite)
            counts.append(measure(results.load(folder), results.load(folder, "rounds"), data))
    return counts


__all__ = ["run", "worst_seat", "PlayerCount", "measure", "seats", "ties", "money", "market", "tiles", "findings"]
