"""How a scenario names things (chips ``"N3"``, cards ``"6/5"``, tiles ``"suite"``, nations
``"Norway"``, seats by name) and how a mistake is reported: one line that starts with the field."""

from __future__ import annotations

from typing import Any

from samsim import components
from samsim.components import (
    EXTRA_ROOM,
    POOL,
    RECALL,
    SEND_HOME,
    SPECIAL_KINDS,
    SUITE,
    SWITCH,
    TILE_KINDS,
    GameData,
)

TILE_ALIASES = {
    "extra_room": EXTRA_ROOM, "extra room": EXTRA_ROOM, "extra": EXTRA_ROOM, "room": EXTRA_ROOM,
    "suite": SUITE,
    "pool": POOL, "swimming pool": POOL, "swimming_pool": POOL,
    "switch": SWITCH, "send_home": SEND_HOME, "send home": SEND_HOME, "recall": RECALL,
}


class ScenarioError(ValueError):
    """A scenario file that cannot be turned into a position; the message starts with the field."""


def fail(where: str, problem: str):
    raise ScenarioError(f"{where}: {problem}" if where else problem)


def field(where: str, key) -> str:
    if isinstance(key, int):
        return f"{where}[{key}]"
    return f"{where}.{key}" if where else str(key)


def check_keys(obj, where: str, allowed: set[str]) -> None:
    unknown = sorted(set(obj) - allowed)
    if unknown:
        fail(field(where, unknown[0]), f"unknown key (expected one of {', '.join(sorted(allowed))})")


def whole(value, where: str, lo: int | None = 0, hi: int | None = None) -> int:
    if not isinstance(value, int) or isinstance(value, bool):
        fail(where, f"must be a whole number, got {value!r}")
    if lo is not None and value < lo:
        fail(where, f"must be at least {lo}, got {value}")
    if hi is not None and value > hi:
        fail(where, f"must be at most {hi}, got {value}")
    return value


def as_list(value, where: str, what: str = "a list") -> list:
    if not isinstance(value, list):
        fail(where, f"must be {what}, got {value!r}")
    return value


def as_object(value, where: str) -> dict:
    if not isinstance(value, dict):
        fail(where, f"must be an object, got {value!r}")
    return value


