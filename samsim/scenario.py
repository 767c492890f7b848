"""Scenarios: a readable JSON position plus scripted decisions, run on either engine.

A scenario file (format: ``docs/scenarios.md``) names things the way the rulebook does -- chips
``"N3"``, price cards ``"6/5"``, tiles ``"suite"``, nations ``"Norway"`` -- so that a rule test reads
like the rulebook's worked example it encodes. This module is the only place that turns those names
into the canonical integer position of ``docs/protocol.md``, so both engines can stay free of parsing
and every mistake in a file is reported here, once, with the field that holds it.

The engines are imported lazily: loading and validating a scenario needs neither numba nor the
reference engine, and a scenario can be checked on whichever engine exists.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from samsim import components
from samsim.events import KIND_NAMES
from samsim.components import (CELEBRITY, CHIP_KINDS, EXTRA_ROOM, POOL, RECALL, RICH, SEND_HOME,
                               SPECIAL_KINDS, SUITE, SWIMMER, SWITCH, TILE_KINDS, GameData)

#: Event kinds in code order (code = index + 1), as fixed by docs/protocol.md.
EVENT_KINDS = KIND_NAMES[1:]
EVENT_CODE = {name: code for code, name in enumerate(EVENT_KINDS, start=1)}
#: Readable names of the fields a, b, c, d of each event kind, with the kind of value they hold
#: (so an expectation can say ``"chip": "N3"`` rather than ``"a": 39``).
EVENT_FIELDS: dict[str, tuple[tuple[str, str], ...]] = {
    "FLAG": (("nation", "nation"),),
    "REVEAL": (("tile", "tile"),),
    "DEPART": (("chip", "chip"), ("room", "int")),
    "TOURIST_CARD": (("tourist_card", "int"),),
    "ARRIVE": (("group", "int"), ("chip", "chip")),
    "RECALL": (("card", "card"),),
    "PLAY": (("card", "card"),),
    "SWITCH": (("old", "card"), ("new", "card")),
    "BUY": (("tile", "tile"), ("price", "int"), ("room", "int")),
    "POOL_BONUS": (("amount", "int"),),
    "SEND_HOME": (("chip", "chip"), ("room", "int")),
    "HOST": (("chip", "chip"), ("room", "int"), ("paid", "int"), ("group", "int")),
    "HOLIDAY": (("chip", "chip"), ("room", "int")),
    "LEFTOVER": (("chip", "chip"),),
    "DISCARD": (("card", "card"),),
    "KEEP": (("card", "card"),),
    "TIEBREAK": (("tiebreak", "int"),),
    "FINAL": (("money", "int"), ("score", "int"), ("free_rooms", "int"), ("rank", "int")),
    "PASS": (("phase", "int"), ("group", "int")),
}
ENGINES = ("kernel", "reference")

_TILE_ALIASES = {
    "extra_room": EXTRA_ROOM, "extra room": EXTRA_ROOM, "extra": EXTRA_ROOM, "room": EXTRA_ROOM,
    "suite": SUITE,
    "pool": POOL, "swimming pool": POOL, "swimming_pool": POOL,
    "switch": SWITCH, "send_home": SEND_HOME, "send home": SEND_HOME, "recall": RECALL,
}
_TOP_KEYS = {"name", "description", "comment", "data", "players", "seed", "game", "round", "rounds",
             "seat_names", "flags", "tile_stack", "tourist_cards", "table_tiles", "tiebreak", "seats",
             "arrivals", "decisions", "expect"}
_SEAT_KEYS = {"comment", "money", "hand", "discard", "rooms", "extra_rooms", "suites", "pools",
              "specials"}
_DECISION_KEYS = {"comment", "card", "recall", "switch", "build", "send_home", "group", "take",
                  "holiday"}
_PER_SEAT_EXPECT = ("money", "hand", "discard", "rooms", "suites", "pools", "specials", "score",
                    "free_rooms", "rank", "win_credit")
_EXPECT_KEYS = set(_PER_SEAT_EXPECT) | {"comment", "round", "tiebreak", "table_tiles", "tile_stack",
                                         "in_pile", "not_in_pile", "events", "event_sequence",
                                         "no_events", "log_contains", "error"}


class ScenarioError(ValueError):
    """A scenario file that cannot be turned into a position; the message starts with the field."""


@dataclass(frozen=True)
class Scenario:
    """A validated scenario: the canonical position both engines take, plus what to check."""

    name: str
    description: str
    data: GameData
    position: dict  # canonical, docs/protocol.md "Positions and snapshots"
    expect: dict  # normalised expectations (ids as ints); see check_expectations
    seat_names: tuple[str, ...] = ()
    path: Path | None = None
    data_path: Path | None = None

    @property
    def expects_error(self) -> bool:
        return "error" in self.expect


@dataclass
class ScenarioResult:
    """What one engine made of a scenario."""

    scenario: Scenario
    engine: str
    snapshot: dict
    events: list[tuple[int, ...]] = field(default_factory=list)

    def log(self) -> str:
        return "\n".join(describe_events(self.scenario.data, self.events,
                                         position=self.scenario.position,
                                         seat_names=self.scenario.seat_names))


# --------------------------------------------------------------------------------------------------
# Loading


def _fail(where: str, problem: str):
    raise ScenarioError(f"{where}: {problem}" if where else problem)


def _join(where: str, key) -> str:
    if isinstance(key, int):
        return f"{where}[{key}]"
    return f"{where}.{key}" if where else str(key)


def _check_keys(obj, where: str, allowed: set[str]) -> None:
    unknown = sorted(set(obj) - allowed)
    if unknown:
        _fail(_join(where, unknown[0]), f"unknown key (expected one of {', '.join(sorted(allowed))})")


def _int(value, where: str, lo: int | None = 0, hi: int | None = None) -> int:
    if not isinstance(value, int) or isinstance(value, bool):
        _fail(where, f"must be a whole number, got {value!r}")
    if lo is not None and value < lo:
        _fail(where, f"must be at least {lo}, got {value}")
    if hi is not None and value > hi:
        _fail(where, f"must be at most {hi}, got {value}")
    return value


def _list(value, where: str, what: str = "a list") -> list:
    if not isinstance(value, list):
        _fail(where, f"must be {what}, got {value!r}")
    return value


def _obj(value, where: str) -> dict:
    if not isinstance(value, dict):
        _fail(where, f"must be an object, got {value!r}")
    return value


class _Names:
    """Turns the readable names of one data file into canonical ids, naming the field on failure."""

    def __init__(self, data: GameData, players: int, seat_names: tuple[str, ...]):
        self.data = data
        self.c = data.components
        self.players = players
        self.seat_names = seat_names

    def chip(self, value, where: str) -> int:
        if not isinstance(value, str):
            _fail(where, f"a tourist chip is written as a name like 'N3', got {value!r}")
        try:
            return self.data.chip_id(value)
        except ValueError as err:
            _fail(where, str(err))

    def chips(self, value, where: str) -> list[int]:
        return [self.chip(v, _join(where, i)) for i, v in enumerate(_list(value, where))]

    def card(self, value, where: str) -> int:
        if not isinstance(value, str):
            names = ", ".join(self.data.card_name(k) for k in range(self.data.n_cards))
            _fail(where, f"a price card is written as 'bid/price' or 'holiday' ({names}), got {value!r}")
        try:
            return self.data.card_id(value.strip().lower())
        except ValueError as err:
            _fail(where, str(err))

    def cards(self, value, where: str) -> list[int]:
        return [self.card(v, _join(where, i)) for i, v in enumerate(_list(value, where))]

    def tile(self, value, where: str) -> int:
        key = value.strip().lower() if isinstance(value, str) else None
        if key not in _TILE_ALIASES:
            _fail(where, f"unknown tile kind {value!r} (tile kinds: {', '.join(TILE_KINDS)})")
        return _TILE_ALIASES[key]

    def nation(self, value, where: str) -> int:
        if isinstance(value, str):
            for n, (name, code) in enumerate(zip(self.data.nation_names, self.data.nation_codes)):
                if value == code or value.lower() == name.lower():
                    return n
        choices = ", ".join(f"{c} ({n})" for n, c in zip(self.data.nation_names, self.data.nation_codes))
        _fail(where, f"unknown nation {value!r} (nations: {choices})")

    def room(self, value, where: str) -> int:
        return _int(value, where, 0, self.c.max_rooms - 1)

    def rooms(self, value, where: str) -> list[int]:
        return [self.room(v, _join(where, i)) for i, v in enumerate(_list(value, where))]

    def seat(self, value, where: str) -> int:
        if isinstance(value, str):
            if value in self.seat_names:
                return self.seat_names.index(value)
            if value.isdigit():
                value = int(value)
            else:
                known = f" (seat names: {', '.join(self.seat_names)})" if self.seat_names else ""
                _fail(where, f"unknown seat {value!r}{known}")
        return _int(value, where, 0, self.players - 1)

    def round(self, value, where: str) -> int:
        if isinstance(value, str) and value.isdigit():
            value = int(value)
        return _int(value, where, 1, self.c.rounds)

    def tile_counts(self, value, where: str) -> list[int]:
        """``{"pool": 2}`` or ``["pool", "pool"]`` -> a count per tile kind."""
        counts = [0] * len(TILE_KINDS)
        if isinstance(value, dict):
            for key, n in value.items():
                counts[self.tile(key, _join(where, key))] += _int(n, _join(where, key))
        elif isinstance(value, list):
            for i, v in enumerate(value):
                counts[self.tile(v, _join(where, i))] += 1
        else:
            _fail(where, f"must be an object of tile kind -> count or a list of tile kinds, got {value!r}")
        return counts

    def specials(self, value, where: str) -> list[int]:
        """``{"recall": 1}``, ``["recall"]`` or the canonical counts ``[switch, send_home, recall]``."""
        if isinstance(value, list) and value and all(isinstance(v, int) for v in value):
            if len(value) != len(SPECIAL_KINDS):
                _fail(where, f"as counts, give one per special tile ({', '.join(SPECIAL_KINDS)})")
            return [_int(v, _join(where, i)) for i, v in enumerate(value)]
        counts = self.tile_counts(value, where)
        for kind, n in enumerate(counts):
            if n and TILE_KINDS[kind] not in SPECIAL_KINDS:
                _fail(where, f"{TILE_KINDS[kind]} is not a special tile (special tiles: "
                             f"{', '.join(SPECIAL_KINDS)})")
        return counts[len(TILE_KINDS) - len(SPECIAL_KINDS):]

    def per_seat(self, value, where: str) -> dict[int, Any]:
        """A list with one entry per seat, or an object keyed by seat number or seat name."""
        if isinstance(value, list):
            if len(value) != self.players:
                _fail(where, f"must give one entry per seat ({self.players}), got {len(value)}")
            return dict(enumerate(value))
        if isinstance(value, dict):
            out = {}
            for key, v in value.items():
                seat = self.seat(key, _join(where, key))
                if seat in out:
                    _fail(_join(where, key), f"seat {seat} is given twice")
                out[seat] = v
            return out
        _fail(where, f"must be a list with one entry per seat or an object keyed by seat, got {value!r}")

    def per_round(self, value, where: str) -> dict[int, Any]:
        out = {}
        for key, v in _obj(value, where).items():
            out[self.round(key, _join(where, key))] = v
        return out


def load_scenario(source: str | Path | Mapping, *, base_dir: str | Path | None = None) -> Scenario:
    """Read, validate and normalise a scenario.

    ``source`` is a path to a JSON file or an already parsed dict. A ``data`` path in the scenario is
    taken relative to the file's folder (for a dict: ``base_dir``, else the working directory).
    """
    path = None
    if isinstance(source, Mapping):
        doc = dict(source)
        folder = Path(base_dir) if base_dir is not None else Path.cwd()
    else:
        path = Path(source)
        try:
            text = path.read_text(encoding="utf-8")
        except OSError as err:
            raise ScenarioError(f"cannot read scenario file {path}: {err.strerror or err}") from None
        try:
            doc = json.loads(text)
        except json.JSONDecodeError as err:
            raise ScenarioError(f"{path.name}: not valid JSON: {err}") from None
        folder = Path(base_dir) if base_dir is not None else path.parent
    try:
        return _parse(doc, path, folder)
    except ScenarioError as err:
        if path is not None:
            raise ScenarioError(f"{path.name}: {err}") from None
        raise


def _parse(doc, path: Path | None, folder: Path) -> Scenario:
    doc = _obj(doc, "scenario")
    _check_keys(doc, "", _TOP_KEYS)
    name = doc.get("name", path.stem if path else "scenario")
    if not isinstance(name, str):
        _fail("name", f"must be a string, got {name!r}")
    description = doc.get("description", "")
    if isinstance(description, list) and all(isinstance(s, str) for s in description):
        description = "\n".join(description)
    if not isinstance(description, str):
        _fail("description", "must be a string or a list of strings")

    data_path = None
    if "data" in doc:
        if not isinstance(doc["data"], str):
            _fail("data", f"must be the path of a data file, got {doc['data']!r}")
        data_path = (folder / doc["data"]).resolve()
        try:
            data = components.load(data_path)
        except components.ComponentDataError as err:
            _fail("data", str(err))
    else:
        data = components.load()
    c = data.components

    if "players" not in doc:
        _fail("players", "missing (the number of seats, "
                         f"{data.min_players}..{data.max_players})")
    players = _int(doc["players"], "players", data.min_players, data.max_players)

    seat_names: tuple[str, ...] = ()
    if "seat_names" in doc:
        raw = _list(doc["seat_names"], "seat_names")
        if len(raw) != players or not all(isinstance(s, str) and s and not s.isdigit() for s in raw):
            _fail("seat_names", f"must give {players} distinct non-numeric names, one per seat")
        if len(set(raw)) != len(raw):
            _fail("seat_names", "names must be distinct")
        seat_names = tuple(raw)
    nm = _Names(data, players, seat_names)

    pos: dict[str, Any] = {"players": players}
    pos["seed"] = _int(doc.get("seed", 0), "seed")
    pos["game"] = _int(doc.get("game", 0), "game")
    start = pos["round"] = nm.round(doc.get("round", 1), "round")
    last = c.rounds
    if "rounds" in doc:
        pos["rounds"] = _int(doc["rounds"], "rounds", 1, c.rounds - start + 1)
        last = start + pos["rounds"] - 1

    if "flags" in doc:
        flags = _list(doc["flags"], "flags")
        if len(flags) != c.rounds:
            _fail("flags", f"must give one nation per round ({c.rounds}), got {len(flags)}")
        pos["flags"] = [nm.nation(f, _join("flags", i)) for i, f in enumerate(flags)]
    if "tile_stack" in doc:
        stack = _list(doc["tile_stack"], "tile_stack", "a list of tile kinds, top first")
        pos["tile_stack"] = [nm.tile(t, _join("tile_stack", i)) for i, t in enumerate(stack)]
    if "tourist_cards" in doc:
        n_tc = c.card_groups.shape[0]
        cards = _list(doc["tourist_cards"], "tourist_cards")
        pos["tourist_cards"] = [_int(v, _join("tourist_cards", i), 0, n_tc - 1)
                                for i, v in enumerate(cards)]
    if "table_tiles" in doc:
        pos["table_tiles"] = nm.tile_counts(doc["table_tiles"], "table_tiles")
    if "tiebreak" in doc:
        pos["tiebreak"] = _int(doc["tiebreak"], "tiebreak", 0, players - 1)

    raw_seats = nm.per_seat(doc["seats"], "seats") if "seats" in doc else {}
    seats = []
    for s in range(players):
        seats.append(_parse_seat(raw_seats.get(s), f"seats[{s}]", nm))
    _check_unique_chips(seats, data)
    pos["seats"] = seats

    arrivals: dict[int, list[list[int]]] = {}
    if "arrivals" in doc:
        for r, groups in nm.per_round(doc["arrivals"], "arrivals").items():
            where = f"arrivals.{r}"
            if not start <= r <= last:
                _fail(where, f"round {r} is not played (the scenario plays rounds {start}..{last})")
            groups = _list(groups, where, "a list of groups (each a list of chips)")
            if not groups:
                _fail(where, "must hold at least one group")
            arrivals[r] = [nm.chips(g, _join(where, i)) for i, g in enumerate(groups)]
            seen = [chip for g in arrivals[r] for chip in g]
            if len(set(seen)) != len(seen):
                _fail(where, "a chip appears twice")
        pos["arrivals"] = arrivals

    if "decisions" in doc:
        decisions = {}
        for r, per_seat in nm.per_round(doc["decisions"], "decisions").items():
            where = f"decisions.{r}"
            if not start <= r <= last:
                _fail(where, f"round {r} is not played (the scenario plays rounds {start}..{last})")
            given = nm.per_seat(per_seat, where)
            decisions[r] = [None if given.get(s) is None else
                            _parse_decision(given[s], f"{where}[{s}]", nm, arrivals.get(r))
                            for s in range(players)]
        pos["decisions"] = decisions

    expect = _parse_expect(doc.get("expect", {}), nm)
    return Scenario(name=name, description=description, data=data, position=pos, expect=expect,
                    seat_names=seat_names, path=path, data_path=data_path)


def _parse_seat(raw, where: str, nm: _Names) -> dict:
    c = nm.c
    raw = {} if raw is None else _obj(raw, where)
    _check_keys(raw, where, _SEAT_KEYS)
    seat: dict[str, Any] = {"money": _int(raw.get("money", c.starting_money), _join(where, "money"))}

    n_extra = None
    if "extra_rooms" in raw:
        n_extra = _int(raw["extra_rooms"], _join(where, "extra_rooms"), 0, c.max_rooms - c.base_rooms)
    rooms_raw = raw.get("rooms")
    if rooms_raw is None or isinstance(rooms_raw, dict):
        n_rooms = c.base_rooms + (n_extra or 0)
        rooms: list[list[int]] = [[] for _ in range(n_rooms)]
        for key, chips in (rooms_raw or {}).items():
            rw = _join(_join(where, "rooms"), str(key))
            room = _room_key(key, rw)
            if room >= n_rooms:
                _fail(rw, f"the seat owns rooms 0..{n_rooms - 1} (set extra_rooms to own more)")
            rooms[room] = _room_chips(chips, rw, nm)
    else:
        rows = _list(rooms_raw, _join(where, "rooms"), "a list of rooms or an object room -> chips")
        if not c.base_rooms <= len(rows) <= c.max_rooms:
            _fail(_join(where, "rooms"), f"must list every owned room ({c.base_rooms} base rooms plus "
                                          f"extra rooms, at most {c.max_rooms}), got {len(rows)}")
        if n_extra is not None and n_extra != len(rows) - c.base_rooms:
            _fail(_join(where, "extra_rooms"), f"says {n_extra} but rooms lists "
                                               f"{len(rows) - c.base_rooms} extra rooms")
        rooms = [_room_chips(chips, _join(_join(where, "rooms"), i), nm) for i, chips in enumerate(rows)]
    seat["rooms"] = rooms

    all_cards = set(range(nm.data.n_cards))
    # Either list may be left out: it is then every card the other does not hold.
    hand = nm.cards(raw["hand"], _join(where, "hand")) if "hand" in raw else None
    discard = nm.cards(raw["discard"], _join(where, "discard")) if "discard" in raw else None
    if hand is None:
        hand = sorted(all_cards - set(discard or []))
    if discard is None:
        discard = sorted(all_cards - set(hand))
    for field_name, cards in (("hand", hand), ("discard", discard)):
        if len(set(cards)) != len(cards):
            _fail(_join(where, field_name), "a card appears twice (each seat has one of each card)")
    both = set(hand) & set(discard)
    if both:
        _fail(_join(where, "discard"), f"{nm.data.card_name(min(both))} is both in hand and discarded")
    if c.holiday_card in discard:
        _fail(_join(where, "discard"), "the Staff holiday card always returns to hand")
    missing = all_cards - set(hand) - set(discard)
    if missing:
        _fail(_join(where, "hand"), f"{nm.data.card_name(min(missing))} is neither in hand nor "
                                    "discarded (between rounds every card is in one of them)")
    seat["hand"] = sorted(hand)
    seat["discard"] = sorted(discard)

    suites = nm.rooms(raw.get("suites", []), _join(where, "suites"))
    for i, room in enumerate(suites):
        if room >= len(rooms):
            _fail(_join(_join(where, "suites"), i), f"room {room} is not owned (rooms 0..{len(rooms) - 1})")
    if len(set(suites)) != len(suites):
        _fail(_join(where, "suites"), "a room is a suite only once")
    seat["suites"] = sorted(suites)
    seat["pools"] = _int(raw.get("pools", 0), _join(where, "pools"))
    seat["specials"] = nm.specials(raw.get("specials", {}), _join(where, "specials"))
    return seat


def _room_key(key, where: str) -> int:
    if isinstance(key, int) and not isinstance(key, bool) and key >= 0:
        return key
    if isinstance(key, str) and key.isdigit():
        return int(key)
    _fail(where, "rooms are keyed by room number")


def _room_chips(value, where: str, nm: _Names) -> list[int]:
    """A room: ``[]``, ``"N3"`` or ``["E10", "N11"]`` (two lovers, earlier occupant first)."""
    if isinstance(value, str):
        return [nm.chip(value, where)]
    chips = nm.chips(value, where)
    if len(chips) > 2:
        _fail(where, "a room holds at most two tourists (and two only if both are lovers)")
    return chips


def _check_unique_chips(seats: list[dict], data: GameData) -> None:
    where_of: dict[int, str] = {}
    for s, seat in enumerate(seats):
        for r, chips in enumerate(seat["rooms"]):
            for chip in chips:
                here = f"seats[{s}].rooms[{r}]"
                if chip in where_of:
                    _fail(here, f"{data.chip_name(chip)} is already in {where_of[chip]} (a chip is in "
                                "one place)")
                where_of[chip] = here


def _parse_decision(raw, where: str, nm: _Names, groups: list[list[int]] | None) -> dict:
    raw = _obj(raw, where)
    _check_keys(raw, where, _DECISION_KEYS)
    if "card" not in raw:
        _fail(_join(where, "card"), "missing (the price card played; write null for the whole "
                                    "decision to let the random policy decide)")
    dec: dict[str, Any] = {"card": nm.card(raw["card"], _join(where, "card"))}
    dec["recall"] = nm.cards(raw.get("recall", []), _join(where, "recall"))
    sw = raw.get("switch")
    dec["switch"] = None if sw is None else nm.card(sw, _join(where, "switch"))

    build = raw.get("build")
    bw = _join(where, "build")
    if build is None or build == "pass":
        dec["build"] = None
    elif isinstance(build, str):
        tile = nm.tile(build, bw)
        if tile == SUITE:
            _fail(bw, 'a suite needs the room it covers: write {"tile": "suite", "room": 2}')
        dec["build"] = {"tile": tile, "room": None}
    else:
        build = _obj(build, bw)
        _check_keys(build, bw, {"tile", "room", "comment"})
        if "tile" not in build:
            _fail(_join(bw, "tile"), "missing")
        tile = nm.tile(build["tile"], _join(bw, "tile"))
        room = build.get("room")
        if room is not None:
            room = nm.room(room, _join(bw, "room"))
        if tile == SUITE and room is None:
            _fail(_join(bw, "room"), "a suite needs the room it covers")
        if tile != SUITE and room is not None:
            _fail(_join(bw, "room"), f"only a suite is placed on a room, not the "
                                             f"{TILE_KINDS[tile].replace('_', ' ')} tile")
        dec["build"] = {"tile": tile, "room": room}

    dec["send_home"] = nm.rooms(raw.get("send_home", []), _join(where, "send_home"))

    take = []
    tw = _join(where, "take")
    for i, pair in enumerate(_list(raw.get("take", []), tw, "a list of [chip, room] pairs")):
        pw = _join(tw, i)
        if isinstance(pair, dict):
            _check_keys(pair, pw, {"chip", "room"})
            pair = [pair.get("chip"), pair.get("room")]
        if not isinstance(pair, list) or len(pair) != 2:
            _fail(pw, f"must be a [chip, room] pair like [\"N3\", 2], got {pair!r}")
        take.append([nm.chip(pair[0], pw), nm.room(pair[1], _join(pw, "room"))])
    dec["take"] = take

    gw = _join(where, "group")
    if raw.get("group") is not None:
        dec["group"] = _int(raw["group"], gw, 0)
    elif not take:
        dec["group"] = None
    elif groups is None:
        _fail(gw, "missing: the arrivals of this round are not scripted, so the group taken from "
                  "cannot be inferred from the chips")
    else:
        found = set()
        for i, (chip, _room) in enumerate(take):
            g = next((k for k, grp in enumerate(groups) if chip in grp), None)
            if g is None:
                _fail(_join(tw, i), f"{nm.data.chip_name(chip)} is in no group arriving this round")
            found.add(g)
        if len(found) > 1:
            _fail(tw, f"takes from groups {sorted(found)}, but a turn takes from one group (give "
                      "\"group\" explicitly to script that illegal turn)")
        dec["group"] = found.pop()
    dec["holiday"] = nm.rooms(raw.get("holiday", []), _join(where, "holiday"))
    return dec


def _parse_pattern(raw, where: str, nm: _Names) -> dict:
    """An event pattern: kind plus any of round, seat and the kind's named fields, and count."""
    raw = _obj(raw, where)
    kind = raw.get("kind")
    if not isinstance(kind, str) or kind.upper() not in EVENT_CODE:
        _fail(_join(where, "kind"), f"unknown event kind {kind!r} (kinds: {', '.join(EVENT_KINDS)})")
    kind = kind.upper()
    fields = dict(EVENT_FIELDS[kind])
    allowed = {"kind", "round", "seat", "count", "comment"} | set(fields)
    _check_keys(raw, where, allowed)
    pat: dict[str, Any] = {"kind": kind}
    if "round" in raw:
        pat["round"] = nm.round(raw["round"], _join(where, "round"))
    if "seat" in raw:
        pat["seat"] = nm.seat(raw["seat"], _join(where, "seat"))
    if "count" in raw:
        pat["count"] = _int(raw["count"], _join(where, "count"))
    for name, typ in fields.items():
        if name not in raw:
            continue
        fw = _join(where, name)
        value = raw[name]
        if value is None:
            pat[name] = -1
        elif typ == "chip":
            pat[name] = nm.chip(value, fw)
        elif typ == "card":
            pat[name] = nm.card(value, fw)
        elif typ == "tile":
            pat[name] = nm.tile(value, fw)
        elif typ == "nation":
            pat[name] = nm.nation(value, fw)
        else:
            pat[name] = _int(value, fw, None)
    return pat


