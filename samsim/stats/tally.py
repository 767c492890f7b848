"""Win rates with honest intervals, and the counts every summary of a run is computed from.

Wins are counted as win credit: a draw between k seats gives each 1/k of a win, so the win counts
of a game add up to exactly 1 and a seat's win rate is an unbiased share of the games. The interval
is Wilson's score interval, which unlike the normal approximation stays inside [0, 1] and keeps its
coverage for rare winners and small runs; it accepts the fractional counts draws produce.

A ``Tally`` keeps, chunk by chunk, how many seats of each (player count, strategy, seat) ended
with each final score, and how many games ended with each winner-to-last spread. Scores are small
integers, so these tables stay a few thousand rows however many games are added, and every
figure of a report (means, exact medians and quantiles, standard deviations, win rates) follows
from them: ten million games are summarised in the memory of one chunk.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from samsim.stats.inference import ChunkStats


def wilson_interval(successes, n, confidence: float = 0.95) -> tuple[np.ndarray, np.ndarray]:
    """Wilson score interval for a proportion ``successes / n`` (array-like, fractions allowed)."""
    from scipy.stats import norm

    if not 0 < confidence < 1:
        raise ValueError(f"confidence must lie strictly between 0 and 1, got {confidence!r}")
    k = np.asarray(successes, dtype=float)
    n = np.asarray(n, dtype=float)
    if np.any(n <= 0) or np.any(k < 0) or np.any(k > n):
        raise ValueError("need 0 <= successes <= n and n > 0")
    z = norm.ppf(0.5 + confidence / 2)
    p = k / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z / denom * np.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    return np.clip(centre - half, 0, 1), np.clip(centre + half, 0, 1)


def clustered_rate(units, y, x, yy, xx, xy, confidence: float = 0.95):
    """A win rate sum(y) / sum(x) over independent units (games, or duplicate groups) that each
    hold x seats of the strategy with y wins between them, and its interval.

    Seats of one game are not independent (one of them wins), so the standard error is the ratio
    estimator's, from the units' spread (the sums of y^2, x^2 and xy over units); the interval is
    Wilson's at the effective sample size that standard error implies, so it stays inside [0, 1]
    and is Wilson's own when every unit holds one seat. Arrays in, arrays (rate, low, high) out."""
    units, y, x, yy, xx, xy = (np.asarray(v, dtype=float) for v in (units, y, x, yy, xx, xy))
    rate = y / x
    spread = np.maximum(yy - 2 * rate * xy + rate ** 2 * xx, 0)  # sum of (y - rate x)^2
    var = np.where(units > 1, spread * units / np.maximum(units - 1, 1) / x ** 2, np.inf)
    with np.errstate(divide="ignore", invalid="ignore"):
        n_eff = np.where(var > 0, rate * (1 - rate) / var, x)
    n_eff = np.clip(np.where(np.isfinite(n_eff) & (n_eff > 0), n_eff, np.minimum(x, 1)), 1e-9, None)
    low, high = wilson_interval(np.clip(rate, 0, 1) * n_eff, n_eff, confidence)
    return rate, low, high


_SEATS = ["players", "strategy", "seat", "score"]
_UNITS = ["players", "strategy"]  # a strategy's seats of one game are one unit (clustered)
_GAMES = ["players", "spread", "draw"]
_ROUNDS = ["players", "strategy", "round"]


