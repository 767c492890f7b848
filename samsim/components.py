"""Load and validate a component data file into the small arrays the kernels read.

The data file (``samsim/data/hotel_samoa.toml`` by default, or a user's rules variant) is the only
place component values live. Validation happens here, once, so the kernels can trust every index:
a bad file is rejected with a message naming the field and the problem, never half-loaded.

Conventions shared with the kernels (and with the reference engine, which reads the same arrays):

* chips are numbered ``nation * chips_per_nation + k``; inside a nation, ``k`` runs over plain,
  rich, lover, celebrity, then swimmer chips, in the order of the data file;
* price cards are numbered in data-file order, the grey Staff holiday card last;
* rooms ``0 .. base_rooms-1`` are the board's grid, row by row; extra rooms follow;
* tile kinds are the ``TILE_KINDS`` order below.
"""

from __future__ import annotations

import hashlib
import math
import tomllib
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import NamedTuple

import numpy as np

#: Seats the kernels support; player counts of a data file must lie in 3..MAX_SEATS.
MAX_SEATS = 6
#: Rounds a data file may have: chip streams 16 + r must stay below the seat streams (samsim.rng).
MAX_ROUNDS = 48
#: Most cards a RECALL, or tourists a Staff holiday / SEND_HOME, may move (decision record slots).
MAX_PICKS = 4
#: Tile kinds the rules know; a data file gives their counts.
TILE_KINDS = ("extra_room", "suite", "pool", "switch", "send_home", "recall")
EXTRA_ROOM, SUITE, POOL, SWITCH, SEND_HOME, RECALL = range(6)
#: The special tiles, in TILE_KINDS order (a player's ``specials[k]`` counts kind SWITCH + k).
SPECIAL_KINDS = TILE_KINDS[SWITCH:]
#: Chip abilities.
CHIP_KINDS = ("plain", "rich", "lover", "celebrity", "swimmer")
PLAIN, RICH, LOVER, CELEBRITY, SWIMMER = range(5)

DEFAULT_DATA = "hotel_samoa.toml"


class ComponentDataError(ValueError):
    """A data file that is malformed or inconsistent; the message names the field."""


class Components(NamedTuple):
    """Component tables in the form the compiled rules read (numbers and arrays only)."""

    rounds: int
    starting_money: int
    double_factor: int
    special_tile_value: int
    holiday_removals: int
    send_home_removals: int
    recall_cards: int
    n_nations: int
    chips_per_nation: int
    flags_per_nation: int
    base_rooms: int
    max_rooms: int
    max_groups: int
    holiday_card: int
    round_factor: np.ndarray  # int64[rounds]: group-size multiplier of each round (1 or double_factor)
    tiles_revealed: np.ndarray  # int64[MAX_SEATS + 1, rounds]: tiles revealed per player count, round
    card_bid: np.ndarray  # int64[n_cards]: build bid; -1 for Staff holiday
    card_price: np.ndarray  # int64[n_cards]: room price; -1 for Staff holiday
    room_adjacent: np.ndarray  # int64[max_rooms]: bitmap of rooms orthogonally adjacent to each room
    tile_count: np.ndarray  # int64[len(TILE_KINDS)]: tiles of each kind in the stack
    chip_kind: np.ndarray  # int64[n_chips]: CHIP_KINDS index
    chip_buoy: np.ndarray  # int64[n_chips]: buoy points (0 unless swimmer)
    card_groups: np.ndarray  # int64[n_cards_tourist, MAX_SEATS + 1, max_groups]: group sizes, 0 padded


