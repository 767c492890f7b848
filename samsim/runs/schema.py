"""The results schema: the columns of every table samsim writes, their dtypes, units and meaning.

Users' notebooks and scripts read these files for years, so the layout is defined once, here, and
changed only by adding columns (``SCHEMA_VERSION`` counts such changes). The README's schema tables
are generated from these definitions and a test keeps them in step.

Two tables, both one row per game and seat (long format: a ``groupby`` away from any summary, and
the same layout at 3 and 6 players):

* ``results``: how each seat's game ended;
* ``rounds`` (only with ``--record rounds``): the seat's position at the end of every round.

Dtypes are the smallest that hold every legal value, so that ten million games fit in memory;
``strategy`` is categorical (Parquet dictionary-encoded), in line-up order.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
import pandas as pd

from samsim.components import MONEY_DTYPE as MONEY
from samsim.components import ROUND_COUNT_DTYPES as COUNTS

#: Bumped when a column is added; existing columns never change meaning or dtype.
SCHEMA_VERSION = 2


class Column(NamedTuple):
    name: str
    dtype: str  # a numpy dtype name, or "category"
    unit: str
    meaning: str
    since: int = 1  # the schema version that added the column (older files lack it)


_KEYS = (
    Column("game", "int64", "id", "game id in the run: the deal and every decision are keyed by "
           "(seed, game), so a game can be played again alone (`samsim play --seed S --game G`)"),
    Column("seat", "int8", "0..N-1", "seat, clockwise; the tie-breaker card starts between seat "
           "N-1 and seat 0 (so seat 0 wins the first build ties)"),
    Column("players", "int8", "3..6", "players in the game (N)"),
    Column("strategy", "category", "spec", "strategy of the seat, as a spec: `undercut(margin=2)`"),
)

RESULTS = _KEYS + (
    Column("money", MONEY, "coins", "money at the end"),
    Column("score", MONEY, "coins", "final money counting each unused special tile as 3 coins: "
           "what decides the winner"),
    Column("free_rooms", "int8", "rooms", "free rooms at the end (the first tie-break)"),
    Column("rank", "int8", "1..N", "1 = winner; tied seats share the better rank"),
    Column("win_credit", "float64", "wins", "1/k for each of k tied winners, else 0: a game's "
           "credits add up to one win"),
    Column("tiles_bought", COUNTS["tiles_bought"], "tiles", "build tiles bought over the game"),
    Column("tourists_hosted", COUNTS["tourists_hosted"], "tourists", "tourists hosted over the game"),
    Column("income", MONEY, "coins", "money earned from guests and pool bonuses"),
    Column("spent", MONEY, "coins", "money paid for build tiles"),
    Column("build_ties_won", COUNTS["build_ties_won"], "ties", "rivals with the same bid that the tie-breaker card "
           "put after this seat for the tile offers, summed over the rounds", 2),
    Column("build_ties_lost", COUNTS["build_ties_lost"], "ties", "rivals with the same bid put before this seat", 2),
    Column("price_ties_won", COUNTS["price_ties_won"], "ties", "rivals with the same room price that the "
           "tie-breaker card put after this seat for the tourist offers, summed over the rounds", 2),
    Column("price_ties_lost", COUNTS["price_ties_lost"], "ties", "rivals with the same room price put before this "
           "seat", 2),
)

ROUNDS = _KEYS + (
    Column("round", COUNTS["round"], "1..12", "the round"),
    Column("money", MONEY, "coins", "money at the end of the round"),
    Column("rooms_filled", "int8", "rooms", "rooms holding a tourist at the end of the round"),
    Column("card", "int8", "card", "price card played, after any SWITCH: its index in the data "
           "file's price cards (the last is Staff holiday)"),
    Column("tile", "int8", "kind", "build tile bought: index into extra_room, suite, pool, switch, "
           "send_home, recall; -1 = none"),
    Column("hosted", "int8", "tourists", "tourists hosted in the round"),
    Column("income", MONEY, "coins", "money earned from guests and pool bonuses so far", 2),
    Column("arrived", "int8", "tourists", "tourists that arrived this round (the game's: the same "
           "on every seat's row)", 2),
    Column("free_rooms", "int8", "rooms", "free rooms in all hotels when they arrived (the game's)",
           2),
    Column("turned_away", "int8", "tourists", "arrived tourists no one hosted (the game's)", 2),
)

TABLES = {"results": RESULTS, "rounds": ROUNDS}


def strategy_names(seatings: list[list[str]]) -> list[str]:
    """The strategy column's categories: every spec of the line-up, in order of first seating."""
    return list(dict.fromkeys(spec for row in seatings for spec in row))


