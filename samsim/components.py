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

Every number is also bounded so that nothing it can lead to overflows where it is stored: the
results keep coins in int32 columns and counts in int8/int16 ones (samsim.runs.schema), so a value that
could push a seat past them would come back as silently wrapped numbers, not as an error.
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
#: Rounds a data file may have: chip streams 16 + r must stay below the seat streams (samsim.kernel.rng).
MAX_ROUNDS = 48
#: Most cards a RECALL, or tourists a Staff holiday / SEND_HOME, may move (decision record slots).
MAX_PICKS = 4
#: Rooms a hotel may have: room sets are 16-bit maps.
MAX_ROOMS = 16
#: Chips of one nation: a nation's pile is a bitmap, and a seat hosts at most decisions.MAX_TAKE (30)
#: of them at once.
MAX_CHIPS = 30
#: Normal price cards: hands are 16-bit masks and the Staff holiday card is the 16th.
MAX_CARDS = 15
#: Tiles of one kind: a game sells at most one tile per seat and round, and every game of a batch
#: holds its own copy of the stack, so more would cost memory and change nothing.
MAX_TILES = MAX_SEATS * MAX_ROUNDS
#: Highest room price: the kernels order seats by ``price * 8 + seat`` below a ``1 << 30`` sentinel
#: (kernel/rules/tourists.py next_host_nb, kernel/moves.py); a dearer card would never be offered a tourist.
MAX_PRICE = ((1 << 30) - 8) // 8
#: How the results tables store coins: the columns of ``samsim.runs.schema`` that hold coins take
#: their dtype from here, and a data file may not let a seat's money or score approach its maximum.
MONEY_COLUMNS = ("money", "score", "income", "spent")
MONEY_DTYPE = "int32"
#: Counts that add up over the rounds, and their results columns' dtypes (schema takes them from
#: here): a data file's rounds and groups must keep each within its column.
ROUND_COUNT_DTYPES = {"round": "int8", "tiles_bought": "int8", "tourists_hosted": "int16",
                      "build_ties_won": "int8", "build_ties_lost": "int8",
                      "price_ties_won": "int8", "price_ties_lost": "int8"}
#: The worst case below is worked out by hand from the rules; keeping it at most 1/MONEY_MARGIN of the
#: column's range means a term it misses would have to be as large as everything else to overflow.
MONEY_MARGIN = 2
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
    seat_money: np.ndarray  # int64[MAX_SEATS + 1, MAX_SEATS]: coins a seat starts with on top of
    #   starting_money, per player count ([seats] money; 0 in the game as printed)
    tiebreak_start: np.ndarray  # int64[MAX_SEATS + 1]: seat t the tie-breaker card starts before
    #   (between seat t-1 and seat t), per player count ([seats] tiebreak_start; 0 as printed)
    price_clockwise: np.ndarray  # int64[MAX_SEATS + 1]: 1 where equal room prices go clockwise
    #   from the card like equal bids ([seats] price_ties = "clockwise"; 0, counter-clockwise, as
    #   printed)
    cards_by_price: np.ndarray  # int64[n_cards - 1]: the normal cards, cheapest first (equal
    #   prices: lower index first), the order strategies rank a hand in


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


class Worst(NamedTuple):
    """The values that bound a seat's score, each at its worst; ``score()`` is the bound.

    Money only grows by hosting tourists and by pool bonuses, and only shrinks by paying a bid the
    seat can afford (kernel/rules/round.py), so it never drops below 0 and ends at most at ``score()``;
    income and spending are bounded by it too (money = start + income - spent >= 0).
    """

    rounds: int
    guests: int  # most tourists a seat hosts in a round: one group, at most two a room (a couple)
    price: int  # dearest room price
    buoy: int  # largest buoy value (0 without swimmers)
    pools: int  # pools a seat can own: the pool tiles, and one tile a round at most
    rooms: int  # rooms a hotel can reach
    specials: int  # special tiles a seat can keep unused: the stack's, one tile a round at most
    special_value: int
    start: int

    def score(self) -> int:
        # a guest pays the room price doubled at most once plus its buoys per pool (payment.py); a
        # pool pays the buoys of every swimmer in the hotel, one swimmer a room (build.py)
        guest = 2 * self.price + self.pools * self.buoy
        return (self.start + self.rounds * self.guests * guest + self.pools * self.rooms * self.buoy
                + self.specials * self.special_value)


def _most_guests(largest_group: int, factor: int, rooms: int) -> int:
    return min(largest_group * factor, 2 * rooms)