@dataclass(frozen=True)
class GameData:
    """A validated data file: the kernel tables plus the names and provenance reports need."""

    components: Components
    nation_names: tuple[str, ...]
    nation_codes: tuple[str, ...]
    min_players: int
    max_players: int
    assumed: tuple[str, ...]
    source: str
    sha256: str

    @property
    def n_cards(self) -> int:
        return len(self.components.card_bid)

    def chip_name(self, chip: int) -> str:
        """``E3``-style name: nation code and index inside the nation."""
        per = self.components.chips_per_nation
        return f"{self.nation_codes[chip // per]}{chip % per}"

    def chip_id(self, name: str) -> int:
        per = self.components.chips_per_nation
        for nation, code in enumerate(self.nation_codes):
            if name.startswith(code) and name[len(code):].isdigit():
                k = int(name[len(code):])
                if k < per:
                    return nation * per + k
        raise ValueError(f"unknown tourist chip {name!r} (expected a nation code "
                         f"{'/'.join(self.nation_codes)} and an index 0..{per - 1}, e.g. 'E3')")

    def card_name(self, card: int) -> str:
        c = self.components
        if card == c.holiday_card:
            return "holiday"
        return f"{c.card_bid[card]}/{c.card_price[card]}"

    def card_id(self, name: str | int) -> int:
        """A price card from its name: ``"holiday"``, ``"6/5"`` (bid/price) or its index."""
        if isinstance(name, int) and not isinstance(name, bool) and 0 <= name < self.n_cards:
            return name
        for card in range(self.n_cards):
            if self.card_name(card) == str(name):
                return card
        names = ", ".join(self.card_name(k) for k in range(self.n_cards))
        raise ValueError(f"unknown price card {name!r} (cards: {names})")


def default_data_path() -> Path:
    return Path(str(resources.files("samsim.data").joinpath(DEFAULT_DATA)))


def load(path: str | Path | None = None) -> GameData:
    """Read and validate a data file (the packaged default when ``path`` is None)."""
    path = default_data_path() if path is None else Path(path)
    try:
        raw = path.read_bytes()
    except OSError as err:
        raise ComponentDataError(f"cannot read data file {path}: {err.strerror or err}") from None
    try:
        doc = tomllib.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, tomllib.TOMLDecodeError) as err:
        raise ComponentDataError(f"{path.name}: not valid TOML: {err}") from None
    try:
        return _build(doc, source=str(path), sha256=hashlib.sha256(raw).hexdigest())
    except ComponentDataError as err:
        raise ComponentDataError(f"{path.name}: {err}") from None


def _fail(field: str, problem: str):
    raise ComponentDataError(f"{field}: {problem}")


def _section(doc: dict, name: str, keys: set[str]) -> dict:
    sec = doc.get(name)
    if sec is None:
        _fail(name, "missing section")
    if not isinstance(sec, dict):
        _fail(name, f"must be a section ([{name}]), got {sec!r}")
    unknown = set(sec) - keys
    if unknown:
        _fail(f"{name}.{sorted(unknown)[0]}", f"unknown key (expected one of {', '.join(sorted(keys))})")
    missing = keys - set(sec)
    if missing:
        _fail(f"{name}.{sorted(missing)[0]}", "missing")
    return sec


def _int(value, field: str, lo: int = 0, hi: int | None = None) -> int:
    if not isinstance(value, int) or isinstance(value, bool):
        _fail(field, f"must be a whole number, got {value!r}")
    if value < lo:
        _fail(field, f"must be at least {lo}, got {value}" if lo else f"must not be negative, got {value}")
    if hi is not None and value > hi:
        _fail(field, f"must be at most {hi}, got {value}")
    return value


def _ints(value, field: str, lo: int = 0, hi: int | None = None, min_len: int = 0) -> list[int]:
    if not isinstance(value, list):
        _fail(field, f"must be a list of whole numbers, got {value!r}")
    if len(value) < min_len:
        _fail(field, f"must hold at least {min_len} values, got {len(value)}")
    return [_int(v, f"{field}[{i}]", lo, hi) for i, v in enumerate(value)]


