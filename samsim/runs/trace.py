"""Traces: every event of chosen games as one table, to read, filter, diff and replay.

A Monte Carlo figure is only believable if any single game behind it can be pulled out and read. A
trace is that game's event log (docs/protocol.md, "A round, in order") with one row per event and
an English line beside each (``samsim.scenario.describe_events``). Because every game draws from
its own random streams keyed by (seed, game id), the seed, the player count and the game id are
all it takes to play a traced game again: ``replay_check`` does exactly that and demands the same
events, on the compiled kernel or on the independent reference engine.

Files: ``.jsonl`` (a first line ``{"samsim": {...}}`` with the provenance, then one JSON object per
event, for grep and any language) or ``.parquet`` (typed columns, the provenance in the file
metadata). Either way the provenance is the seed, players, parameters, data-file sha256 and samsim
version, so the file alone is enough to replay it.
"""

from __future__ import annotations

import io
import json
from collections.abc import Iterable
from pathlib import Path

import numpy as np
import pandas as pd

from samsim import components as comps
from samsim.components import GameData
from samsim.engine import MAX_GAMES
from samsim.kernel import events as ev
from samsim.kernel.events import FIELDS, KIND_NAMES
from samsim.runs import results

#: Columns of a trace, in order.
TRACE_COLUMNS = ("game", "seq", "round", "kind", "seat", "a", "b", "c", "d", "text")
SUFFIXES = (".jsonl", ".parquet")
_INT_COLUMNS = ("game", "seq", "round", "seat", "a", "b", "c", "d")
ENGINES = ("kernel", "reference")


class ReplayMismatch(Exception):
    """A traced game played again from its seed did not produce the traced events."""


def _game_ids(games) -> list[int]:
    if isinstance(games, (int, np.integer)) and not isinstance(games, bool):
        if games < 1:
            raise ValueError(f"games must be at least 1, got {games}")
        return list(range(int(games)))
    if isinstance(games, (str, bytes)) or not isinstance(games, Iterable):
        raise ValueError(f"games must be a count or a list of game ids, got {games!r}")
    ids = list(games)
    if not ids:
        raise ValueError("games: no game ids given")
    for g in ids:
        if not isinstance(g, (int, np.integer)) or isinstance(g, bool) or not 0 <= g < MAX_GAMES:
            raise ValueError(f"game ids must be whole numbers 0..{MAX_GAMES - 1:,} (2**63-2), "
                             f"got {g!r}")
    return [int(g) for g in ids]


def _engine(name: str):
    if name == "kernel":
        from samsim import engine
        return engine
    if name == "reference":
        from samsim import reference
        return reference
    raise ValueError(f"engine must be one of {', '.join(ENGINES)}, got {name!r}")


#: Games described per chunk when a trace is streamed: memory holds one chunk's rows, text and
#: JSON (a peak of 50-100 MB for 250 four-player games), whatever the number of games.
DEFAULT_CHUNK = 250
#: Games per chunk of play: each logged game reserves ``MAX_EVENTS`` rows (229 KB) however few it
#: writes, so a larger batch costs memory and gains nothing once both cores are busy.
_BATCH = 64
_KIND_ARRAY = np.array(KIND_NAMES, dtype=object)


def _frame(data: GameData, players: int, games, logs, seat_names=()) -> pd.DataFrame:
    """Several games' event rows as one trace frame: pandas builds one frame per chunk, not one
    per game (a frame costs milliseconds, as much as describing a game)."""
    from samsim.scenario import describe_events

    logs = [np.asarray(rows, dtype=np.int64).reshape(-1, len(FIELDS)) for rows in logs]
    lens = np.array([len(rows) for rows in logs], dtype=np.int64)
    rows = np.concatenate(logs) if logs else np.zeros((0, len(FIELDS)), np.int64)
    first = np.repeat(np.cumsum(lens) - lens, lens)
    text: list[str] = []
    position = {"players": int(players)}
    for log in logs:  # plain ints: describe_events converts every field, and numpy's are slow
        text += describe_events(data, log.tolist(), position=position, seat_names=seat_names)
    return pd.DataFrame({
        "game": np.repeat(np.asarray(games, dtype=np.int64), lens),
        "seq": np.arange(len(rows), dtype=np.int64) - first,
        "round": rows[:, 0],
        "kind": _KIND_ARRAY[rows[:, 1]],
        "seat": rows[:, 2], "a": rows[:, 3], "b": rows[:, 4], "c": rows[:, 5], "d": rows[:, 6],
        "text": text,
    })