def worst_case(comp: Components) -> Worst:
    """The bound a loaded data file was checked against (``worst_case(c).score()`` never exceeds
    ``money_limit()[0]``): for callers that set money themselves, such as scripted positions."""
    return Worst(rounds=comp.rounds,
                 guests=_most_guests(int(comp.card_groups.max()), int(comp.round_factor.max()),
                                     comp.max_rooms),
                 price=int(comp.card_price[:comp.holiday_card].max()), buoy=int(comp.chip_buoy.max()),
                 pools=min(int(comp.tile_count[POOL]), comp.rounds), rooms=comp.max_rooms,
                 specials=min(int(comp.tile_count[SWITCH:].sum()), comp.rounds),
                 special_value=comp.special_tile_value,
                 start=comp.starting_money + max(int(comp.seat_money.max()), 0))


def money_limit() -> tuple[int, int, str]:
    """(most coins a seat may reach, the money columns' maximum, their dtype)."""
    top = int(np.iinfo(MONEY_DTYPE).max)
    return top // MONEY_MARGIN, top, MONEY_DTYPE


def _check_money(w: Worst, bids: list[int], prices: list[int], buoys: list[int]) -> None:
    """Refuse a file whose worst case does not fit the money columns, naming the value to lower.

    The bound is linear in each money value, so the most a value may be with the others unchanged
    is exact; the value named is the largest contribution among those that can be lowered enough.
    """
    limit, top, dtype = money_limit()
    total = w.score()
    if total > limit:
        options = []
        for field, name, least, value in (
                ("game.starting_money", "start", 0, w.start),
                (f"price_cards.prices[{prices.index(w.price)}]", "price", 0, w.price),
                (f"chips.swimmer_buoys[{buoys.index(w.buoy)}]" if buoys else "", "buoy", 1, w.buoy),
                ("game.special_tile_value", "special_value", 0, w.special_value)):
            coef = w._replace(**{name: 1}).score() - w._replace(**{name: 0}).score()
            if coef == 0 or not field:
                continue
            rest = total - coef * value
            most = (limit - rest) // coef
            if name == "price":
                most = min(most, MAX_PRICE)
            options.append((most >= least, coef * value, field, value, most, rest))
        fits, _, field, value, most, rest = max(options)
        advice = f"use at most {most:,}" if fits else \
            f"the other values alone bring it to {rest:,}: lower them too"
        _fail(field, f"{value} is too large: starting with {w.start:,} coins, {w.rounds} rounds of up "
                     f"to {w.guests} guests paying up to 2 x {w.price:,} + {w.pools} pools x {w.buoy:,} "
                     f"each, {w.pools} pool bonuses of up to {w.rooms} rooms x {w.buoy:,} and "
                     f"{w.specials} unused special tiles x {w.special_value:,} could bring a seat's "
                     f"score to {total:,}, beyond the {limit:,} allowed (an {dtype} results column "
                     f"holds {top:,}; the rest is a safety margin); {advice}")
    # Values the bound does not reach (no pools, no special tiles, a bid) are coins all the same.
    for i, price in enumerate(prices):
        if price > MAX_PRICE:
            _fail(f"price_cards.prices[{i}]", f"{price} is too large: seats are put in order of "
                                              f"price x 8 below 2**30; use at most {MAX_PRICE:,}")
    for i, bid in enumerate(bids):
        _int(bid, f"price_cards.bids[{i}]", 0, limit)
    for i, buoy in enumerate(buoys):
        _int(buoy, f"chips.swimmer_buoys[{i}]", 1, limit)
    _int(w.special_value, "game.special_tile_value", 0, limit)


def _check_counts(rounds: int, players: int, guests: int) -> None:
    """Counts that add up over the rounds must fit their narrow results columns; every other count
    is bounded by the MAX_* constants above, which fit theirs (tests/test_components.py)."""
    per_round = {"round": (1, "the round number"),
                 "tiles_bought": (1, "the tiles a seat buys (one a round)"),
                 "tourists_hosted": (guests, f"the tourists a seat hosts (up to {guests} a round)")}
    for name in ("build_ties_won", "build_ties_lost", "price_ties_won", "price_ties_lost"):
        per_round[name] = (players - 1, (f"the ties a seat meets with {players} players (one per "
                                         f"rival, {players - 1} a round)"))
    for name, (coef, what) in per_round.items():
        dtype = ROUND_COUNT_DTYPES[name]
        top = int(np.iinfo(dtype).max)
        if rounds * coef > top:
            _fail("game.rounds", f"{rounds} is too large: {what} could reach {rounds * coef}, "
                                 f"beyond the {top} of the {dtype} column "
                                 f"{'rounds' if name == 'round' else 'results'}.{name}; "
                                 f"use at most {top // coef}")


