"""Positions the rules cannot produce. The engines play any position they are given, so a scenario
that no game could reach would test the rules on a state they never meet: the loader refuses it,
naming the field (docs/scenarios.md, "Impossible positions")."""

from __future__ import annotations

from samsim.components import EXTRA_ROOM, POOL, SPECIAL_KINDS, SUITE, TILE_KINDS, GameData
from samsim.scenario.names import fail, field, whole


def check_unique_chips(seats: list[dict], data: GameData) -> None:
    where_of: dict[int, str] = {}
    for s, seat in enumerate(seats):
        for r, chips in enumerate(seat["rooms"]):
            for chip in chips:
                here = f"seats[{s}].rooms[{r}]"
                if chip in where_of:
                    fail(here, f"{data.chip_name(chip)} is already in {where_of[chip]} (a chip is in "
                                "one place)")
                where_of[chip] = here


def check_flag_row(flags: list[int], data: GameData) -> None:
    """The deal lays one stack of flags per copy, each holding every nation once, and where two stacks
    meet with equal flags it swaps the later one with the next differing flag of its stack
    (samsim/kernel/rules/setup.py, ``_lay_flags_nb``). So no row it lays repeats a nation in two
    consecutive rounds (with two nations or more: one nation can only repeat), and every nation has
    exactly its flags of the box."""
    c = data.components
    for i in range(1, len(flags)):
        if c.n_nations > 1 and flags[i] == flags[i - 1]:
            fail(field("flags", i), f"{data.nation_names[flags[i]]} again, as in round {i} (no nation "
                                     "has its flag in two consecutive rounds)")
    for nation, name in enumerate(data.nation_names):
        at = [i for i, n in enumerate(flags) if n == nation]
        if len(at) > c.flags_per_nation:
            fail(field("flags", at[c.flags_per_nation]),
                  f"{len(at)} flags of {name}, but the box holds {c.flags_per_nation} per nation")


def tiebreak(doc, start: int, players: int, first: int = 0) -> int:
    """The card starts at t = ``first`` (0 unless the data's [seats] tiebreak_start moves it) and
    moves one seat clockwise after every round (kernel/rules/round.py ``st.tiebreak[g] = (t + 1) %
    n``), so round r always starts at t = (first + r - 1) mod players: an absent tiebreak is that
    one, any other is refused."""
    expected = (first + start - 1) % players
    if "tiebreak" not in doc:
        return expected
    t = whole(doc["tiebreak"], "tiebreak", 0, players - 1)
    if t != expected:
        fail("tiebreak", f"must be {expected} at the start of round {start} with {players} players "
                          f"(t = (start + round - 1) mod players: it starts at {first} and moves one "
                          f"seat after every round), got {t}")
    return t


def _tile_sources(pos: dict, raw_seats: dict, data: GameData) -> list[tuple[str, list[int]]]:
    """Every place a tile certainly is, with its count per kind: the stack (the seeded one when the
    scenario gives none: the engines then keep the deal's whole stack), the table, and what each seat
    owns for good (extra rooms, suites and pools are never lost; a special tile is counted only while
    unused, since a used one has left the game)."""
    c = data.components
    kinds = len(TILE_KINDS)
    if "tile_stack" in pos:
        stack = [pos["tile_stack"].count(k) for k in range(kinds)]
        sources = [("tile_stack", stack)]
    else:
        sources = [("the seeded tile stack", [int(n) for n in c.tile_count])]
    sources.append(("table_tiles", list(pos.get("table_tiles", [0] * kinds))))
    first_special = kinds - len(SPECIAL_KINDS)
    for s, seat in enumerate(pos["seats"]):
        raw = raw_seats.get(s) or {}
        where = f"seats[{s}]"
        extra = [0] * kinds
        extra[EXTRA_ROOM] = len(seat["rooms"]) - c.base_rooms
        rooms_field = "extra_rooms" if "extra_rooms" in raw else "rooms"
        suites, pools, specials = [0] * kinds, [0] * kinds, [0] * kinds
        suites[SUITE] = len(seat["suites"])
        pools[POOL] = seat["pools"]
        specials[first_special:] = seat["specials"]
        sources += [(f"{where}.{rooms_field}", extra), (f"{where}.suites", suites),
                    (f"{where}.pools", pools), (f"{where}.specials", specials)]
    return sources


def check_tile_supply(pos: dict, raw_seats: dict, data: GameData) -> None:
    """No kind of tile may be in more places than the box holds; the field named is the first place
    where the count goes over."""
    box = data.components.tile_count
    sources = _tile_sources(pos, raw_seats, data)
    for kind, name in enumerate(TILE_KINDS):
        total, parts = 0, []
        for where, counts in sources:
            if not counts[kind]:
                continue
            total += counts[kind]
            parts.append(f"{where} {counts[kind]}")
            if total > box[kind]:
                hint = "" if "tile_stack" in pos else (" (without tile_stack the engines keep the "
                                                       "deal's whole stack: give tile_stack)")
                fail(where, f"{total} {name} tiles in all ({' + '.join(parts)}), but the box holds "
                             f"{box[kind]}{hint}")


class Hotels:
    """How many rooms a seat can own after a played round: the rooms it starts with (rooms are never
    lost) plus at most one extra room a round (one tile a round), and no more extra rooms than reach
    the table by then. Expectations naming a room beyond that are refused at load time."""

    def __init__(self, pos: dict, data: GameData, last: int):
        self.c = data.components
        self.pos = pos
        self.start = pos["round"]
        self.last = last
        self.least = [len(seat["rooms"]) for seat in pos["seats"]]

    def extra_rooms_on_offer(self, after_round: int) -> int:
        """Extra-room tiles on the table or revealed by the end of ``after_round``."""
        c, pos = self.c, self.pos
        revealed = int(c.tiles_revealed[pos["players"], self.start - 1:after_round].sum())
        if "tile_stack" in pos:
            from_stack = pos["tile_stack"][:revealed].count(EXTRA_ROOM)
        else:
            from_stack = min(revealed, int(c.tile_count[EXTRA_ROOM]))
        return pos.get("table_tiles", [0] * len(TILE_KINDS))[EXTRA_ROOM] + from_stack

    def most(self, seat: int, after_round: int) -> int:
        rounds = after_round - self.start + 1
        return self.least[seat] + min(rounds, self.extra_rooms_on_offer(after_round))

    def beyond(self, seat: int, after_round: int, room: int) -> str:
        """Why ``room`` cannot exist after ``after_round``, or "" if it can."""
        most = self.most(seat, after_round)
        if room < most:
            return ""
        return (f"room {room} is beyond seat {seat}'s hotel: it owns {self.least[seat]} rooms at the "
                f"start and at most rooms 0..{most - 1} after round {after_round}")
