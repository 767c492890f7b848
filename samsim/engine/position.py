"""Positions: a game set up as a scenario describes it (the seeded deal with overrides, from a
given round, with scripted decisions where given), played by the compiled engine
(docs/protocol.md, "Positions").
"""

from __future__ import annotations

import numpy as np

from samsim import components as comps
from samsim.components import TILE_KINDS, GameData
from samsim.engine.lineup import lineup
from samsim.engine.play import GameRecord, check_players, check_seed, control, game_record
from samsim.kernel.decisions import (
    BUILD,
    CARD,
    DECISION_LEN,
    GROUP,
    HOLIDAY,
    MAX_PICKS,
    MAX_TAKE,
    N_TAKE,
    RECALL,
    SEND_HOME,
    SUITE_ROOM,
    SWITCH,
    TAKE,
)
from samsim.kernel.game import deal_one_nb, play_one_nb
from samsim.kernel.state import NO_OVERRIDE, State, allocate

_POSITION_KEYS = {"players", "seed", "game", "round", "rounds", "flags", "tile_stack", "tourist_cards",
                  "table_tiles", "tiebreak", "seats", "arrivals", "decisions", "params",
                  "strategies"}
_SEAT_KEYS = {"money", "hand", "discard", "rooms", "suites", "pools", "specials"}
_DECISION_KEYS = {"card", "recall", "switch", "build", "send_home", "group", "take", "holiday"}


def _ints(value, field, lo, hi, most=None) -> list[int]:
    if not isinstance(value, list) or not all(isinstance(v, int) and lo <= v <= hi for v in value):
        raise ValueError(f"{field}: must be a list of whole numbers {lo}..{hi}, got {value!r}")
    if most is not None and len(value) > most:
        raise ValueError(f"{field}: at most {most} values, got {len(value)}")
    return value


def _int(value, field, lo, hi) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or not lo <= value <= hi:
        raise ValueError(f"{field}: must be a whole number {lo}..{hi}, got {value!r}")
    return value


