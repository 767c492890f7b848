"""What a scenario expects, read into ids: the end state, checkpoints after given rounds (``after``),
event patterns, or the reason an illegal decision is refused."""

from __future__ import annotations

from typing import Any

from samsim.scenario.log import EVENT_CODE, EVENT_FIELDS, EVENT_KINDS
from samsim.scenario.names import (
    Names,
    as_list,
    as_object,
    check_keys,
    fail,
    field,
    room_chips,
    room_key,
    whole,
)
from samsim.scenario.possible import Hotels

PER_SEAT_EXPECT = ("money", "hand", "discard", "rooms", "suites", "pools", "specials", "score",
                    "free_rooms", "rank", "win_credit")


#: what a checkpoint (``expect.after``) may check: the state after a round, not the final result or
#: the log (the log already carries its round, so ``events`` patterns can say ``"round"``)
CHECKPOINT_PER_SEAT = ("money", "hand", "discard", "rooms", "suites", "pools", "specials", "free_rooms")


_STATE_KEYS = {"comment", "tiebreak", "table_tiles", "tile_stack", "piles", "in_pile", "not_in_pile"}


_CHECKPOINT_KEYS = set(CHECKPOINT_PER_SEAT) | _STATE_KEYS


EXPECT_KEYS = set(PER_SEAT_EXPECT) | _STATE_KEYS | {"round", "events", "event_sequence", "no_events",
                                                      "log_contains", "error", "after"}


def parse_pattern(raw, where: str, nm: Names) -> dict:
    """An event pattern: kind plus any of round, seat and the kind's named fields, and count."""
    raw = as_object(raw, where)
    kind = raw.get("kind")
    if not isinstance(kind, str) or kind.upper() not in EVENT_CODE:
        fail(field(where, "kind"), f"unknown event kind {kind!r} (kinds: {', '.join(EVENT_KINDS)})")
    kind = kind.upper()
    fields = dict(EVENT_FIELDS[kind])
    allowed = {"kind", "round", "seat", "count", "comment"} | set(fields)
    check_keys(raw, where, allowed)
    pat: dict[str, Any] = {"kind": kind}
    if "round" in raw:
        pat["round"] = nm.round(raw["round"], field(where, "round"))
    if "seat" in raw:
        pat["seat"] = nm.seat(raw["seat"], field(where, "seat"))
    if "count" in raw:
        pat["count"] = whole(raw["count"], field(where, "count"))
    for name, typ in fields.items():
        if name not in raw:
            continue
        fw = field(where, name)
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
            pat[name] = whole(value, fw, None)
    return pat


def _parse_expected_rooms(value, sw: str, nm: Names, hotels: Hotels, seat: int, after: int) -> dict:
    """A list names every owned room (so the count is checked too), an object only some; either way
    no room may lie beyond what the seat can own after round ``after``."""
    if isinstance(value, list):
        lo, hi = hotels.least[seat], hotels.most(seat, after)
        if not lo <= len(value) <= hi:
            fail(sw, f"lists {len(value)} rooms, but seat {seat} owns {lo} at the start and at most "
                      f"{hi} after round {after} (rooms are never lost; one tile a round)")
        return {"all": len(value), "rooms": {i: room_chips(v, field(sw, i), nm)
                                             for i, v in enumerate(value)}}
    rooms = {}
    for rk, chips in as_object(value, sw).items():
        rw = field(sw, str(rk))
        room = room_key(rk, rw)
        why = hotels.beyond(seat, after, room)
        if why:
            fail(rw, why)
        rooms[room] = room_chips(chips, rw, nm)
    return {"all": None, "rooms": rooms}


def _parse_expected_suites(value, sw: str, nm: Names, hotels: Hotels, seat: int, after: int) -> list:
    suites = nm.rooms(value, sw)
    for i, room in enumerate(suites):
        why = hotels.beyond(seat, after, room)
        if why:
            fail(field(sw, i), why)
    return sorted(suites)


def _parse_seat_value(key: str, value, sw: str, nm: Names, hotels: Hotels, seat: int, after: int):
    if key in ("hand", "discard"):
        return sorted(nm.cards(value, sw))
    if key == "suites":
        return _parse_expected_suites(value, sw, nm, hotels, seat, after)
    if key == "specials":
        return nm.specials(value, sw)
    if key == "rooms":
        return _parse_expected_rooms(value, sw, nm, hotels, seat, after)
    if key == "win_credit":
        if not isinstance(value, (int, float)) or isinstance(value, bool):
            fail(sw, f"must be a number, got {value!r}")
        return float(value)
    return whole(value, sw, None)