def _parse_expect(raw, nm: _Names) -> dict:
    raw = _obj(raw, "expect")
    _check_keys(raw, "expect", _EXPECT_KEYS)
    out: dict[str, Any] = {}
    for key in _PER_SEAT_EXPECT:
        if key not in raw:
            continue
        where = f"expect.{key}"
        per = {}
        for seat, value in nm.per_seat(raw[key], where).items():
            sw = f"{where}[{seat}]"
            if value is None:
                continue
            if key in ("hand", "discard"):
                per[seat] = sorted(nm.cards(value, sw))
            elif key == "suites":
                per[seat] = sorted(nm.rooms(value, sw))
            elif key == "specials":
                per[seat] = nm.specials(value, sw)
            elif key == "rooms":
                # a list names every owned room (so the count is checked too), an object only some
                if isinstance(value, list):
                    per[seat] = {"all": len(value), "rooms": {
                        i: _room_chips(v, _join(sw, i), nm) for i, v in enumerate(value)}}
                else:
                    rooms = {}
                    for rk, chips in _obj(value, sw).items():
                        rw = _join(sw, str(rk))
                        rooms[_room_key(rk, rw)] = _room_chips(chips, rw, nm)
                    per[seat] = {"all": None, "rooms": rooms}
            elif key == "win_credit":
                if not isinstance(value, (int, float)) or isinstance(value, bool):
                    _fail(sw, f"must be a number, got {value!r}")
                per[seat] = float(value)
            else:
                per[seat] = _int(value, sw, None)
        out[key] = per
    if "round" in raw:
        out["round"] = _int(raw["round"], "expect.round", 1, nm.c.rounds + 1)
    if "tiebreak" in raw:
        out["tiebreak"] = _int(raw["tiebreak"], "expect.tiebreak", 0, nm.players - 1)
    if "table_tiles" in raw:
        out["table_tiles"] = nm.tile_counts(raw["table_tiles"], "expect.table_tiles")
    if "tile_stack" in raw:
        out["tile_stack"] = [nm.tile(t, f"expect.tile_stack[{i}]")
                             for i, t in enumerate(_list(raw["tile_stack"], "expect.tile_stack"))]
    for key in ("in_pile", "not_in_pile"):
        if key in raw:
            out[key] = nm.chips(raw[key], f"expect.{key}")
    for key in ("events", "event_sequence", "no_events"):
        if key in raw:
            out[key] = [_parse_pattern(p, f"expect.{key}[{i}]", nm)
                        for i, p in enumerate(_list(raw[key], f"expect.{key}"))]
    if "log_contains" in raw:
        lines = _list(raw["log_contains"], "expect.log_contains")
        if not all(isinstance(s, str) for s in lines):
            _fail("expect.log_contains", "must be a list of strings")
        out["log_contains"] = lines
    if "error" in raw:
        err = raw["error"]
        if isinstance(err, str):
            err = [err]
        if not (isinstance(err, list) and err and all(isinstance(s, str) for s in err)):
            _fail("expect.error", "must be a message substring or a list of alternatives")
        if len(raw) - ("comment" in raw) > 1:
            _fail("expect.error", "a scenario that must be rejected expects nothing else")
        out["error"] = err
    return out