def _build(doc: dict, source: str, sha256: str) -> GameData:
    known = {"meta", "game", "nations", "tiles_per_round", "price_cards", "hotel", "tiles", "chips",
             "tourist_cards"}
    unknown = set(doc) - known
    if unknown:
        _fail(sorted(unknown)[0], f"unknown section (expected {', '.join(sorted(known))})")

    meta = doc.get("meta", {})
    if not isinstance(meta, dict) or set(meta) - {"name", "assumed"}:
        _fail("meta", "must be a table with at most the keys name and assumed")
    if not isinstance(meta.get("assumed", []), list):
        _fail("meta.assumed", "must be a list of the names of assumed values")
    assumed = tuple(str(a) for a in meta.get("assumed", []))

    game = _section(doc, "game", {"min_players", "max_players", "rounds", "starting_money",
                                  "double_rounds", "double_factor", "special_tile_value",
                                  "holiday_removals", "send_home_removals", "recall_cards"})
    min_p = _int(game["min_players"], "game.min_players", 3, MAX_SEATS)
    max_p = _int(game["max_players"], "game.max_players", min_p, MAX_SEATS)
    rounds = _int(game["rounds"], "game.rounds", 1, MAX_ROUNDS)
    doubles = _ints(game["double_rounds"], "game.double_rounds", 1, rounds)
    factor = _int(game["double_factor"], "game.double_factor", 1)
    round_factor = np.ones(rounds, np.int64)
    round_factor[[r - 1 for r in doubles]] = factor

    nations = _section(doc, "nations", {"names", "codes", "flags_per_nation"})
    names, codes = nations["names"], nations["codes"]
    if not isinstance(names, list) or not names or not all(isinstance(n, str) and n for n in names):
        _fail("nations.names", "must be a non-empty list of names")
    if len(set(names)) != len(names):
        _fail("nations.names", "must be distinct")
    if not isinstance(codes, list) or len(codes) != len(names):
        _fail("nations.codes", f"must give one code per nation ({len(names)})")
    if not all(isinstance(c, str) and c.isalpha() for c in codes) or len(set(codes)) != len(codes):
        _fail("nations.codes", "must be distinct alphabetic codes")
    if any(a != b and b.startswith(a) for a in codes for b in codes):
        _fail("nations.codes", "no code may be the start of another (chip names would be ambiguous)")
    flags_per = _int(nations["flags_per_nation"], "nations.flags_per_nation", 1)
    if flags_per * len(names) != rounds:
        _fail("nations.flags_per_nation", f"{flags_per} flags x {len(names)} nations must equal "
                                          f"game.rounds ({rounds}): one flag per round")

    tpr = doc.get("tiles_per_round")
    if not isinstance(tpr, dict):
        _fail("tiles_per_round", "missing section" if tpr is None else "must be a section")
    for key in tpr:
        if key != "rounds_per_block" and key not in {str(p) for p in range(min_p, max_p + 1)}:
            _fail(f"tiles_per_round.{key}", f"unknown key (expected rounds_per_block and the player "
                                            f"counts {min_p}..{max_p})")
    per_block = _int(tpr.get("rounds_per_block"), "tiles_per_round.rounds_per_block", 1)
    n_blocks = math.ceil(rounds / per_block)
    tiles_revealed = np.zeros((MAX_SEATS + 1, rounds), np.int64)
    for p in range(min_p, max_p + 1):
        field = f"tiles_per_round.{p}"
        if str(p) not in tpr:
            _fail(field, f"missing the line for {p} players")
        row = _ints(tpr[str(p)], field)
        if len(row) != n_blocks:
            _fail(field, f"must give {n_blocks} values (one per {per_block} rounds), got {len(row)}")
        tiles_revealed[p] = [row[r // per_block] for r in range(rounds)]

    cards = _section(doc, "price_cards", {"bids", "prices"})
    bids = _ints(cards["bids"], "price_cards.bids", 0, min_len=1)
    prices = _ints(cards["prices"], "price_cards.prices", 0, min_len=1)
    if len(prices) != len(bids):
        _fail("price_cards.prices", f"must give one price per bid ({len(bids)}), got {len(prices)}")
    if len(bids) > 15:
        _fail("price_cards.bids", "at most 15 normal cards (hands are 16-bit masks)")
    if len(set(zip(bids, prices))) != len(bids):
        _fail("price_cards", "two cards have the same bid and price (cards must be told apart)")
    card_bid = np.array(bids + [-1], np.int64)
    card_price = np.array(prices + [-1], np.int64)

    hotel = _section(doc, "hotel", {"floors", "rooms_per_floor"})
    floors = _int(hotel["floors"], "hotel.floors", 1)
    per_floor = _int(hotel["rooms_per_floor"], "hotel.rooms_per_floor", 1)
    base_rooms = floors * per_floor
    if base_rooms > 16:
        _fail("hotel", f"floors x rooms_per_floor must be at most 16 rooms, got {base_rooms}")

    tiles = _section(doc, "tiles", set(TILE_KINDS))
    tile_count = np.array([_int(tiles[k], f"tiles.{k}") for k in TILE_KINDS], np.int64)
    max_rooms = base_rooms + int(tile_count[EXTRA_ROOM])
    if max_rooms > 16:
        _fail("tiles.extra_room", f"the hotel's {base_rooms} rooms plus {tile_count[EXTRA_ROOM]} extra "
                                  f"rooms make {max_rooms}; at most 16 are supported")
    room_adjacent = np.zeros(max_rooms, np.int64)
    for r in range(base_rooms):
        row, col = divmod(r, per_floor)
        for dr, dc in ((-1, 0), (1, 0), (0, -1), (0, 1)):
            if 0 <= row + dr < floors and 0 <= col + dc < per_floor:
                room_adjacent[r] |= 1 << ((row + dr) * per_floor + col + dc)
    for p in range(min_p, max_p + 1):
        if tiles_revealed[p].sum() > tile_count.sum():
            _fail(f"tiles_per_round.{p}", f"reveals {tiles_revealed[p].sum()} tiles but tiles holds "
                                          f"only {tile_count.sum()}")

    chips = _section(doc, "chips", {"plain", "rich", "lover", "celebrity", "swimmer_buoys"})
    kinds: list[int] = []
    for kind, name in ((PLAIN, "plain"), (RICH, "rich"), (LOVER, "lover"), (CELEBRITY, "celebrity")):
        kinds += [kind] * _int(chips[name], f"chips.{name}")
    buoys = _ints(chips["swimmer_buoys"], "chips.swimmer_buoys", 1)
    per_nation = len(kinds) + len(buoys)
    if not 1 <= per_nation <= 30:
        _fail("chips", f"a nation must have 1..30 chips, got {per_nation}")
    nation_kind = kinds + [SWIMMER] * len(buoys)
    nation_buoy = [0] * len(kinds) + buoys
    chip_kind = np.array(nation_kind * len(names), np.int64)
    chip_buoy = np.array(nation_buoy * len(names), np.int64)

    tcards = doc.get("tourist_cards")
    if tcards is None or tcards == []:
        _fail("tourist_cards", "missing: give one [[tourist_cards]] table per card")
    if not isinstance(tcards, list):
        _fail("tourist_cards", "must be an array of tables: write [[tourist_cards]] (double "
                               "brackets) once per card")
    if len(tcards) < rounds:
        _fail("tourist_cards", f"{len(tcards)} cards cannot serve {rounds} rounds (one card per round)")
    lines: list[dict[int, list[int]]] = []
    for i, card in enumerate(tcards):
        if not isinstance(card, dict):
            _fail(f"tourist_cards[{i}]", "must be a table of player count = [group sizes]")
        for key in card:
            if key not in {str(p) for p in range(min_p, max_p + 1)}:
                _fail(f"tourist_cards[{i}].{key}", f"unknown key (player counts are {min_p}..{max_p})")
        line = {}
        for p in range(min_p, max_p + 1):
            field = f"tourist_cards[{i}].{p}"
            if str(p) not in card:
                _fail(field, f"missing the line for {p} players")
            sizes = _ints(card[str(p)], field, 1, min_len=1)
            most = sum(sizes) * int(round_factor.max())
            if most > per_nation:
                _fail(field, f"asks for {most} tourists in a double round but a nation has only "
                             f"{per_nation} chips (more arrivals than chips)")
            line[p] = sizes
        lines.append(line)
    max_groups = max(len(s) for line in lines for s in line.values())
    card_groups = np.zeros((len(lines), MAX_SEATS + 1, max_groups), np.int64)
    for i, line in enumerate(lines):
        for p, sizes in line.items():
            card_groups[i, p, :len(sizes)] = sizes

    comp = Components(
        rounds=rounds,
        starting_money=_int(game["starting_money"], "game.starting_money"),
        double_factor=factor,
        special_tile_value=_int(game["special_tile_value"], "game.special_tile_value"),
        holiday_removals=_int(game["holiday_removals"], "game.holiday_removals", 0, MAX_PICKS),
        send_home_removals=_int(game["send_home_removals"], "game.send_home_removals", 0, MAX_PICKS),
        recall_cards=_int(game["recall_cards"], "game.recall_cards", 0, MAX_PICKS),
        n_nations=len(names),
        chips_per_nation=per_nation,
        flags_per_nation=flags_per,
        base_rooms=base_rooms,
        max_rooms=max_rooms,
        max_groups=max_groups,
        holiday_card=len(bids),
        round_factor=round_factor,
        tiles_revealed=tiles_revealed,
        card_bid=card_bid,
        card_price=card_price,
        room_adjacent=room_adjacent,
        tile_count=tile_count,
        chip_kind=chip_kind,
        chip_buoy=chip_buoy,
        card_groups=card_groups,
    )
    return GameData(comp, tuple(names), tuple(codes), min_p, max_p, assumed, source, sha256)