def events_frame(data: GameData, players: int, game: int, events, seat_names=()) -> pd.DataFrame:
    """One game's event rows as a trace (``TRACE_COLUMNS``), each with its English line."""
    return _frame(data, players, [game], [events], seat_names)


def _runs(ids: list[int]) -> list[tuple[int, int]]:
    """``ids`` as (first, stop) ranges of consecutive ids, in order."""
    runs: list[tuple[int, int]] = []
    for g in ids:
        if runs and g == runs[-1][1]:
            runs[-1] = (runs[-1][0], g + 1)
        else:
            runs.append((g, g + 1))
    return runs


def _logs(data: GameData, players: int, seed: int, ids: list[int], seats):
    """Yield (game, its event rows) in the order of ``ids``, played by the engine's batches of
    consecutive ids: one single-game call costs ten times a game's share of a batch (a line-up
    parsed, a fresh log allocated, a snapshot taken)."""
    from samsim import engine
    from samsim.kernel.events import MAX_EVENTS

    for first, n, st in engine.batches(_runs(ids), players, seed, data, seats, _BATCH, log=True):
        for j in range(n):
            count = int(st.n_events[j])
            if count > MAX_EVENTS:
                raise RuntimeError(f"event log overflow in game {first + j}: {count} events, "
                                   f"room for {MAX_EVENTS}")
            yield first + j, st.events[j, :count].copy()  # the rows are the next batch's


def _prepare(players, seed, games, data, params, chunk):
    """Everything a trace needs, checked before any game is played: (data, players, seed, ids,
    line-up, chunk, metadata)."""
    from samsim import engine

    ids = _game_ids(games)
    _, players, seed, data, seats, chunk, _ = engine.checked(1, players, seed, data, params,
                                                             chunk, None, None)
    meta = {"kind": "trace", "players": players, "seed": int(seed), "games": ids, "policy": "random",
            "params": params, **results.provenance(data)}
    return data, players, int(seed), ids, seats, chunk, meta


def _chunks(data, players, seed, ids, seats, chunk):
    games: list[int] = []
    logs: list[np.ndarray] = []
    for game, rows in _logs(data, players, seed, ids, seats):
        games.append(game)
        logs.append(rows)
        if len(games) == chunk:
            yield _frame(data, players, games, logs)
            games, logs = [], []
    if games:
        yield _frame(data, players, games, logs)


def trace_chunks(players: int, seed: int, games: int | Iterable[int] = 1,
                 data: GameData | None = None, params=None, chunk: int = DEFAULT_CHUNK):
    """``trace_games``, ``chunk`` games at a time, so that a caller can write or count as it goes
    with memory flat in the number of games; the chunks concatenated are ``trace_games``' rows.

    Inputs are checked now, before the first chunk is asked for.
    """
    data, players, seed, ids, seats, chunk, _ = _prepare(players, seed, games, data, params, chunk)
    return _chunks(data, players, seed, ids, seats, chunk)