class Names:
    """Turns the readable names of one data file into canonical ids, naming the field on failure."""

    def __init__(self, data: GameData, players: int, seat_names: tuple[str, ...]):
        self.data = data
        self.c = data.components
        self.players = players
        self.seat_names = seat_names

    def chip(self, value, where: str) -> int:
        if not isinstance(value, str):
            fail(where, f"a tourist chip is written as a name like 'N3', got {value!r}")
        try:
            return self.data.chip_id(value)
        except ValueError as err:
            fail(where, str(err))

    def chips(self, value, where: str) -> list[int]:
        return [self.chip(v, field(where, i)) for i, v in enumerate(as_list(value, where))]

    def card(self, value, where: str) -> int:
        if not isinstance(value, str):
            names = ", ".join(self.data.card_name(k) for k in range(self.data.n_cards))
            fail(where, f"a price card is written as 'bid/price' or 'holiday' ({names}), got {value!r}")
        try:
            return self.data.card_id(value.strip().lower())
        except ValueError as err:
            fail(where, str(err))

    def cards(self, value, where: str) -> list[int]:
        return [self.card(v, field(where, i)) for i, v in enumerate(as_list(value, where))]

    def tile(self, value, where: str) -> int:
        key = value.strip().lower() if isinstance(value, str) else None
        if key not in TILE_ALIASES:
            fail(where, f"unknown tile kind {value!r} (tile kinds: {', '.join(TILE_KINDS)})")
        return TILE_ALIASES[key]

    def nation(self, value, where: str) -> int:
        if isinstance(value, str):
            for n, (name, code) in enumerate(zip(self.data.nation_names, self.data.nation_codes)):
                if value == code or value.lower() == name.lower():
                    return n
        choices = ", ".join(f"{c} ({n})" for n, c in zip(self.data.nation_names, self.data.nation_codes))
        fail(where, f"unknown nation {value!r} (nations: {choices})")

    def room(self, value, where: str) -> int:
        return whole(value, where, 0, self.c.max_rooms - 1)

    def rooms(self, value, where: str) -> list[int]:
        return [self.room(v, field(where, i)) for i, v in enumerate(as_list(value, where))]

    def seat(self, value, where: str) -> int:
        if isinstance(value, str):
            if value in self.seat_names:
                return self.seat_names.index(value)
            if value.isdigit():
                value = int(value)
            else:
                known = f" (seat names: {', '.join(self.seat_names)})" if self.seat_names else ""
                fail(where, f"unknown seat {value!r}{known}")
        return whole(value, where, 0, self.players - 1)

    def round(self, value, where: str) -> int:
        if isinstance(value, str) and value.isdigit():
            value = int(value)
        return whole(value, where, 1, self.c.rounds)

    def tile_counts(self, value, where: str) -> list[int]:
        """``{"pool": 2}`` or ``["pool", "pool"]`` -> a count per tile kind."""
        counts = [0] * len(TILE_KINDS)
        if isinstance(value, dict):
            for key, n in value.items():
                counts[self.tile(key, field(where, key))] += whole(n, field(where, key))
        elif isinstance(value, list):
            for i, v in enumerate(value):
                counts[self.tile(v, field(where, i))] += 1
        else:
            fail(where, f"must be an object of tile kind -> count or a list of tile kinds, got {value!r}")
        return counts

    def specials(self, value, where: str) -> list[int]:
        """``{"recall": 1}``, ``["recall"]`` or the canonical counts ``[switch, send_home, recall]``."""
        if isinstance(value, list) and value and all(isinstance(v, int) for v in value):
            if len(value) != len(SPECIAL_KINDS):
                fail(where, f"as counts, give one per special tile ({', '.join(SPECIAL_KINDS)})")
            return [whole(v, field(where, i)) for i, v in enumerate(value)]
        counts = self.tile_counts(value, where)
        for kind, n in enumerate(counts):
            if n and TILE_KINDS[kind] not in SPECIAL_KINDS:
                fail(where, f"{TILE_KINDS[kind]} is not a special tile (special tiles: "
                             f"{', '.join(SPECIAL_KINDS)})")
        return counts[len(TILE_KINDS) - len(SPECIAL_KINDS):]

    def per_seat(self, value, where: str) -> dict[int, Any]:
        """A list with one entry per seat, or an object keyed by seat number or seat name."""
        if isinstance(value, list):
            if len(value) != self.players:
                fail(where, f"must give one entry per seat ({self.players}), got {len(value)}")
            return dict(enumerate(value))
        if isinstance(value, dict):
            out = {}
            for key, v in value.items():
                seat = self.seat(key, field(where, key))
                if seat in out:
                    fail(field(where, key), f"seat {seat} is given twice")
                out[seat] = v
            return out
        fail(where, f"must be a list with one entry per seat or an object keyed by seat, got {value!r}")

    def per_round(self, value, where: str) -> dict[int, Any]:
        out = {}
        for key, v in as_object(value, where).items():
            out[self.round(key, field(where, key))] = v
        return out


def room_key(key, where: str) -> int:
    if isinstance(key, int) and not isinstance(key, bool) and key >= 0:
        return key
    if isinstance(key, str) and key.isdigit():
        return int(key)
    fail(where, "rooms are keyed by room number")


def room_chips(value, where: str, nm: Names) -> list[int]:
    """A room: ``[]``, ``"N3"`` or ``["E10", "N11"]`` (two lovers, earlier occupant first)."""
    if isinstance(value, str):
        return [nm.chip(value, where)]
    chips = nm.chips(value, where)
    if len(chips) > 2 or (len(chips) == 2 and not all(
            nm.data.components.chip_kind[x] == components.LOVER for x in chips)):
        fail(where, "a room holds one tourist, or two lovers (a couple)")
    return chips