def _strategy_codes(seatings: list[list[str]], games: np.ndarray, names: list[str]) -> np.ndarray:
    """Category code of each (game, seat): game id k plays seating k mod len(seatings)."""
    table = np.array([[names.index(spec) for spec in row] for row in seatings], np.int16)
    return table[games % len(seatings)]


def _frame(columns: tuple[Column, ...], values: dict, names: list[str]) -> pd.DataFrame:
    out = {}
    for col in columns:
        if col.dtype == "category":
            out[col.name] = pd.Categorical.from_codes(values[col.name], categories=names)
        else:
            out[col.name] = values[col.name].astype(col.dtype)  # a copy: state rows are reused
    return pd.DataFrame(out, copy=False)


def results_frame(st, first: int, games: int, seatings: list[list[str]]) -> pd.DataFrame:
    """The ``results`` rows of games ``first .. first+games-1`` from their final state."""
    players = st.money.shape[1]
    ids = np.arange(first, first + games)
    names = strategy_names(seatings)
    values = {"game": np.repeat(ids, players), "seat": np.tile(np.arange(players), games),
              "players": np.full(games * players, players),
              "strategy": _strategy_codes(seatings, ids, names).reshape(-1)}
    from samsim.kernel.state import TIE_FIELDS
    for col in RESULTS[len(_KEYS):]:
        source = st.ties[:games, :, TIE_FIELDS.index(col.name)] if col.name in TIE_FIELDS \
            else getattr(st, col.name)[:games]
        values[col.name] = source.reshape(-1)
    return _frame(RESULTS, values, names)


def rounds_frame(st, first: int, games: int, seatings: list[list[str]]) -> pd.DataFrame:
    """The ``rounds`` rows of games ``first .. first+games-1`` (the state must hold a record)."""
    from samsim.kernel.state import RECORD_FIELDS

    _, players, rounds, _ = st.record.shape
    ids = np.arange(first, first + games)
    names = strategy_names(seatings)
    per_game = players * rounds
    codes = _strategy_codes(seatings, ids, names)  # [games, players]
    values = {"game": np.repeat(ids, per_game),
              "seat": np.tile(np.repeat(np.arange(players), rounds), games),
              "players": np.full(games * per_game, players),
              "strategy": np.repeat(codes.reshape(-1), rounds),
              "round": np.tile(np.arange(1, rounds + 1), games * players)}
    record = st.record[:games]
    for k, name in enumerate(RECORD_FIELDS):
        values[name] = record[:, :, :, k].reshape(-1)
    return _frame(ROUNDS, values, names)


def markdown(table: str) -> str:
    """The README's description of one table."""
    lines = ["| column | dtype | unit | meaning |", "| --- | --- | --- | --- |"]
    lines += [f"| `{c.name}` | {c.dtype} | {c.unit} | {c.meaning}"
              f"{f' (since schema {c.since})' if c.since > 1 else ''} |" for c in TABLES[table]]
    return "\n".join(lines)


__all__ = ["SCHEMA_VERSION", "Column", "RESULTS", "ROUNDS", "TABLES", "results_frame",
           "rounds_frame", "strategy_names", "markdown"]