def trace_games(players: int, seed: int, games: int | Iterable[int] = 1,
                data: GameData | None = None, params=None) -> pd.DataFrame:
    """Play games of ``samsim.simulate`` again with their event logs on; one row per event.

    ``games`` is a count k (games 0..k-1) or a list of game ids. Columns: ``TRACE_COLUMNS``
    (``kind`` is the event's name, ``seq`` its index in its game's log, ``text`` its English line).
    ``df.attrs['samsim']`` holds what replaying needs (seed, players, params, data sha256).
    Everything is held in memory: for thousands of games write them with ``write_games``.
    """
    data, players, seed, ids, seats, chunk, meta = _prepare(players, seed, games, data, params,
                                                            DEFAULT_CHUNK)
    frames = list(_chunks(data, players, seed, ids, seats, chunk))
    df = frames[0] if len(frames) == 1 else pd.concat(frames, ignore_index=True)
    df.attrs["samsim"] = meta
    return df


def write_games(players: int, seed: int, games: int | Iterable[int], data: GameData | None,
                path: str | Path, params=None, chunk: int = DEFAULT_CHUNK,
                progress=None) -> Path:
    """Trace games straight into a file (``.jsonl`` or ``.parquet``, as ``write_trace`` writes
    them), ``chunk`` games at a time: memory stays flat however many games, and the file is
    the same as ``write_trace(trace_games(...))`` would write.

    The file appears whole or not at all: it is written under a temporary name and renamed at
    the end (an error or Ctrl-C leaves no partial trace behind). ``progress(games, frame)``, if
    given, is called after each chunk is written with its number of games and its rows.
    """
    path = check_trace_path(path)
    data, players, seed, ids, seats, chunk, meta = _prepare(players, seed, games, data, params,
                                                            chunk)
    frames = _chunks(data, players, seed, ids, seats, chunk)
    left = len(ids)

    def done(frame):
        nonlocal left
        games = min(chunk, left)  # every chunk is whole but the last
        left -= games
        if progress is not None:
            progress(games, frame)

    def parquet(tmp: Path) -> None:
        import pyarrow.parquet as pq

        writer = None
        try:
            for frame in frames:
                table = results.arrow_table(frame[list(TRACE_COLUMNS)], meta)
                if writer is None:
                    writer = pq.ParquetWriter(tmp, table.schema)
                writer.write_table(table.cast(writer.schema))
                done(frame)
        finally:
            if writer is not None:
                writer.close()

    def jsonl(tmp: Path) -> None:
        with open(tmp, "w", encoding="utf-8", newline="\n") as out:
            out.write(_header(meta))
            for frame in frames:
                out.write(_json_lines(frame))
                done(frame)

    results.atomic_write(path, parquet if path.suffix == ".parquet" else jsonl)
    return path


def _header(metadata: dict) -> str:
    return json.dumps({"samsim": metadata}, sort_keys=True) + "\n"


def _json_lines(df: pd.DataFrame) -> str:
    body = df[list(TRACE_COLUMNS)].to_json(orient="records", lines=True, force_ascii=False)
    return body if not body or body.endswith("\n") else body + "\n"


def check_trace_path(path: str | Path) -> Path:
    """Reject a trace path samsim could not write, before any game is played."""
    path = Path(path)
    if path.suffix not in SUFFIXES:
        raise ValueError(f"trace file must end in {' or '.join(SUFFIXES)}, got {path.name!r}")
    if path.is_dir():
        raise ValueError(f"trace file {path} is a folder")
    parent = path.parent
    if not parent.is_dir():
        raise OSError(f"cannot write trace {path}: folder {parent} does not exist")
    return path


def write_trace(df: pd.DataFrame, path: str | Path, metadata: dict | None = None) -> Path:
    """Write a trace as JSON lines (``.jsonl``) or Parquet (``.parquet``), by suffix.

    Both keep ``metadata`` (default ``df.attrs['samsim']``): Parquet in its file metadata, JSON
    lines as a first line ``{"samsim": ...}``.
    """
    path = check_trace_path(path)
    metadata = df.attrs.get("samsim", {}) if metadata is None else metadata
    if path.suffix == ".parquet":
        return results.write_parquet(df[list(TRACE_COLUMNS)], path, metadata)
    text = _header(metadata) + _json_lines(df)
    results.write_text(path, text)
    return path


