"""One game told round by round: what ``samsim play`` prints, and its JSON form.

A win rate is an average over games nobody reads; a designer trusts it after reading a few. The
narration is the game's event log (``samsim.scenario.describe_events``: who played which card,
bought which tile, hosted whom for how much and why) grouped by round under a heading with the
flag, followed by everyone's money at the end of the round and the final ranking. Any game of
any run can be told: game ``g`` of a run with seed ``s`` is ``play(players, s, g, ...)``.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

import pandas as pd

from samsim import components as comps
from samsim.components import GameData


@dataclass
class Game:
    """One game played with its log and per-round record kept."""

    players: int
    seed: int
    game: int
    specs: list[str]  # strategy of each seat
    events: pd.DataFrame  # samsim.runs.trace.TRACE_COLUMNS
    rounds: pd.DataFrame  # samsim.runs.schema ROUNDS
    final: pd.DataFrame  # samsim.runs.schema RESULTS
    data: GameData


def play(players: int, seed: int, game: int = 0, data: GameData | None = None,
         strategies=None) -> Game:
    """Play game ``game`` of seed ``seed`` (the same game a run with that seed plays) with its
    event log and per-round record."""
    from samsim import engine
    from samsim.engine.lineup import lineup
    from samsim.kernel.events import rows_to_tuples
    from samsim.runs import schema
    from samsim.runs.trace import events_frame

    data = data or comps.load()
    seats = lineup(players, strategies)  # run_batch checks the player count and the game id
    st = engine.run_batch(1, players, seed, game, data, log=True, record=True, strategies=seats)
    specs = seats.seating(game)
    events = rows_to_tuples(st.events[0], int(st.n_events[0]))
    seatings = [specs]
    return Game(players, int(seed), int(game), specs,
                events_frame(data, players, game, events, seat_names=specs),
                schema.rounds_frame(st, game, 1, seatings),
                schema.results_frame(st, game, 1, seatings), data)


def _strip(text: str) -> str:
    head, sep, rest = text.partition(": ")
    return rest if sep and head.startswith("round ") else text


def lines(game: Game) -> list[tuple[str, str]]:
    """The narration as (style, text) lines: "h" headings, "" events, "m" money, "f" final."""
    data, c = game.data, game.data.components
    flags = game.events[game.events["kind"] == "FLAG"].set_index("round")["a"]
    out: list[tuple[str, str]] = [
        ("h", f"Game {game.game} of seed {game.seed}, {game.players} players: "
              + ", ".join(f"seat {s} {spec}" for s, spec in enumerate(game.specs))),
        ("", "flags: " + " ".join(data.nation_names[int(flags[r])] for r in sorted(flags.index))),
    ]
    for rnd, events in game.events[game.events["kind"] != "FLAG"].groupby("round", sort=True):
        rnd = int(rnd)
        if rnd > c.rounds:
            continue
        double = " (double round)" if c.round_factor[rnd - 1] > 1 else ""
        out.append(("h", f"Round {rnd}: {data.nation_names[int(flags[rnd])]} flag{double}"))
        out += [("", _strip(t)) for t, k in zip(events["text"], events["kind"])
                if k not in ("TIEBREAK", "FINAL")]  # the final ranking follows
        money = game.rounds[game.rounds["round"] == rnd].sort_values("seat")
        out.append(("m", "money: " + ", ".join(f"seat {int(r.seat)} {int(r.money)}"
                                                for r in money.itertuples())))
    out.append(("h", "Final ranking (score = money + 3 per unused special tile; ties: more free "
                     "rooms, then shared)"))
    final = game.final.sort_values(["rank", "seat"])
    for r in final.itertuples():
        shared = " (shared)" if 0 < r.win_credit < 1 else ""
        out.append(("f", f"{int(r.rank)}. seat {int(r.seat)} {r.strategy}: score {int(r.score)}, "
                         f"money {int(r.money)}, free rooms {int(r.free_rooms)}{shared}"))
    return out


def print_game(game: Game, console) -> None:
    styles = {"h": "bold", "m": "cyan", "f": "green", "": None}
    for style, text in lines(game):
        if style == "h":
            console.print()
        console.print(("  " if style in ("", "m") else "") + text, style=styles[style],
                      markup=False, highlight=False)


def to_json(game: Game) -> dict:
    """The game as one JSON document: provenance, every event (with its English line), the
    per-round record and the final results."""
    from samsim.runs.results import provenance

    def records(df):
        return json.loads(df.to_json(orient="records", force_ascii=False))

    return {"samsim": {"kind": "play", "players": game.players, "seed": game.seed,
                       "game": game.game, "strategies": game.specs, **provenance(game.data)},
            "events": records(game.events), "rounds": records(game.rounds),
            "final": records(game.final)}


__all__ = ["Game", "play", "lines", "print_game", "to_json"]