class Tally:
    """Counts of a run's results, added chunk by chunk (``add``, ``add_rounds``) or merged
    (``merge``); ``summary``, ``game_summary`` and ``round_summary`` turn them into tables.

    ``meta`` holds the configuration of what was tallied (set by whoever fills it)."""

    def __init__(self):
        self._parts: dict[str, list[pd.DataFrame]] = {"seats": [], "games": [], "rounds": [],
                                                      "units": [], "meetings": []}
        self.meta: dict = {}
        #: per (source, players): each chunk's games as units of win credit per seat
        self.chunks: dict[tuple[str, int], ChunkStats] = {}

    def _push(self, name: str, counts: pd.DataFrame) -> None:
        parts = self._parts[name]
        parts.append(counts)
        if len(parts) >= 64:  # fold now and then: memory stays at the table's size
            self._parts[name] = [self._table(name)]

    def _table(self, name: str) -> pd.DataFrame:
        parts = self._parts[name]
        if not parts:
            return pd.DataFrame()
        keys = list(parts[0].index.names)
        return pd.concat(parts).groupby(level=keys, observed=True, sort=True).sum()

    def add(self, results: pd.DataFrame, source: str = "") -> "Tally":
        """Count a frame of whole games in the ``results`` layout (``samsim.runs.schema``): one chunk
        of the run ``source``."""
        if results.empty:
            return self
        for players, part in results.groupby("players", sort=True):
            credit = part.pivot(index="game", columns="seat", values="win_credit").fillna(0)
            self.chunks.setdefault((source, int(players)), ChunkStats()).add(credit.to_numpy())
        strategy = results["strategy"].astype(str)
        seats = results.assign(strategy=strategy, n=1, wins_sq=results["win_credit"] ** 2
                               ).groupby(_SEATS, sort=False)
        self._push("seats", seats.agg(n=("n", "sum"), wins=("win_credit", "sum"),
                                      wins_sq=("wins_sq", "sum")))
        unit = results.assign(strategy=strategy, x=1).groupby(
            ["players", "strategy", "game"], sort=False, observed=True)[["win_credit", "x"]].sum()
        y, x = unit["win_credit"], unit["x"]
        sums = pd.DataFrame({"units": 1, "y": y, "x": x, "yy": y * y, "xx": x * x, "xy": x * y})
        self._push("units", sums.groupby(level=_UNITS, sort=False).sum())
        for players, part in unit.groupby(level="players", sort=False):
            present = (part["x"].unstack("strategy", fill_value=0) > 0).astype(np.int64)
            met = present.T @ present  # games in which each two strategies sat together
            met.index.name, met.columns.name = "a", "b"
            self._push("meetings", met.stack().rename("n").to_frame().assign(
                players=int(players)).set_index("players", append=True)
                .reorder_levels(["players", "a", "b"]))
        per_game = results.groupby("game", sort=False).agg(
            players=("players", "first"), high=("score", "max"), low=("score", "min"),
            top=("win_credit", "max"))
        games = pd.DataFrame({"players": per_game["players"],
                              "spread": per_game["high"] - per_game["low"],
                              "draw": per_game["top"] < 1, "n": 1})
        self._push("games", games.groupby(_GAMES, sort=False).agg(n=("n", "sum")))
        return self

    def add_rounds(self, rounds: pd.DataFrame) -> "Tally":
        """Count a frame in the ``rounds`` layout: money, rooms filled and hosting per round."""
        if rounds.empty:
            return self
        money = rounds["money"].astype(np.int64)
        frame = rounds.assign(strategy=rounds["strategy"].astype(str), n=1, money=money,
                              money_sq=money ** 2, tiles=(rounds["tile"] >= 0).astype(np.int64))
        columns = ["n", "money", "money_sq", "rooms_filled", "hosted", "tiles"]
        self._push("rounds", frame.groupby(_ROUNDS, sort=False)[columns].sum())
        return self

    def merge(self, other: "Tally") -> "Tally":
        for name, parts in other._parts.items():
            for part in parts:
                self._push(name, part)
        for key, chunks in other.chunks.items():
            self.chunks.setdefault(key, ChunkStats()).extend(chunks)
        return self

    def chunk_checks(self) -> list[tuple[str, int, object]]:
        """(source, players, ``inference.ChunkCheck``) for every run and player count with two
        or more chunks: do the chunks' seat win rates agree with each other (games as units)?"""
        return [(source, players, chunks.check()) for (source, players), chunks
                in self.chunks.items() if len(chunks.n) >= 2]

    @property
    def seats(self) -> pd.DataFrame:
        """Seats ending with each score: index (players, strategy, seat, score), columns n, wins."""
        return self._table("seats")

    @property
    def games(self) -> pd.DataFrame:
        """Games by winner-to-last spread and draw: index (players, spread, draw), column n."""
        return self._table("games")

    @property
    def rounds(self) -> pd.DataFrame:
        """Per-round sums: index (players, strategy, round), columns n, money, money_sq,
        rooms_filled, hosted, tiles. Empty unless rounds were recorded."""
        return self._table("rounds")

    @property
    def units(self) -> pd.DataFrame:
        """Per (players, strategy), over the games it played: games, and the sums over games of
        y (its win credit), x (its seats) and their squares and product: what a win rate's
        game-clustered interval needs (``clustered_rate``)."""
        return self._table("units")

    @property
    def meetings(self) -> pd.DataFrame:
        """Games in which each two strategies met: index (players, a, b), column n."""
        return self._table("meetings")

    @property
    def n_games(self) -> int:
        games = self.games
        return int(games["n"].sum()) if len(games) else 0

    def summary(self, by=("players", "strategy"), confidence: float = 0.95) -> pd.DataFrame:
        """One row per group (``by``: any of players, strategy, seat): seat-games, wins (draws
        shared), win rate with its interval, and the final score's mean, median, standard
        deviation and 10%/90% quantiles.

        The interval treats games, not seats, as independent: a strategy holding several seats of
        a game has one winner or none among them, so its seats' results are correlated
        (``clustered_rate``; with one seat per game, as by seat, this is Wilson's interval)."""
        seats = self.seats
        if seats.empty:
            raise ValueError("nothing tallied yet")
        by = list(by)
        rows = {}
        for key, group in seats.groupby(level=by, observed=True, sort=True):
            scores = group.index.get_level_values("score").to_numpy()
            counts = group["n"].to_numpy()
            order = np.argsort(scores, kind="stable")
            rows[key] = {"games": int(counts.sum()), "wins": float(group["wins"].sum()),
                         **_distribution(scores[order], counts[order])}
        out = pd.DataFrame.from_dict(rows, orient="index")
        out.index = pd.MultiIndex.from_tuples(out.index, names=by) if len(by) > 1 else \
            pd.Index([k[0] if isinstance(k, tuple) else k for k in out.index], name=by[0])
        out.insert(2, "win_rate", out["wins"] / out["games"])
        low, high = self._interval(out, by, confidence)
        out.insert(3, "win_low", low)
        out.insert(4, "win_high", high)
        out.attrs["confidence"] = confidence
        return out

    def _interval(self, out: pd.DataFrame, by: list[str], confidence: float):
        if "seat" in by:  # one seat per game and group: each seat-game is its own unit
            wins_sq = self.seats["wins_sq"].groupby(level=by, observed=True, sort=True).sum()
            n, y = out["games"].to_numpy(), out["wins"].to_numpy()
            _, low, high = clustered_rate(n, y, n, wins_sq.reindex(out.index).to_numpy(), n, y,
                                          confidence)
            return low, high
        if set(by) - set(_UNITS):
            raise ValueError(f"summary by {by}: group by players, strategy and seat only")
        units = self.units.groupby(level=by, observed=True, sort=True).sum().reindex(out.index)
        _, low, high = clustered_rate(units["units"], units["y"], units["x"], units["yy"],
                                      units["xx"], units["xy"], confidence)
        return np.asarray(low), np.asarray(high)

    def game_summary(self) -> pd.DataFrame:
        """Per player count: games, share of draws, and the winner-to-last spread of final score
        (mean, median, 90% quantile)."""
        games = self.games
        rows = {}
        for players, group in games.groupby(level="players", sort=True):
            n = group["n"].to_numpy()
            spreads = group.index.get_level_values("spread").to_numpy()
            draws = group.index.get_level_values("draw").to_numpy().astype(bool)
            order = np.argsort(spreads, kind="stable")
            dist = _distribution(spreads[order], n[order])
            rows[players] = {"games": int(n.sum()), "draws": float(n[draws].sum() / n.sum()),
                             "spread_mean": dist["mean"], "spread_median": dist["median"],
                             "spread_q90": dist["q90"]}
        out = pd.DataFrame.from_dict(rows, orient="index")
        out.index.name = "players"
        return out

    def round_summary(self) -> pd.DataFrame:
        """Per (players, strategy, round): mean money (and its standard deviation), mean rooms
        filled, mean tourists hosted, share of seats buying a tile."""
        rounds = self.rounds
        if rounds.empty:
            return rounds
        n = rounds["n"]
        mean = rounds["money"] / n
        return pd.DataFrame({
            "seats": n, "money": mean,
            "money_sd": np.sqrt(np.maximum(rounds["money_sq"] / n - mean ** 2, 0)),
            "rooms_filled": rounds["rooms_filled"] / n, "hosted": rounds["hosted"] / n,
            "bought_tile": rounds["tiles"] / n,
        })