def read_trace(path: str | Path) -> pd.DataFrame:
    """A trace file as written by ``write_trace`` (Parquet: with its metadata in ``attrs``)."""
    path = Path(path)
    if path.suffix == ".parquet":
        return results.read_parquet(path)
    if path.suffix == ".jsonl":
        first, _, rest = path.read_text(encoding="utf-8").partition("\n")
        head = json.loads(first) if first.strip() else {}
        if set(head) == {"samsim"}:
            meta, text = head["samsim"], rest
        else:  # events only (written by another tool): no provenance to restore
            meta, text = {}, first + "\n" + rest
        df = pd.read_json(io.StringIO(text), lines=True, dtype={c: "int64" for c in _INT_COLUMNS})
        df.attrs["samsim"] = meta
        return df
    raise ValueError(f"trace file must end in {' or '.join(SUFFIXES)}, got {path.name!r}")


def replay_check(trace: pd.DataFrame | str | Path, games: int | Iterable[int] | None = None, *,
                 players: int | None = None, seed: int | None = None, params=None,
                 data: GameData | None = None, engine: str = "kernel") -> int:
    """Play traced games again from their seed and demand the traced events, event for event.

    ``trace`` is a trace frame or file; ``games`` one id or several (default: every game in it).
    Seed, players and params default to the trace's metadata (pass them for a trace without
    one). ``engine="reference"`` replays on the independent plain-Python engine. Returns the
    number of events confirmed; raises ``ReplayMismatch`` at the first event that differs.
    """
    df = read_trace(trace) if isinstance(trace, (str, Path)) else trace
    meta = df.attrs.get("samsim") or {}
    players = meta.get("players") if players is None else players
    seed = meta.get("seed") if seed is None else seed
    params = meta.get("params") if params is None else params
    if players is None or seed is None:
        raise ValueError("this trace does not record its seed and players: pass seed= and players=")
    data = data or comps.load()
    if meta.get("data_sha256") and meta["data_sha256"] != data.sha256:
        raise ValueError(f"the trace was made with data file {meta.get('data_file')} (sha256 "
                         f"{meta['data_sha256'][:12]}...), not {data.source} (sha256 "
                         f"{data.sha256[:12]}...): pass that file as data=")
    play = _engine(engine).play_game
    traced = sorted(set(df["game"].tolist()))
    wanted = traced if games is None else _game_ids([games] if isinstance(
        games, (int, np.integer)) else games)
    confirmed = 0
    for game in wanted:
        rows = df[df["game"] == game].sort_values("seq")
        if rows.empty:
            raise ValueError(f"game {game} is not in the trace (games: {_span(traced)})")
        codes = [KIND_NAMES.index(k) for k in rows["kind"]]
        expected = [(int(r), c, int(s), int(a), int(b), int(cc), int(d)) for r, c, s, a, b, cc, d in
                    zip(rows["round"], codes, rows["seat"], rows["a"], rows["b"], rows["c"],
                        rows["d"])]
        got = play(data, players, seed, game, params, log=True).events
        for i, (want, have) in enumerate(zip(expected, got)):
            if tuple(want) != tuple(have):
                raise ReplayMismatch(f"game {game}, event {i}: the trace has {want} "
                                     f"({rows['text'].iloc[i]!r}), the {engine} replay gives {have}")
        if len(expected) != len(got):
            raise ReplayMismatch(f"game {game}: the trace has {len(expected)} events, the "
                                 f"{engine} replay {len(got)}")
        confirmed += len(expected)
    return confirmed


#: The kinds of event that record a seat's own choice (everything else is chance or bookkeeping).
_CHOICES = {int(k): name for k, name in ((ev.RECALL, "recall"), (ev.PLAY, "card"),
                                         (ev.SWITCH, "switch"), (ev.BUY, "build"),
                                         (ev.PASS, "pass"), (ev.SEND_HOME, "send_home"),
                                         (ev.HOST, "take"), (ev.HOLIDAY, "holiday"))}