# --------------------------------------------------------------------------------------------------
# Running and checking


def _engine_module(engine: str):
    if engine == "reference":
        from samsim import reference as module
    elif engine == "kernel":
        from samsim import engine as module
    else:
        raise ValueError(f"unknown engine {engine!r} (engines: {', '.join(ENGINES)})")
    return module


def run_scenario(scenario: Scenario | str | Path | Mapping, engine: str = "kernel") -> ScenarioResult:
    """Play a scenario on one engine. An illegal scripted decision raises the engine's error."""
    if not isinstance(scenario, Scenario):
        scenario = load_scenario(scenario)
    module = _engine_module(engine)
    # a copy, so that no engine can change the scenario another engine runs next
    record = module.play_position(scenario.data, copy.deepcopy(scenario.position), log=True)
    events = [tuple(int(x) for x in e) for e in record.events]
    return ScenarioResult(scenario=scenario, engine=engine, snapshot=record.snapshot, events=events)


def run_and_check(scenario: Scenario, engine: str = "kernel") -> list[str]:
    """Run and check in one step, turning an expected rejection into a (passed) check."""
    if scenario.expects_error:
        try:
            result = run_scenario(scenario, engine)
        except ValueError as err:
            return check_expectations(scenario, err)
        return check_expectations(scenario, result)
    return check_expectations(scenario, run_scenario(scenario, engine))