def _parse_piles(value, where: str, nm: Names) -> dict[int, int]:
    """Chips left in each nation's pile: ``{"N": 15}`` (nations not named are not checked) or a list
    with one count per nation, in the data file's order."""
    if isinstance(value, list):
        if len(value) != nm.c.n_nations:
            fail(where, f"as a list, give one count per nation ({', '.join(nm.data.nation_codes)})")
        given = {n: v for n, v in enumerate(value) if v is not None}
        wheres = {n: field(where, n) for n in given}
    else:
        given, wheres = {}, {}
        for key, v in as_object(value, where).items():
            n = nm.nation(key, field(where, key))
            given[n], wheres[n] = v, field(where, key)
    return {n: whole(v, wheres[n], 0, nm.c.chips_per_nation) for n, v in given.items()}


def _parse_state_checks(raw: dict, where: str, nm: Names, hotels: Hotels, after: int,
                        per_seat_keys: tuple[str, ...]) -> dict:
    """The checks of the state after round ``after``: per seat, the tie-breaker, tiles and piles."""
    out: dict[str, Any] = {}
    for key in per_seat_keys:
        if key not in raw:
            continue
        kw = f"{where}.{key}"
        out[key] = {seat: _parse_seat_value(key, value, f"{kw}[{seat}]", nm, hotels, seat, after)
                    for seat, value in nm.per_seat(raw[key], kw).items() if value is not None}
    if "tiebreak" in raw:
        out["tiebreak"] = whole(raw["tiebreak"], f"{where}.tiebreak", 0, nm.players - 1)
    if "table_tiles" in raw:
        out["table_tiles"] = nm.tile_counts(raw["table_tiles"], f"{where}.table_tiles")
    if "tile_stack" in raw:
        tw = f"{where}.tile_stack"
        out["tile_stack"] = [nm.tile(t, field(tw, i)) for i, t in enumerate(as_list(raw["tile_stack"], tw))]
    if "piles" in raw:
        out["piles"] = _parse_piles(raw["piles"], f"{where}.piles", nm)
    for key in ("in_pile", "not_in_pile"):
        if key in raw:
            out[key] = nm.chips(raw[key], f"{where}.{key}")
    return out


def _parse_after(raw, nm: Names, hotels: Hotels) -> dict[int, dict]:
    """``{"3": {...}, "5": {...}}``: checks of the state after each named round, which must be played."""
    out = {}
    for r, checks in nm.per_round(raw, "expect.after").items():
        where = f"expect.after.{r}"
        if not hotels.start <= r <= hotels.last:
            fail(where, f"round {r} is not played (the scenario plays rounds "
                         f"{hotels.start}..{hotels.last})")
        checks = as_object(checks, where)
        check_keys(checks, where, _CHECKPOINT_KEYS)
        out[r] = _parse_state_checks(checks, where, nm, hotels, r, CHECKPOINT_PER_SEAT)
    return dict(sorted(out.items()))


def parse_expect(raw, nm: Names, hotels: Hotels) -> dict:
    raw = as_object(raw, "expect")
    check_keys(raw, "expect", EXPECT_KEYS)
    out = _parse_state_checks(raw, "expect", nm, hotels, hotels.last, PER_SEAT_EXPECT)
    if "after" in raw:
        out["after"] = _parse_after(raw["after"], nm, hotels)
    if "round" in raw:
        out["round"] = whole(raw["round"], "expect.round", 1, nm.c.rounds + 1)
    for key in ("events", "event_sequence", "no_events"):
        if key in raw:
            out[key] = [parse_pattern(p, f"expect.{key}[{i}]", nm)
                        for i, p in enumerate(as_list(raw[key], f"expect.{key}"))]
    if "log_contains" in raw:
        lines = as_list(raw["log_contains"], "expect.log_contains")
        if not all(isinstance(s, str) for s in lines):
            fail("expect.log_contains", "must be a list of strings")
        out["log_contains"] = lines
    if "error" in raw:
        err = raw["error"]
        if isinstance(err, str):
            err = [err]
        if not (isinstance(err, list) and err and all(isinstance(s, str) for s in err)):
            fail("expect.error", "must be a message substring or a list of alternatives")
        if len(raw) - ("comment" in raw) > 1:
            fail("expect.error", "a scenario that must be rejected expects nothing else")
        out["error"] = err
    return out