#: The orders equal room prices may go in, from the tie-breaker card ([seats] price_ties).
PRICE_TIES = ("counter-clockwise", "clockwise")


def _seat_rules(sec, min_p: int, max_p: int, start: int):
    """The optional ``[seats]`` section: rules variants that compensate a seat, per player count.
    ``money``: coins each seat starts with on top of game.starting_money (one whole number per
    seat, negative down to none at all); ``tiebreak_start``: the seat the tie-breaker card starts
    before (0..N-1); ``price_ties``: the order of equal room prices, counter-clockwise from the card
    as printed or clockwise like equal bids. The game as printed has none of them."""
    money = np.zeros((MAX_SEATS + 1, MAX_SEATS), np.int64)
    tiebreak = np.zeros(MAX_SEATS + 1, np.int64)
    clockwise = np.zeros(MAX_SEATS + 1, np.int64)
    if sec is None:
        return money, tiebreak, clockwise
    if not isinstance(sec, dict):
        _fail("seats", f"must be a section ([seats]), got {sec!r}")
    keys = ("money", "tiebreak_start", "price_ties")
    unknown = sorted(set(sec) - set(keys))
    if unknown:
        _fail(f"seats.{unknown[0]}", f"unknown key (expected one of {', '.join(keys)})")
    counts = {str(n): n for n in range(min_p, max_p + 1)}
    example = {"money": "[0, 0, 0, -5]", "tiebreak_start": "1", "price_ties": '"clockwise"'}
    for key, table in sec.items():
        if not isinstance(table, dict):
            _fail(f"seats.{key}", f"must be a table of player count = value, e.g. {key} = "
                                  f"{{4 = {example[key]}}}")
        for text, value in table.items():
            field = f"seats.{key}.{text}"
            if text not in counts:
                _fail(field, f"unknown player count (player counts are {min_p}..{max_p})")
            n = counts[text]
            if key == "tiebreak_start":
                tiebreak[n] = _int(value, field, 0, n - 1)
            elif key == "price_ties":
                if value not in PRICE_TIES:
                    _fail(field, f"must be {' or '.join(map(repr, PRICE_TIES))}, got {value!r}")
                clockwise[n] = PRICE_TIES.index(value)
            elif not isinstance(value, list) or len(value) != n:
                _fail(field, f"must give one whole number per seat ({n}), got {value!r}")
            else:
                money[n, :n] = [_int(v, f"{field}[{i}]", -start, money_limit()[0])
                                for i, v in enumerate(value)]
    return money, tiebreak, clockwise