def _apply_seats(data: GameData, st: State, seats) -> None:
    c = data.components
    n_cards, n_chips = len(c.card_bid), c.n_nations * c.chips_per_nation
    players = st.money.shape[1]
    if not isinstance(seats, list) or len(seats) != players:
        raise ValueError(f"seats: give one entry per seat ({players})")
    seen: set[int] = set()
    for p, seat in enumerate(seats):
        f = f"seats[{p}]"
        if not isinstance(seat, dict) or set(seat) - _SEAT_KEYS:
            raise ValueError(f"{f}: must be an object with keys among {', '.join(sorted(_SEAT_KEYS))}")
        st.money[0, p] = _int(seat.get("money", int(st.money[0, p])), f"{f}.money", 0, 10**9)
        discard = _ints(seat.get("discard", []), f"{f}.discard", 0, n_cards - 1)
        hand = _ints(seat.get("hand", [k for k in range(n_cards) if k not in discard]), f"{f}.hand",
                     0, n_cards - 1)
        if sorted(hand + discard) != list(range(n_cards)):
            raise ValueError(f"{f}: hand and discard must hold each of the {n_cards} price cards once")
        st.hand[0, p] = sum(1 << k for k in hand)
        st.discard[0, p] = sum(1 << k for k in discard)
        rooms = seat.get("rooms", [[] for _ in range(c.base_rooms)])
        if not isinstance(rooms, list) or not c.base_rooms <= len(rooms) <= c.max_rooms:
            raise ValueError(f"{f}.rooms: must list {c.base_rooms}..{c.max_rooms} rooms")
        st.n_rooms[0, p] = len(rooms)
        st.room_chip[0, p] = -1
        st.occupied[0, p] = 0
        st.nation_rooms[0, p] = 0
        for room, chips in enumerate(rooms):
            chips = _ints(chips, f"{f}.rooms[{room}]", 0, n_chips - 1, most=2)
            if len(chips) == 2 and not all(c.chip_kind[x] == comps.LOVER for x in chips):
                raise ValueError(f"{f}.rooms[{room}]: only two lovers may share a room")
            for slot, chip in enumerate(chips):
                if chip in seen:
                    raise ValueError(f"{f}.rooms[{room}]: chip {data.chip_name(chip)} is in two places")
                seen.add(chip)
                st.room_chip[0, p, room, slot] = chip
                st.occupied[0, p] |= 1 << room
                st.nation_rooms[0, p, chip // c.chips_per_nation] |= 1 << room
        suites = _ints(seat.get("suites", []), f"{f}.suites", 0, len(rooms) - 1)
        st.suites[0, p] = sum(1 << k for k in set(suites))
        st.pools[0, p] = _int(seat.get("pools", 0), f"{f}.pools", 0, 99)
        st.specials[0, p] = _ints(seat.get("specials", [0, 0, 0]), f"{f}.specials", 0, 99)
        if len(seat.get("specials", [0, 0, 0])) != 3:
            raise ValueError(f"{f}.specials: give [switch, send_home, recall]")
    full = (1 << c.chips_per_nation) - 1
    for nation in range(c.n_nations):
        st.pile[0, nation] = full & ~sum(1 << (x % c.chips_per_nation) for x in seen
                                         if x // c.chips_per_nation == nation)


def _script_row(data: GameData, row: np.ndarray, dec: dict, field: str) -> None:
    c = data.components
    n_cards, n_chips = len(c.card_bid), c.n_nations * c.chips_per_nation
    if not isinstance(dec, dict) or set(dec) - _DECISION_KEYS or "card" not in dec:
        raise ValueError(f"{field}: must be null or an object with a card and keys among "
                         f"{', '.join(sorted(_DECISION_KEYS))}")
    row[CARD] = _int(dec["card"], f"{field}.card", 0, n_cards - 1)
    for first, key, hi in ((RECALL, "recall", n_cards - 1), (SEND_HOME, "send_home", c.max_rooms - 1),
                           (HOLIDAY, "holiday", c.max_rooms - 1)):
        values = _ints(dec.get(key, []), f"{field}.{key}", 0, hi, most=MAX_PICKS)
        row[first:first + len(values)] = values
    if dec.get("switch") is not None:
        row[SWITCH] = _int(dec["switch"], f"{field}.switch", 0, n_cards - 1)
    build = dec.get("build")
    if build is not None:
        if not isinstance(build, dict) or set(build) - {"tile", "room"}:
            raise ValueError(f"{field}.build: must be null or {{tile, room}}")
        row[BUILD] = _int(build.get("tile"), f"{field}.build.tile", 0, len(TILE_KINDS) - 1)
        if build.get("room") is not None:
            row[SUITE_ROOM] = _int(build["room"], f"{field}.build.room", 0, c.max_rooms - 1)
    if dec.get("group") is not None:
        row[GROUP] = _int(dec["group"], f"{field}.group", 0, c.max_groups - 1)
    take = dec.get("take", [])
    if not isinstance(take, list) or len(take) > MAX_TAKE:
        raise ValueError(f"{field}.take: must be a list of at most {MAX_TAKE} [chip, room] pairs")
    if take and row[GROUP] < 0:
        raise ValueError(f"{field}.take: tourists taken without a group")
    row[N_TAKE] = len(take)
    for i, pair in enumerate(take):
        if not isinstance(pair, list) or len(pair) != 2:
            raise ValueError(f"{field}.take[{i}]: must be a [chip, room] pair")
        chip = _int(pair[0], f"{field}.take[{i}] chip", 0, n_chips - 1)
        room = _int(pair[1], f"{field}.take[{i}] room", 0, c.max_rooms - 1)
        row[TAKE + 2 * i] = chip
        row[TAKE + 2 * i + 1] = room


def play_position(data: GameData | None, position: dict, log: bool = True) -> GameRecord:
    """Play a position (docs/protocol.md, 'Positions'): the seeded deal with overrides, from a given
    round, with scripted decisions where given."""
    data = data or comps.load()
    c = data.components
    if not isinstance(position, dict):
        raise ValueError("position: must be an object")
    unknown = set(position) - _POSITION_KEYS
    if unknown:
        raise ValueError(f"position: unknown key {sorted(unknown)[0]!r} "
                         f"(known: {', '.join(sorted(_POSITION_KEYS))})")
    players = check_players(data, position.get("players"))
    seed = check_seed(position.get("seed", 0))
    game = _int(position.get("game", 0), "game", 0, 2**63 - 1)
    first = _int(position.get("round", 1), "round", 1, c.rounds) - 1
    last = first + _int(position.get("rounds", c.rounds - first), "rounds", 1, c.rounds - first)

    st = allocate(c, 1, players, log=log)
    deal_one_nb(c, st, seed, game)
    st.round_no[0] = first
    if "flags" in position:
        flags = _ints(position["flags"], "flags", 0, c.n_nations - 1)
        if len(flags) != c.rounds:
            raise ValueError(f"flags: give one nation per round ({c.rounds})")
        st.flags[0] = flags
    if "tile_stack" in position:
        stack = _ints(position["tile_stack"], "tile_stack", 0, len(TILE_KINDS) - 1,
                      most=st.tile_stack.shape[1])
        st.tile_stack[0, :len(stack)] = stack
        st.stack_pos[0], st.stack_len[0] = 0, len(stack)
    if "tourist_cards" in position:
        cards = _ints(position["tourist_cards"], "tourist_cards", 0, st.card_order.shape[1] - 1,
                      most=c.rounds - first)
        st.card_order[0, first:first + len(cards)] = cards
    if "table_tiles" in position:
        table = _ints(position["table_tiles"], "table_tiles", 0, 99)
        if len(table) != len(TILE_KINDS):
            raise ValueError(f"table_tiles: give a count per tile kind ({', '.join(TILE_KINDS)})")
        st.table_tiles[0] = table
    st.tiebreak[0] = _int(position.get("tiebreak", int(st.tiebreak[0])), "tiebreak", 0, players - 1)
    if "seats" in position:
        _apply_seats(data, st, position["seats"])

    arrivals = np.full((1, c.rounds, c.max_groups, c.chips_per_nation), -1, np.int64)
    arrivals[0, :, 0, 0] = NO_OVERRIDE
    for key, groups in (position.get("arrivals") or {}).items():
        r = _int(int(key) if str(key).isdigit() else key, "arrivals round", first + 1, last) - 1
        if not isinstance(groups, list) or not 1 <= len(groups) <= c.max_groups:
            raise ValueError(f"arrivals.{key}: give 1..{c.max_groups} groups")
        arrivals[0, r] = -1
        for i, group in enumerate(groups):
            chips = _ints(group, f"arrivals.{key}[{i}]", 0, c.n_nations * c.chips_per_nation - 1,
                          most=c.chips_per_nation)
            if any(x // c.chips_per_nation != st.flags[0, r] for x in chips):
                raise ValueError(f"arrivals.{key}[{i}]: every arriving chip must be of the round's "
                                 f"nation ({data.nation_names[st.flags[0, r]]})")
            arrivals[0, r, i, :len(chips)] = chips

    script = np.full((1, c.rounds, players, DECISION_LEN), -1, np.int64)
    for key, per_seat in (position.get("decisions") or {}).items():
        r = _int(int(key) if str(key).isdigit() else key, "decisions round", first + 1, last) - 1
        if not isinstance(per_seat, list) or len(per_seat) != players:
            raise ValueError(f"decisions.{key}: give one entry (or null) per seat ({players})")
        for p, dec in enumerate(per_seat):
            if dec is not None:
                _script_row(data, script[0, r, p], dec, f"decisions.{key}[{p}]")

    seats = lineup(players, position.get("strategies"), position.get("params"))
    ctl = control(data, seats, seed, game, script, arrivals)
    play_one_nb(c, st, ctl, first, last)
    return game_record(data, st, log)