def _blank_decision() -> dict:
    return {"card": None, "recall": [], "switch": None, "build": None, "send_home": [],
            "group": None, "take": [], "holiday": []}


def decisions_from_events(data: GameData, events, players: int, first_round: int = 1) -> dict:
    """The ``decisions`` of a position that makes an engine play a logged game's choices again.

    The event log records every choice a seat made, whatever strategy made it. Handing those
    choices to the independent reference engine as a script (with the game's seed for the deal)
    checks that the strategy only made legal moves and that the kernel applied the rules to them:
    the replay must log the same events and end in the same snapshot. Rounds before
    ``first_round`` are ignored (for a position that starts later). Every seat of every round in
    the log gets a complete decision, so no seat falls back to the random policy, whose draws
    would not be the logged strategy's.

    Round keys are ints: the reference engine accepts only those, the kernel either form.
    """
    rules = data.components
    if not isinstance(players, (int, np.integer)) or not data.min_players <= players <= data.max_players:
        raise ValueError(f"players must be {data.min_players}..{data.max_players}, got {players!r}")
    if not isinstance(first_round, (int, np.integer)) or not 1 <= first_round <= rules.rounds:
        raise ValueError(f"first_round must be 1..{rules.rounds}, got {first_round!r}")
    players, first_round = int(players), int(first_round)
    rounds: dict[int, list[dict]] = {}
    for i, row in enumerate(events):
        if len(row) != len(FIELDS):
            raise ValueError(f"event {i}: expected {len(FIELDS)} fields {FIELDS}, got {row!r}")
        rnd, kind, seat, a, b, c, d = (int(x) for x in row)
        what = _CHOICES.get(kind)
        if what is None or rnd < first_round:
            continue
        if not 1 <= rnd <= rules.rounds or not 0 <= seat < players:
            raise ValueError(f"event {i} ({KIND_NAMES[kind]}): round {rnd} seat {seat} is not a "
                             f"round 1..{rules.rounds} and seat of {players}")
        per_seat = rounds.setdefault(rnd, [_blank_decision() for _ in range(players)])
        decision = per_seat[seat]
        if what == "recall":  # logged before PLAY: the recalled cards are chosen first
            decision["recall"].append(a)
            continue
        if what == "card":
            if decision["card"] is not None:
                raise ValueError(f"event {i}: seat {seat} plays a second card in round {rnd}")
            decision["card"] = a
            continue
        if decision["card"] is None:
            raise ValueError(f"event {i} ({KIND_NAMES[kind]}): seat {seat} acts in round {rnd} "
                             f"before it plays a card: not one game's whole log?")
        if what == "switch":  # PLAY logged the card chosen first; the switch names the new one
            decision["switch"] = b
        elif what == "build":
            decision["build"] = {"tile": a, "room": c if c >= 0 else None}
        elif what == "pass":
            if a == int(ev.TOURIST_PASS):  # a build pass is the default (build null)
                decision["group"] = b if b >= 0 else None
        elif what == "take":
            decision["group"] = d
            decision["take"].append([a, b])
        elif b not in decision[what]:  # send_home, holiday: a couple leaves as two rows of a room
            decision[what].append(b)
    for rnd, per_seat in rounds.items():
        for seat, decision in enumerate(per_seat):
            if decision["card"] is None:
                raise ValueError(f"round {rnd}: seat {seat} plays no card in the log: not one "
                                 f"game's whole log?")
    return dict(sorted(rounds.items()))


def _span(ids: list[int]) -> str:
    return ", ".join(map(str, ids)) if len(ids) <= 8 else f"{ids[0]}..{ids[-1]} ({len(ids)} games)"


__all__ = ["trace_games", "trace_chunks", "write_games", "write_trace", "read_trace", "replay_check", "check_trace_path",
           "decisions_from_events", "ReplayMismatch", "TRACE_COLUMNS"]
