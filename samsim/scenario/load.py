"""Reading a scenario file: rulebook names (chips ``"N3"``, cards ``"6/5"``, tiles ``"suite"``,
nations ``"Norway"``) turned into the canonical integer position of docs/protocol.md, and every
mistake reported once, with the field that holds it.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from samsim import components
from samsim.components import SUITE, TILE_KINDS, GameData
from samsim.scenario.expect import parse_expect
from samsim.scenario.names import (
    Names,
    ScenarioError,
    as_list,
    as_object,
    check_keys,
    fail,
    field,
    room_chips,
    room_key,
    whole,
)
from samsim.scenario.possible import (
    Hotels,
    check_flag_row,
    check_tile_supply,
    check_unique_chips,
    tiebreak,
)

_TOP_KEYS = {"name", "description", "comment", "data", "players", "seed", "game", "round", "rounds",
             "seat_names", "flags", "tile_stack", "tourist_cards", "table_tiles", "tiebreak", "seats",
             "arrivals", "decisions", "expect"}


_SEAT_KEYS = {"comment", "money", "hand", "discard", "rooms", "extra_rooms", "suites", "pools",
              "specials"}


_DECISION_KEYS = {"comment", "card", "recall", "switch", "build", "send_home", "group", "take",
                  "holiday"}


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
    doc = as_object(doc, "scenario")
    check_keys(doc, "", _TOP_KEYS)
    name = doc.get("name", path.stem if path else "scenario")
    if not isinstance(name, str):
        fail("name", f"must be a string, got {name!r}")
    description = doc.get("description", "")
    if isinstance(description, list) and all(isinstance(s, str) for s in description):
        description = "\n".join(description)
    if not isinstance(description, str):
        fail("description", "must be a string or a list of strings")

    data_path = None
    if "data" in doc:
        if not isinstance(doc["data"], str):
            fail("data", f"must be the path of a data file, got {doc['data']!r}")
        data_path = (folder / doc["data"]).resolve()
        try:
            data = components.load(data_path)
        except components.ComponentDataError as err:
            fail("data", str(err))
    else:
        data = components.load()
    c = data.components

    if "players" not in doc:
        fail("players", "missing (the number of seats, "
                         f"{data.min_players}..{data.max_players})")
    players = whole(doc["players"], "players", data.min_players, data.max_players)

    seat_names: tuple[str, ...] = ()
    if "seat_names" in doc:
        raw = as_list(doc["seat_names"], "seat_names")
        if len(raw) != players or not all(isinstance(s, str) and s and not s.isdigit() for s in raw):
            fail("seat_names", f"must give {players} distinct non-numeric names, one per seat")
        if len(set(raw)) != len(raw):
            fail("seat_names", "names must be distinct")
        seat_names = tuple(raw)
    nm = Names(data, players, seat_names)

    pos: dict[str, Any] = {"players": players}
    pos["seed"] = whole(doc.get("seed", 0), "seed")
    pos["game"] = whole(doc.get("game", 0), "game")
    start = pos["round"] = nm.round(doc.get("round", 1), "round")
    last = c.rounds
    if "rounds" in doc:
        pos["rounds"] = whole(doc["rounds"], "rounds", 1, c.rounds - start + 1)
        last = start + pos["rounds"] - 1

    if "flags" in doc:
        flags = as_list(doc["flags"], "flags")
        if len(flags) != c.rounds:
            fail("flags", f"must give one nation per round ({c.rounds}), got {len(flags)}")
        pos["flags"] = [nm.nation(f, field("flags", i)) for i, f in enumerate(flags)]
        check_flag_row(pos["flags"], data)
    if "tile_stack" in doc:
        stack = as_list(doc["tile_stack"], "tile_stack", "a list of tile kinds, top first")
        pos["tile_stack"] = [nm.tile(t, field("tile_stack", i)) for i, t in enumerate(stack)]
    if "tourist_cards" in doc:
        n_tc = c.card_groups.shape[0]
        cards = as_list(doc["tourist_cards"], "tourist_cards")
        pos["tourist_cards"] = [whole(v, field("tourist_cards", i), 0, n_tc - 1)
                                for i, v in enumerate(cards)]
    if "table_tiles" in doc:
        pos["table_tiles"] = nm.tile_counts(doc["table_tiles"], "table_tiles")
    pos["tiebreak"] = tiebreak(doc, start, players, int(c.tiebreak_start[players]))

    raw_seats = nm.per_seat(doc["seats"], "seats") if "seats" in doc else {}
    seats = []
    for s in range(players):
        seats.append(_parse_seat(raw_seats.get(s), f"seats[{s}]", nm,
                                 c.starting_money + int(c.seat_money[players, s])))
    check_unique_chips(seats, data)
    pos["seats"] = seats
    check_tile_supply(pos, raw_seats, data)

    arrivals: dict[int, list[list[int]]] = {}
    if "arrivals" in doc:
        for r, groups in nm.per_round(doc["arrivals"], "arrivals").items():
            where = f"arrivals.{r}"
            if not start <= r <= last:
                fail(where, f"round {r} is not played (the scenario plays rounds {start}..{last})")
            groups = as_list(groups, where, "a list of groups (each a list of chips)")
            if not groups:
                fail(where, "must hold at least one group")
            arrivals[r] = [nm.chips(g, field(where, i)) for i, g in enumerate(groups)]
            seen = [chip for g in arrivals[r] for chip in g]
            if len(set(seen)) != len(seen):
                fail(where, "a chip appears twice")
        pos["arrivals"] = arrivals

    if "decisions" in doc:
        decisions = {}
        for r, per_seat in nm.per_round(doc["decisions"], "decisions").items():
            where = f"decisions.{r}"
            if not start <= r <= last:
                fail(where, f"round {r} is not played (the scenario plays rounds {start}..{last})")
            given = nm.per_seat(per_seat, where)
            decisions[r] = [None if given.get(s) is None else
                            _parse_decision(given[s], f"{where}[{s}]", nm, arrivals.get(r))
                            for s in range(players)]
        pos["decisions"] = decisions

    expect = parse_expect(doc.get("expect", {}), nm, Hotels(pos, data, last))
    return Scenario(name=name, description=description, data=data, position=pos, expect=expect,
                    seat_names=seat_names, path=path, data_path=data_path)


def _parse_seat(raw, where: str, nm: Names, money: int) -> dict:
    """A seat of the position; ``money``: what it starts the game with (the data's)."""
    c = nm.c
    raw = {} if raw is None else as_object(raw, where)
    check_keys(raw, where, _SEAT_KEYS)
    seat: dict[str, Any] = {"money": whole(raw.get("money", money), field(where, "money"))}

    n_extra = None
    if "extra_rooms" in raw:
        n_extra = whole(raw["extra_rooms"], field(where, "extra_rooms"), 0, c.max_rooms - c.base_rooms)
    rooms_raw = raw.get("rooms")
    if rooms_raw is None or isinstance(rooms_raw, dict):
        n_rooms = c.base_rooms + (n_extra or 0)
        rooms: list[list[int]] = [[] for _ in range(n_rooms)]
        for key, chips in (rooms_raw or {}).items():
            rw = field(field(where, "rooms"), str(key))
            room = room_key(key, rw)
            if room >= n_rooms:
                fail(rw, f"the seat owns rooms 0..{n_rooms - 1} (set extra_rooms to own more)")
            rooms[room] = room_chips(chips, rw, nm)
    else:
        rows = as_list(rooms_raw, field(where, "rooms"), "a list of rooms or an object room -> chips")
        if not c.base_rooms <= len(rows) <= c.max_rooms:
            fail(field(where, "rooms"), f"must list every owned room ({c.base_rooms} base rooms plus "
                                          f"extra rooms, at most {c.max_rooms}), got {len(rows)}")
        if n_extra is not None and n_extra != len(rows) - c.base_rooms:
            fail(field(where, "extra_rooms"), f"says {n_extra} but rooms lists "
                                               f"{len(rows) - c.base_rooms} extra rooms")
        rooms = [room_chips(chips, field(field(where, "rooms"), i), nm) for i, chips in enumerate(rows)]
    seat["rooms"] = rooms

    all_cards = set(range(nm.data.n_cards))
    # Either list may be left out: it is then every card the other does not hold.
    hand = nm.cards(raw["hand"], field(where, "hand")) if "hand" in raw else None
    discard = nm.cards(raw["discard"], field(where, "discard")) if "discard" in raw else None
    if hand is None:
        hand = sorted(all_cards - set(discard or []))
    if discard is None:
        discard = sorted(all_cards - set(hand))
    for field_name, cards in (("hand", hand), ("discard", discard)):
        if len(set(cards)) != len(cards):
            fail(field(where, field_name), "a card appears twice (each seat has one of each card)")
    both = set(hand) & set(discard)
    if both:
        fail(field(where, "discard"), f"{nm.data.card_name(min(both))} is both in hand and discarded")
    if c.holiday_card in discard:
        fail(field(where, "discard"), "the Staff holiday card always returns to hand")
    missing = all_cards - set(hand) - set(discard)
    if missing:
        fail(field(where, "hand"), f"{nm.data.card_name(min(missing))} is neither in hand nor "
                                    "discarded (between rounds every card is in one of them)")
    seat["hand"] = sorted(hand)
    seat["discard"] = sorted(discard)

    suites = nm.rooms(raw.get("suites", []), field(where, "suites"))
    for i, room in enumerate(suites):
        if room >= len(rooms):
            fail(field(field(where, "suites"), i), f"room {room} is not owned (rooms 0..{len(rooms) - 1})")
    if len(set(suites)) != len(suites):
        fail(field(where, "suites"), "a room is a suite only once")
    seat["suites"] = sorted(suites)
    seat["pools"] = whole(raw.get("pools", 0), field(where, "pools"))
    seat["specials"] = nm.specials(raw.get("specials", {}), field(where, "specials"))
    return seat


def _parse_decision(raw, where: str, nm: Names, groups: list[list[int]] | None) -> dict:
    raw = as_object(raw, where)
    check_keys(raw, where, _DECISION_KEYS)
    if "card" not in raw:
        fail(field(where, "card"), "missing (the price card played; write null for the whole "
                                    "decision to let the random policy decide)")
    dec: dict[str, Any] = {"card": nm.card(raw["card"], field(where, "card"))}
    dec["recall"] = nm.cards(raw.get("recall", []), field(where, "recall"))
    sw = raw.get("switch")
    dec["switch"] = None if sw is None else nm.card(sw, field(where, "switch"))

    build = raw.get("build")
    bw = field(where, "build")
    if build is None or build == "pass":
        dec["build"] = None
    elif isinstance(build, str):
        tile = nm.tile(build, bw)
        if tile == SUITE:
            fail(bw, 'a suite needs the room it covers: write {"tile": "suite", "room": 2}')
        dec["build"] = {"tile": tile, "room": None}
    else:
        build = as_object(build, bw)
        check_keys(build, bw, {"tile", "room", "comment"})
        if "tile" not in build:
            fail(field(bw, "tile"), "missing")
        tile = nm.tile(build["tile"], field(bw, "tile"))
        room = build.get("room")
        if room is not None:
            room = nm.room(room, field(bw, "room"))
        if tile == SUITE and room is None:
            fail(field(bw, "room"), "a suite needs the room it covers")
        if tile != SUITE and room is not None:
            fail(field(bw, "room"), f"only a suite is placed on a room, not the "
                                             f"{TILE_KINDS[tile].replace('_', ' ')} tile")
        dec["build"] = {"tile": tile, "room": room}

    dec["send_home"] = nm.rooms(raw.get("send_home", []), field(where, "send_home"))

    take = []
    tw = field(where, "take")
    for i, pair in enumerate(as_list(raw.get("take", []), tw, "a list of [chip, room] pairs")):
        pw = field(tw, i)
        if isinstance(pair, dict):
            check_keys(pair, pw, {"chip", "room"})
            pair = [pair.get("chip"), pair.get("room")]
        if not isinstance(pair, list) or len(pair) != 2:
            fail(pw, f"must be a [chip, room] pair like [\"N3\", 2], got {pair!r}")
        take.append([nm.chip(pair[0], pw), nm.room(pair[1], field(pw, "room"))])
    dec["take"] = take

    gw = field(where, "group")
    if raw.get("group") is not None:
        dec["group"] = whole(raw["group"], gw, 0)
    elif not take:
        dec["group"] = None
    elif groups is None:
        fail(gw, "missing: the arrivals of this round are not scripted, so the group taken from "
                  "cannot be inferred from the chips")
    else:
        found = set()
        for i, (chip, _room) in enumerate(take):
            g = next((k for k, grp in enumerate(groups) if chip in grp), None)
            if g is None:
                fail(field(tw, i), f"{nm.data.chip_name(chip)} is in no group arriving this round")
            found.add(g)
        if len(found) > 1:
            fail(tw, f"takes from groups {sorted(found)}, but a turn takes from one group (give "
                      "\"group\" explicitly to script that illegal turn)")
        dec["group"] = found.pop()
    dec["holiday"] = nm.rooms(raw.get("holiday", []), field(where, "holiday"))
    return dec