def _event_matches(event: Sequence[int], pat: dict) -> bool:
    rnd, code, seat = event[0], event[1], event[2]
    if code != EVENT_CODE[pat["kind"]]:
        return False
    if "round" in pat and rnd != pat["round"]:
        return False
    if "seat" in pat and seat != pat["seat"]:
        return False
    for i, (name, _typ) in enumerate(EVENT_FIELDS[pat["kind"]]):
        if name in pat and event[3 + i] != pat[name]:
            return False
    return True


def _describe_pattern(data: GameData, pat: dict) -> str:
    parts = [pat["kind"]]
    for key in ("round", "seat"):
        if key in pat:
            parts.append(f"{key}={pat[key]}")
    for name, typ in EVENT_FIELDS[pat["kind"]]:
        if name in pat:
            v = pat[name]
            if v >= 0 and typ == "chip":
                v = data.chip_name(v)
            elif v >= 0 and typ == "card":
                v = data.card_name(v)
            elif v >= 0 and typ == "tile":
                v = TILE_KINDS[v]
            elif v >= 0 and typ == "nation":
                v = data.nation_names[v]
            parts.append(f"{name}={v}")
    if "count" in pat:
        parts.append(f"count={pat['count']}")
    return " ".join(parts)


def check_expectations(scenario: Scenario, result: ScenarioResult | BaseException) -> list[str]:
    """Every expectation of the scenario that the result fails, as readable lines (empty: all hold).

    ``result`` may be the exception a run raised, so that scenarios which must be rejected are
    checked the same way as those which must run.
    """
    exp = scenario.expect
    data = scenario.data
    if isinstance(result, BaseException):
        if "error" not in exp:
            return [f"the scenario was rejected: {type(result).__name__}: {result}"]
        message = str(result)
        if not any(s.lower() in message.lower() for s in exp["error"]):
            return [f"rejected with {message!r}, expected a message containing "
                    + " or ".join(repr(s) for s in exp["error"])]
        return []
    if "error" in exp:
        return ["expected a rejection with a message containing "
                + " or ".join(repr(s) for s in exp["error"]) + ", but the scenario ran"]

    failures: list[str] = []
    snap = result.snapshot
    seats = snap["seats"]
    final = snap.get("final")

    def show_cards(cards):
        return "[" + ", ".join(data.card_name(c) for c in cards) + "]"

    def show_chips(chips):
        return "[" + ", ".join(data.chip_name(c) for c in chips) + "]"

    for key in _PER_SEAT_EXPECT:
        for seat, want in exp.get(key, {}).items():
            who = f"seat {seat}"
            if key in ("score", "free_rooms", "rank", "win_credit"):
                if final is None:
                    failures.append(f"{key}: the snapshot has no final scores (round 12 not played)")
                    break
                got = final[key][seat]
                if (abs(got - want) > 1e-9) if key == "win_credit" else got != want:
                    failures.append(f"{key} of {who}: got {got}, expected {want}")
            elif key in ("hand", "discard"):
                got = sorted(seats[seat][key])
                if got != want:
                    failures.append(f"{key} of {who}: got {show_cards(got)}, expected {show_cards(want)}")
            elif key == "suites":
                got = sorted(seats[seat]["suites"])
                if got != want:
                    failures.append(f"suites of {who}: got {got}, expected {want}")
            elif key == "rooms":
                rooms = seats[seat]["rooms"]
                if want.get("all") is not None and len(rooms) != want["all"]:
                    failures.append(f"rooms of {who}: owns {len(rooms)} rooms, expected {want['all']}")
                for room, chips in want["rooms"].items():
                    if room >= len(rooms):
                        failures.append(f"rooms of {who}: room {room} is not owned "
                                        f"(owns {len(rooms)} rooms)")
                    elif list(rooms[room]) != chips:
                        failures.append(f"room {room} of {who}: got {show_chips(rooms[room])}, "
                                        f"expected {show_chips(chips)}")
            else:
                got = seats[seat][key]
                got = list(got) if key == "specials" else got
                if got != want:
                    failures.append(f"{key} of {who}: got {got}, expected {want}")
    for key in ("round", "tiebreak"):
        if key in exp and snap[key] != exp[key]:
            failures.append(f"{key}: got {snap[key]}, expected {exp[key]}")
    if "table_tiles" in exp and list(snap["table_tiles"]) != exp["table_tiles"]:
        failures.append(f"table_tiles: got {list(snap['table_tiles'])}, expected {exp['table_tiles']} "
                        f"(counts in the order {', '.join(TILE_KINDS)})")
    if "tile_stack" in exp and list(snap["tile_stack"]) != exp["tile_stack"]:
        failures.append(f"tile_stack: got {[TILE_KINDS[t] for t in snap['tile_stack']]}, "
                        f"expected {[TILE_KINDS[t] for t in exp['tile_stack']]}")
    in_pile = {chip for pile in snap["piles"] for chip in pile}
    for chip in exp.get("in_pile", []):
        if chip not in in_pile:
            failures.append(f"in_pile: {data.chip_name(chip)} is not in its pile")
    for chip in exp.get("not_in_pile", []):
        if chip in in_pile:
            failures.append(f"not_in_pile: {data.chip_name(chip)} is in its pile")

    events = result.events
    for pat in exp.get("events", []):
        n = sum(_event_matches(e, pat) for e in events)
        if "count" in pat:
            if n != pat["count"]:
                failures.append(f"events: {n} events match {_describe_pattern(data, pat)}")
        elif n == 0:
            failures.append(f"events: no event matches {_describe_pattern(data, pat)}")
    pos = 0
    for pat in exp.get("event_sequence", []):
        while pos < len(events) and not _event_matches(events[pos], pat):
            pos += 1
        if pos == len(events):
            failures.append(f"event_sequence: no event matches {_describe_pattern(data, pat)} "
                            "after the earlier ones of the sequence")
            break
        pos += 1
    for pat in exp.get("no_events", []):
        hits = [e for e in events if _event_matches(e, pat)]
        if hits:
            failures.append(f"no_events: {len(hits)} events match {_describe_pattern(data, pat)}, "
                            f"first {hits[0]}")
    if "log_contains" in exp:
        log = result.log()
        for text in exp["log_contains"]:
            if text not in log:
                failures.append(f"log_contains: no log line contains {text!r}")
    return failures