def _distribution(values: np.ndarray, counts: np.ndarray) -> dict:
    """Mean, standard deviation, median and 10%/90% quantiles of ``values`` (sorted) each seen
    ``counts`` times; the median and quantiles are numpy's (linear interpolation)."""
    total = counts.sum()
    mean = float((values * counts).sum() / total)
    var = float(((values - mean) ** 2 * counts).sum() / max(total - 1, 1))
    ends = np.cumsum(counts)  # the sorted sample's positions ends[i-1] .. ends[i]-1 hold values[i]

    def quantile(q):
        pos = q * (total - 1)
        lo, hi = int(np.floor(pos)), int(np.ceil(pos))
        a = values[np.searchsorted(ends, lo, side="right")]
        b = values[np.searchsorted(ends, hi, side="right")]
        return float(a + (b - a) * (pos - lo))

    return {"mean": mean, "median": quantile(0.5), "sd": var ** 0.5, "q10": quantile(0.1),
            "q90": quantile(0.9)}


def tally(results: pd.DataFrame, rounds: pd.DataFrame | None = None) -> Tally:
    """A ``Tally`` of frames in memory (``samsim.simulate``'s, or ``samsim.load``'s)."""
    out = Tally().add(results)
    if rounds is not None:
        out.add_rounds(rounds)
    return out


__all__ = ["wilson_interval", "clustered_rate", "Tally", "tally"]