def _build(doc: dict, source: str, sha256: str) -> GameData:
    known = {"meta", "game", "nations", "tiles_per_round", "price_cards", "hotel", "tiles", "chips",
             "tourist_cards", "seats"}
    unknown = set(doc) - known
    if unknown:
        _fail(sorted(unknown)[0], f"unknown section (expected {', '.join(sorted(known))})")

    meta = doc.get("meta", {})
    if not isinstance(meta, dict) or set(meta) - {"name", "assumed"}:
        _fail("meta", "must be a table with at most the keys name and assumed")
    assumed = meta.get("assumed", [])
    sections = sorted(known - {"meta"})
    if not isinstance(assumed, list) or not all(a in sections for a in assumed):
        _fail("meta.assumed", f"must be a list of the names of assumed sections "
                              f"({', '.join(sections)})")
    if len(set(assumed)) < len(assumed):
        _fail("meta.assumed", "names a section twice")
    assumed = tuple(assumed)

    game = _section(doc, "game", {"min_players", "max_players", "rounds", "starting_money",
                                  "double_rounds", "double_factor", "special_tile_value",
                                  "holiday_removals", "send_home_removals", "recall_cards"})
    min_p = _int(game["min_players"], "game.min_players", 3, MAX_SEATS)
    max_p = _int(game["max_players"], "game.max_players", min_p, MAX_SEATS)
    rounds = _int(game["rounds"], "game.rounds", 1, MAX_ROUNDS)
    doubles = _ints(game["double_rounds"], "game.double_rounds", 1, rounds)
    if len(set(doubles)) < len(doubles):
        _fail("game.double_rounds", "names a round twice")
    # A factor above MAX_CHIPS could never pass the tourist-card check below; bounding it here also
    # keeps a huge one out of the int64 arrays when no round is doubled.
    factor = _int(game["double_factor"], "game.double_factor", 1, MAX_CHIPS)
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
        row = _ints(tpr[str(p)], field, 0, len(TILE_KINDS) * MAX_TILES)
        if len(row) != n_blocks:
            _fail(field, f"must give {n_blocks} values (one per {per_block} rounds), got {len(row)}")
        tiles_revealed[p] = [row[r // per_block] for r in range(rounds)]

    cards = _section(doc, "price_cards", {"bids", "prices"})
    bids = _ints(cards["bids"], "price_cards.bids", 0, min_len=1)
    prices = _ints(cards["prices"], "price_cards.prices", 0, min_len=1)
    if len(prices) != len(bids):
        _fail("price_cards.prices", f"must give one price per bid ({len(bids)}), got {len(prices)}")
    if len(bids) > MAX_CARDS:
        _fail("price_cards.bids", f"at most {MAX_CARDS} normal cards (hands are 16-bit masks)")
    if len(set(zip(bids, prices))) != len(bids):
        _fail("price_cards", "two cards have the same bid and price (cards must be told apart)")

    hotel = _section(doc, "hotel", {"floors", "rooms_per_floor"})
    floors = _int(hotel["floors"], "hotel.floors", 1)
    per_floor = _int(hotel["rooms_per_floor"], "hotel.rooms_per_floor", 1)
    base_rooms = floors * per_floor
    if base_rooms > MAX_ROOMS:
        _fail("hotel", f"floors x rooms_per_floor must be at most {MAX_ROOMS} rooms, got {base_rooms}")

    tiles = _section(doc, "tiles", set(TILE_KINDS))
    tile_count = np.array([_int(tiles[k], f"tiles.{k}", 0, MAX_TILES) for k in TILE_KINDS], np.int64)
    max_rooms = base_rooms + int(tile_count[EXTRA_ROOM])
    if max_rooms > MAX_ROOMS:
        _fail("tiles.extra_room", f"the hotel's {base_rooms} rooms plus {tile_count[EXTRA_ROOM]} extra "
                                  f"rooms make {max_rooms}; at most {MAX_ROOMS} are supported")
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
        kinds += [kind] * _int(chips[name], f"chips.{name}", 0, MAX_CHIPS)
    buoys = _ints(chips["swimmer_buoys"], "chips.swimmer_buoys", 1)
    per_nation = len(kinds) + len(buoys)
    if not 1 <= per_nation <= MAX_CHIPS:
        _fail("chips", f"a nation must have 1..{MAX_CHIPS} chips, got {per_nation}")
    nation_kind = kinds + [SWIMMER] * len(buoys)
    nation_buoy = [0] * len(kinds) + buoys
    chip_kind = np.array(nation_kind * len(names), np.int64)

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
    guests = _most_guests(max(max(s) for line in lines for s in line.values()),
                          int(round_factor.max()), max_rooms)
    _check_counts(rounds, max_p, guests)

    # Money last: its bound needs the whole game (rooms, tiles, chips, cards). The values are still
    # plain Python ints here, so even one past int64 is reported, not converted.
    starting_money = _int(game["starting_money"], "game.starting_money")
    special_value = _int(game["special_tile_value"], "game.special_tile_value")
    seat_money, tiebreak_start, price_clockwise = _seat_rules(doc.get("seats"), min_p, max_p,
                                                              starting_money)
    _check_money(Worst(rounds=rounds, guests=guests, price=max(prices), buoy=max(buoys, default=0),
                       pools=min(int(tile_count[POOL]), rounds), rooms=max_rooms,
                       specials=min(int(tile_count[SWITCH:].sum()), rounds),
                       special_value=special_value,
                       start=starting_money + max(int(seat_money.max()), 0)),
                 bids, prices, buoys)
    card_bid = np.array(bids + [-1], np.int64)
    card_price = np.array(prices + [-1], np.int64)
    chip_buoy = np.array(nation_buoy * len(names), np.int64)
    card_groups = np.zeros((len(lines), MAX_SEATS + 1, max_groups), np.int64)
    for i, line in enumerate(lines):
        for p, sizes in line.items():
            card_groups[i, p, :len(sizes)] = sizes

    comp = Components(
        rounds=rounds,
        starting_money=starting_money,
        double_factor=factor,
        special_tile_value=special_value,
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
        seat_money=seat_money,
        tiebreak_start=tiebreak_start,
        price_clockwise=price_clockwise,
        cards_by_price=np.array(sorted(range(len(prices)), key=lambda c: (prices[c], c)), np.int64),
    )
    return GameData(comp, tuple(names), tuple(codes), min_p, max_p, assumed, source, sha256)