# --------------------------------------------------------------------------------------------------
# The readable event log


def describe_events(data: GameData, events: Sequence[Sequence[int]], position: Mapping | None = None,
                    seat_names: Sequence[str] = ()) -> list[str]:
    """One English line per event, saying who paid or earned what and why.

    The engines log only outcomes (``HOST ... paid=6``); to say *why* a tourist paid what it did, this
    replays the hotels alongside the log (rooms, suites, pools and the card each seat played). It
    starts from ``position``'s seats when given, else from the start of a game. When the log's amount
    differs from what the rules give for the replayed hotel, the line says so, which makes an engine
    bug visible in any trace.
    """
    c = data.components
    base = c.base_rooms
    start_seats = position.get("seats") if position else None
    n_seats = position["players"] if position else 1 + max(
        (e[2] for e in events if e[2] >= 0), default=0)
    rooms: list[list[list[int]]] = []
    suites: list[set[int]] = []
    pools: list[int] = []
    for s in range(n_seats):
        seat = start_seats[s] if start_seats else None
        rooms.append([list(r) for r in seat["rooms"]] if seat else [[] for _ in range(base)])
        suites.append(set(seat["suites"]) if seat else set())
        pools.append(int(seat["pools"]) if seat else 0)
    played = [-1] * n_seats
    flags = {r + 1: int(n) for r, n in enumerate(position["flags"])} if position and "flags" in position \
        else {}
    bought: set[tuple[int, int]] = set()  # (round, seat)
    hosted: set[tuple[int, int]] = set()

    def who(s: int) -> str:
        if 0 <= s < len(seat_names):
            return f"seat {s} ({seat_names[s]})"
        return f"seat {s}"

    def chip(ch: int) -> str:
        kind = int(c.chip_kind[ch])
        if kind == components.SWIMMER:
            return f"{data.chip_name(ch)} (swimmer, buoy {int(c.chip_buoy[ch])})"
        return f"{data.chip_name(ch)} ({CHIP_KINDS[kind]})"

    def card(k: int) -> str:
        return "Staff holiday" if k == c.holiday_card else data.card_name(k)

    def tile(kind: int) -> str:  # "an extra room tile": a sentence, not the data file's key
        name = TILE_KINDS[kind].replace("_", " ") if 0 <= kind < len(TILE_KINDS) else f"kind {kind}"
        return f"{'an' if name[0] in 'aeiou' else 'a'} {name} tile"

    def leave(s: int, ch: int, room: int) -> None:
        if s < n_seats and room < len(rooms[s]) and ch in rooms[s][room]:
            rooms[s][room].remove(ch)

    lines = []
    for event in events:
        rnd, code, s, a, b, cc, d = (int(x) for x in event)
        kind = EVENT_KINDS[code - 1] if 1 <= code <= len(EVENT_KINDS) else f"kind {code}"
        head = f"round {rnd}: "
        if kind == "FLAG":
            flags[rnd] = a
            lines.append(f"{head}the flag is {data.nation_names[a]}")
        elif kind == "REVEAL":
            lines.append(f"{head}build tile revealed: {tile(a)}")
        elif kind == "DEPART":
            leave(s, a, b)
            nation = a // c.chips_per_nation
            if rnd in flags and flags[rnd] != nation:
                why = f"its partner's plane ({data.nation_names[flags[rnd]]}) has come"
            else:
                why = "its plane has come"
            lines.append(f"{head}{chip(a)} leaves {who(s)}'s room {b}: {why}")
        elif kind == "TOURIST_CARD" and a < 0:
            lines.append(f"{head}no tourist card: the arrivals are scripted")
        elif kind == "TOURIST_CARD":
            sizes = [int(x) for x in c.card_groups[a, n_seats] if x] if 0 <= a < len(c.card_groups) else []
            factor = int(c.round_factor[rnd - 1]) if 1 <= rnd <= c.rounds else 1
            shown = "+".join(str(x * factor) for x in sizes)
            lines.append(f"{head}tourist card {a}: groups {shown}"
                         + (f" (doubled, round {rnd})" if factor > 1 else ""))
        elif kind == "ARRIVE":
            lines.append(f"{head}{chip(b)} arrives in group {a}")
        elif kind == "RECALL":
            lines.append(f"{head}{who(s)} discards RECALL and takes {card(a)} back into hand")
        elif kind == "PLAY":
            if s < n_seats:
                played[s] = a
            if a == c.holiday_card:
                lines.append(f"{head}{who(s)} plays Staff holiday")
            else:
                lines.append(f"{head}{who(s)} plays {card(a)} (bid {int(c.card_bid[a])}, "
                             f"room price {int(c.card_price[a])})")
        elif kind == "SWITCH":
            if s < n_seats:
                played[s] = b
            lines.append(f"{head}{who(s)} discards SWITCH: {card(a)} back to hand, plays {card(b)} "
                         "instead")
        elif kind == "BUY":
            bought.add((rnd, s))
            text = f"{head}{who(s)} buys {tile(a)} for {b}"
            if s < n_seats:
                if a == EXTRA_ROOM:
                    text += f" (new room {len(rooms[s])})"
                    rooms[s].append([])
                elif a == SUITE:
                    suites[s].add(cc)
                    text += f", covering room {cc}"
                elif a == POOL:
                    pools[s] += 1
            lines.append(text)
        elif kind == "POOL_BONUS":
            if s < n_seats:
                have = sum(int(c.chip_buoy[ch]) for room in rooms[s] for ch in room)
                note = "" if have == a else f" [the hotel holds {have} buoy points]"
            else:
                note = ""
            lines.append(f"{head}{who(s)} earns {a} pool bonus: 1 per buoy point in the hotel{note}")
        elif kind == "SEND_HOME":
            leave(s, a, b)
            lines.append(f"{head}{who(s)} uses SEND_HOME: {chip(a)} leaves room {b}")
        elif kind == "HOST":
            hosted.add((rnd, s))
            partner = ""
            if s < n_seats and b < len(rooms[s]) and rooms[s][b]:
                partner = f" with {data.chip_name(rooms[s][b][0])}"
            lines.append(f"{head}{who(s)} hosts {chip(a)} in room {b}{partner} for {cc} "
                         f"({_explain_payment(data, a, b, cc, s, rooms, suites, pools, played)})")
            if s < n_seats:
                while b >= len(rooms[s]):
                    rooms[s].append([])
                rooms[s][b].append(a)
        elif kind == "PASS" and a == 0:
            lines.append(f"{head}{who(s)} passes: no tile")
        elif kind == "PASS":
            looked = f" (looked at group {b})" if b >= 0 else ""
            lines.append(f"{head}{who(s)} hosts nobody this turn{looked}")
        elif kind == "HOLIDAY":
            leave(s, a, b)
            lines.append(f"{head}{who(s)}, on Staff holiday, sends {chip(a)} home from room {b}")
        elif kind == "LEFTOVER":
            nation = data.nation_names[a // c.chips_per_nation]
            lines.append(f"{head}{chip(a)} was not hosted and goes back to the {nation} pile")
        elif kind == "DISCARD":
            did = [what for what, seats in (("bought a tile", bought), ("hosted tourists", hosted))
                   if (rnd, s) in seats]
            lines.append(f"{head}{who(s)} discards {card(a)} ({' and '.join(did) or 'played'})")
        elif kind == "KEEP":
            why = "the Staff holiday card always returns" if a == c.holiday_card else \
                "neither bought nor hosted"
            lines.append(f"{head}{who(s)} takes {card(a)} back into hand ({why})")
        elif kind == "TIEBREAK":
            n = n_seats
            lines.append(f"{head}the tie-breaker moves clockwise: now between {who((a - 1) % n)} and "
                         f"{who(a)}")
        elif kind == "FINAL":
            lines.append(f"end of game: {who(s)} has {a} money, score {b} (money + "
                         f"{int(c.special_tile_value)} per unused special tile), {cc} free rooms, "
                         f"rank {d}")
        else:
            lines.append(f"{head}{kind} seat={s} a={a} b={b} c={cc} d={d}")
    return lines


def _explain_payment(data: GameData, ch: int, room: int, paid: int, s: int, rooms, suites, pools,
                     played) -> str:
    c = data.components
    if s >= len(played) or played[s] < 0 or played[s] == c.holiday_card:
        return "no price card known"
    price = int(c.card_price[played[s]])
    reasons = []
    if int(c.chip_kind[ch]) == RICH:
        reasons.append("rich")
    if room in suites[s]:
        reasons.append("suite")
    if room < c.base_rooms:
        for other in range(c.base_rooms):
            if (int(c.room_adjacent[room]) >> other) & 1 and other < len(rooms[s]):
                celebs = [x for x in rooms[s][other] if int(c.chip_kind[x]) == CELEBRITY]
                if celebs:
                    reasons.append(f"next to celebrity {data.chip_name(celebs[0])} in room {other}")
                    break
    text = f"price {price}"
    owed = price
    if reasons:
        owed *= 2
        text += " x2 " + ", ".join(reasons)
        if len(reasons) > 1:
            text += " (never more than x2)"
    buoy = int(c.chip_buoy[ch])
    if int(c.chip_kind[ch]) == SWIMMER and pools[s]:
        owed += buoy * pools[s]
        text += f" + swimmer bonus {buoy} buoy x {pools[s]} pool{'s' if pools[s] != 1 else ''}"
    if owed != paid:
        text += f" [the rules give {owed}]"
    return text
