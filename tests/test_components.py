"""The component data file: the default loads with exactly the values of docs/rules.md (section 2),
and every malformed or inconsistent variant is rejected with a message naming the field and the
problem (samsim.components.ComponentDataError).

The expected values below are copied from docs/rules.md by hand, not computed from the data file, so
a wrong value in either one fails here.
"""

from __future__ import annotations

import hashlib
import re
from pathlib import Path

import numpy as np
import pytest

from samsim import components
from samsim.components import (
    CELEBRITY,
    LOVER,
    PLAIN,
    RICH,
    SWIMMER,
    TILE_KINDS,
    ComponentDataError,
    load,
)
from samsim.runs.simulate import simulate

DEFAULT_PATH = components.default_data_path()
DEFAULT_TEXT = DEFAULT_PATH.read_text(encoding="utf-8")
DATA = load()
C = DATA.components

# ----------------------------------------------------------------------- docs/rules.md, by hand
PRICE_CARDS = [(2, 3), (4, 4), (6, 5), (8, 6), (10, 7), (12, 9), (14, 8), (16, 10), (18, 11), (20, 12)]
TILES = {"extra_room": 6, "suite": 5, "pool": 5, "switch": 1, "send_home": 1, "recall": 1}
CHIP_MIX = {"plain": 8, "rich": 2, "lover": 3, "celebrity": 2}
BUOYS = [1, 2, 3]
# card -> {players: groups}, cards numbered 1..13 as in the table of docs/rules.md
TOURIST_CARDS = {
    1: {3: [2, 1], 4: [3, 2], 5: [3, 3], 6: [4, 3]},
    2: {3: [3, 2], 4: [4, 3], 5: [5, 3], 6: [5, 4]},
    3: {3: [4], 4: [5], 5: [6], 6: [7]},
    4: {3: [2, 2], 4: [3, 2], 5: [4, 2], 6: [5, 2]},
    5: {3: [3, 1], 4: [3, 2], 5: [4, 3], 6: [4, 4]},
    6: {3: [5], 4: [6], 5: [7], 6: [8]},
    7: {3: [2, 1, 1], 4: [2, 2, 1], 5: [3, 2, 1], 6: [3, 2, 2]},
    8: {3: [3, 3], 4: [4, 3], 5: [4, 4], 6: [5, 4]},
    9: {3: [4, 1], 4: [4, 2], 5: [5, 2], 6: [6, 2]},
    10: {3: [3], 4: [4], 5: [5], 6: [6]},
    11: {3: [2, 2, 1], 4: [3, 2, 1], 5: [3, 3, 1], 6: [4, 3, 1]},
    12: {3: [4, 2], 4: [5, 2], 5: [5, 3], 6: [6, 3]},
    13: {3: [3, 2], 4: [3, 3], 5: [4, 3], 6: [5, 3]},
}
# tiles revealed per round for rounds 1-3, 4-6, 7-9, 10-12
TILES_PER_BLOCK = {3: [1, 1, 1, 0], 4: [2, 1, 1, 0], 5: [2, 2, 1, 0], 6: [3, 2, 1, 0]}
ADJACENT_PAIRS = {(0, 1), (1, 2), (3, 4), (4, 5), (0, 3), (1, 4), (2, 5)}


def adjacency(comp) -> set[tuple[int, int]]:
    """The room_adjacent bitmaps as a set of ordered pairs."""
    return {(a, b) for a in range(comp.max_rooms) for b in range(comp.max_rooms)
            if (int(comp.room_adjacent[a]) >> b) & 1}


# ------------------------------------------------------------------------------ the default file
def test_default_path_is_the_packaged_file():
    assert DEFAULT_PATH.name == "hotel_samoa.toml" and DEFAULT_PATH.is_file()
    assert DATA.source == str(DEFAULT_PATH)
    assert DATA.sha256 == hashlib.sha256(DEFAULT_PATH.read_bytes()).hexdigest()
    again = load(DEFAULT_PATH)
    assert (again.source, again.sha256) == (DATA.source, DATA.sha256)


def test_game_values():
    assert (DATA.min_players, DATA.max_players) == (3, 6)
    assert C.rounds == 12
    assert C.starting_money == 25
    assert C.special_tile_value == 3
    assert C.double_factor == 2
    assert (C.holiday_removals, C.send_home_removals, C.recall_cards) == (2, 2, 2)


def test_double_rounds_are_6_and_12():
    assert C.round_factor.tolist() == [1, 1, 1, 1, 1, 2, 1, 1, 1, 1, 1, 2]


def test_nations_and_flags():
    assert DATA.nation_names == ("England", "Germany", "Norway", "Japan")
    assert DATA.nation_codes == ("E", "G", "N", "J")
    assert C.n_nations == 4
    assert C.flags_per_nation == 3
    assert C.flags_per_nation * C.n_nations == C.rounds


def test_price_cards():
    assert C.card_bid.tolist() == [b for b, _ in PRICE_CARDS] + [-1]
    assert C.card_price.tolist() == [p for _, p in PRICE_CARDS] + [-1]
    assert DATA.n_cards == 11
    assert C.holiday_card == 10
    assert [DATA.card_name(k) for k in range(11)] == [f"{b}/{p}" for b, p in PRICE_CARDS] + ["holiday"]
    assert min(C.card_bid[:-1]) == 2 and max(C.card_bid[:-1]) == 20  # "Bids span 2..20"
    assert DATA.card_id("14/8") == 6 and DATA.card_id("holiday") == 10


def test_build_tiles():
    assert TILE_KINDS == tuple(TILES)
    assert C.tile_count.tolist() == list(TILES.values())
    assert C.tile_count.sum() == 19


def test_tourist_chips():
    assert C.chips_per_nation == 18
    assert len(C.chip_kind) == len(C.chip_buoy) == 72
    one_nation_kinds = ([PLAIN] * 8 + [RICH] * 2 + [LOVER] * 3 + [CELEBRITY] * 2 + [SWIMMER] * 3)
    one_nation_buoys = [0] * 15 + BUOYS
    for nation in range(4):
        chips = slice(18 * nation, 18 * nation + 18)
        assert C.chip_kind[chips].tolist() == one_nation_kinds, nation
        assert C.chip_buoy[chips].tolist() == one_nation_buoys, nation
    counts = np.bincount(C.chip_kind[:18], minlength=5).tolist()
    assert counts == [CHIP_MIX["plain"], CHIP_MIX["rich"], CHIP_MIX["lover"], CHIP_MIX["celebrity"], 3]


def test_chip_names_round_trip():
    assert DATA.chip_name(0) == "E0" and DATA.chip_name(18 + 17) == "G17" and DATA.chip_name(71) == "J17"
    for chip in range(72):
        assert DATA.chip_id(DATA.chip_name(chip)) == chip
    for bad in ("E18", "X1", "E", "3E"):
        with pytest.raises(ValueError, match="unknown tourist chip"):
            DATA.chip_id(bad)


def test_tourist_cards():
    assert C.card_groups.shape == (13, 7, 3)  # 13 cards, player counts 0..6, at most 3 groups
    assert C.max_groups == 3
    for number, lines in TOURIST_CARDS.items():
        card = number - 1
        for players in range(7):
            row = C.card_groups[card, players].tolist()
            expected = lines.get(players, [])
            assert row == expected + [0] * (3 - len(expected)), (number, players)


def test_no_doubled_card_outruns_a_nation():
    """docs/rules.md: no doubled card asks for more than the 18 chips of a nation."""
    most = C.card_groups.sum(axis=2).max() * C.round_factor.max()
    assert most == 18 <= C.chips_per_nation


def test_tiles_revealed_per_round():
    assert C.tiles_revealed.shape == (7, 12)
    for players in range(7):
        blocks = TILES_PER_BLOCK.get(players, [0, 0, 0, 0])
        assert C.tiles_revealed[players].tolist() == [b for b in blocks for _ in range(3)], players
    for players in range(3, 7):
        assert C.tiles_revealed[players].sum() <= 19


def test_hotel_layout():
    assert (C.base_rooms, C.max_rooms) == (6, 12)
    assert adjacency(C) == ADJACENT_PAIRS | {(b, a) for a, b in ADJACENT_PAIRS}
    for room in range(6, 12):  # extra rooms are adjacent to nothing
        assert C.room_adjacent[room] == 0
    assert C.room_adjacent.dtype == np.int64


def test_assumed_values_are_listed():
    assert set(DATA.assumed) == {"price_cards", "hotel", "tiles", "chips", "tourist_cards"}


# ----------------------------------------------------------------------------------- variants
def write_variant(tmp_path: Path, *edits: tuple[str, str], text: str | None = None,
                  name: str = "variant.toml") -> Path:
    """A copy of the default file with each (old, new) replaced once; old must be present."""
    text = DEFAULT_TEXT if text is None else text
    for old, new in edits:
        assert old in text, f"test setup: {old!r} not in the data file"
        text = text.replace(old, new, 1)
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def without_section(name: str, text: str = DEFAULT_TEXT) -> str:
    """The text with section [name] (header and its keys) removed."""
    pattern = rf"^\[{re.escape(name)}\]\n(?:(?!\[).*\n)*"
    out, n = re.subn(pattern, "", text, count=1, flags=re.M)
    assert n == 1, name
    return out


def tourist_card_blocks(text: str = DEFAULT_TEXT) -> tuple[str, list[str]]:
    head, *cards = text.split("[[tourist_cards]]\n")
    assert len(cards) == 13
    return head, cards


def with_cards(cards: list[str]) -> str:
    head, _ = tourist_card_blocks()
    return head + "".join("[[tourist_cards]]\n" + c for c in cards)


def test_variant_price_cards_load_and_change_the_arrays(tmp_path):
    path = write_variant(tmp_path,
                         ("bids = [2, 4, 6, 8, 10, 12, 14, 16, 18, 20]", "bids = [1, 3, 5, 7, 9, 11, 13]"),
                         ("prices = [3, 4, 5, 6, 7, 9, 8, 10, 11, 12]", "prices = [2, 2, 4, 4, 6, 6, 8]"))
    data = load(path)
    c = data.components
    assert c.card_bid.tolist() == [1, 3, 5, 7, 9, 11, 13, -1]
    assert c.card_price.tolist() == [2, 2, 4, 4, 6, 6, 8, -1]
    assert c.holiday_card == 7 and data.n_cards == 8
    assert data.card_name(7) == "holiday" and data.card_id("9/6") == 4
    assert data.source == str(path) and data.sha256 != DATA.sha256
    # the rest is untouched
    assert c.tile_count.tolist() == C.tile_count.tolist()
    assert np.array_equal(c.card_groups, C.card_groups)


def test_variant_price_cards_are_what_the_engine_plays(tmp_path):
    from samsim import engine
    path = write_variant(tmp_path,
                         ("bids = [2, 4, 6, 8, 10, 12, 14, 16, 18, 20]", "bids = [1, 3, 5, 7, 9, 11, 13]"),
                         ("prices = [3, 4, 5, 6, 7, 9, 8, 10, 11, 12]", "prices = [2, 2, 4, 4, 6, 6, 8]"))
    data = load(path)
    record = engine.play_game(data, 4, seed=5, log=True)
    played = {e[3] for e in record.events if e[1] == 7}  # PLAY events
    assert played <= set(range(8)) and len(played) > 4
    for seat in record.snapshot["seats"]:
        assert sorted(seat["hand"] + seat["discard"]) == list(range(8))
    # a guest who is not a swimmer pays the variant's room price of its host's card, or double
    card = {}
    for e in record.events:
        if e[1] == 7:  # PLAY
            card[(e[0], e[2])] = e[3]
        elif e[1] == 8:  # SWITCH: the new card counts
            card[(e[0], e[2])] = e[4]
    hosts = [e for e in record.events if e[1] == 12 and data.components.chip_kind[e[3]] != SWIMMER]
    assert len(hosts) > 10
    for e in hosts:
        price = int(data.components.card_price[card[(e[0], e[2])]])
        assert e[5] in (price, 2 * price), e


def test_variant_hotel_grid_and_doubles(tmp_path):
    path = write_variant(tmp_path, ("floors = 2", "floors = 3"),
                         ("double_rounds = [6, 12]", "double_rounds = [4]"),
                         ("double_factor = 2", "double_factor = 3"),
                         ("starting_money = 25", "starting_money = 40"))
    # a tripled 6-player card asks for up to 3 x 9 = 27 chips: give every nation 27
    path = write_variant(tmp_path, ("plain = 8", "plain = 17"), text=path.read_text())
    c = load(path).components
    assert (c.base_rooms, c.max_rooms) == (9, 15)
    grid = {(0, 1), (1, 2), (3, 4), (4, 5), (6, 7), (7, 8), (0, 3), (1, 4), (2, 5), (3, 6), (4, 7),
            (5, 8)}
    assert adjacency(c) == grid | {(b, a) for a, b in grid}
    assert c.round_factor.tolist() == [1, 1, 1, 3] + [1] * 8
    assert c.starting_money == 40
    assert c.chips_per_nation == 27 and len(c.chip_kind) == 108
    assert c.chip_kind[:27].tolist() == [PLAIN] * 17 + [RICH] * 2 + [LOVER] * 3 + [CELEBRITY] * 2 \
        + [SWIMMER] * 3


def test_variant_with_fewer_player_counts(tmp_path):
    """max_players = 4: lines for 5 and 6 players are then unknown keys and must go."""
    text = DEFAULT_TEXT.replace("max_players = 6", "max_players = 4")
    text = re.sub(r"^[56] = \[.*\]\n", "", text, flags=re.M)
    data = load(write_variant(tmp_path, text=text))
    assert (data.min_players, data.max_players) == (3, 4)
    assert data.components.tiles_revealed[5:].sum() == 0
    assert data.components.card_groups[:, 5:].sum() == 0


# ------------------------------------------------------------------------------ malformed files
def _changed(*edits):
    return lambda: _apply(DEFAULT_TEXT, edits)


def _apply(text, edits):
    for old, new in edits:
        assert old in text, f"test setup: {old!r} not in the data file"
        text = text.replace(old, new, 1)
    return text


def _cards_dropped(n):
    def make():
        _, cards = tourist_card_blocks()
        return with_cards(cards[:-n])
    return make


def _card_edited(index, old, new):
    def make():
        _, cards = tourist_card_blocks()
        assert old in cards[index]
        cards[index] = cards[index].replace(old, new, 1)
        return with_cards(cards)
    return make


# (id, make text, field the message must name, regex for the problem)
MALFORMED = [
    # counts that do not add up
    ("flags_times_nations_not_rounds", _changed(("flags_per_nation = 3", "flags_per_nation = 4")),
     "nations.flags_per_nation", r"4 flags x 4 nations must equal game\.rounds \(12\)"),
    ("rounds_not_flags_times_nations", _changed(("rounds = 12", "rounds = 13")),
     "nations.flags_per_nation", r"must equal game\.rounds \(13\)"),
    ("tourist_card_missing_a_player_count", _card_edited(4, "5 = [4, 3]\n", ""),
     "tourist_cards[4].5", r"missing the line for 5 players"),
    ("tourist_card_unknown_player_count", _card_edited(0, "3 = [2, 1]", "7 = [2, 1]\n3 = [2, 1]"),
     "tourist_cards[0].7", r"unknown key .*player counts are 3\.\.6"),
    ("tiles_per_round_too_few_blocks", _changed(("4 = [2, 1, 1, 0]", "4 = [2, 1, 1]")),
     "tiles_per_round.4", r"must give 4 values .*got 3"),
    ("tiles_per_round_too_many_blocks", _changed(("5 = [2, 2, 1, 0]", "5 = [2, 2, 1, 0, 0]")),
     "tiles_per_round.5", r"must give 4 values .*got 5"),
    ("tiles_per_round_missing_player_count", _changed(("6 = [3, 2, 1, 0]\n", "")),
     "tiles_per_round.6", r"missing the line for 6 players"),
    ("fewer_tourist_cards_than_rounds", _cards_dropped(2),
     "tourist_cards", r"11 cards cannot serve 12 rounds"),
    ("no_tourist_cards", lambda: tourist_card_blocks()[0],
     "tourist_cards", r"missing"),
    # negative or non-numeric values
    ("negative_price", _changed(("prices = [3, 4, 5,", "prices = [3, -4, 5,")),
     "price_cards.prices[1]", r"must not be negative, got -4"),
    ("negative_bid", _changed(("bids = [2, 4,", "bids = [-2, 4,")),
     "price_cards.bids[0]", r"must not be negative, got -2"),
    ("bid_is_a_string", _changed(("bids = [2, 4, 6,", 'bids = [2, 4, "six",')),
     "price_cards.bids[2]", r"must be a whole number, got 'six'"),
    ("bid_is_a_fraction", _changed(("bids = [2, 4, 6,", "bids = [2, 4, 6.5,")),
     "price_cards.bids[2]", r"must be a whole number, got 6\.5"),
    ("bid_is_a_boolean", _changed(("bids = [2, 4, 6,", "bids = [2, 4, true,")),
     "price_cards.bids[2]", r"must be a whole number, got True"),
    ("bids_not_a_list", _changed(("bids = [2, 4, 6, 8, 10, 12, 14, 16, 18, 20]", "bids = 2")),
     "price_cards.bids", r"must be a list of whole numbers"),
    ("negative_starting_money", _changed(("starting_money = 25", "starting_money = -1")),
     "game.starting_money", r"must not be negative"),
    ("negative_tile_count", _changed(("suite = 5", "suite = -1")),
     "tiles.suite", r"must not be negative"),
    ("zero_buoy_swimmer", _changed(("swimmer_buoys = [1, 2, 3]", "swimmer_buoys = [1, 0, 3]")),
     "chips.swimmer_buoys[1]", r"must be at least 1, got 0"),
    ("empty_tourist_group", _card_edited(2, "4 = [5]", "4 = [5, 0]"),
     "tourist_cards[2].4[1]", r"must be at least 1, got 0"),
    # list lengths
    ("fewer_prices_than_bids", _changed(("prices = [3, 4, 5, 6, 7, 9, 8, 10, 11, 12]",
                                         "prices = [3, 4, 5, 6, 7, 9, 8, 10, 11]")),
     "price_cards.prices", r"one price per bid \(10\), got 9"),
    ("more_prices_than_bids", _changed(("prices = [3, 4, 5, 6, 7, 9, 8, 10, 11, 12]",
                                        "prices = [3, 4, 5, 6, 7, 9, 8, 10, 11, 12, 13]")),
     "price_cards.prices", r"one price per bid \(10\), got 11"),
    ("sixteen_price_cards", _changed(
        ("bids = [2, 4, 6, 8, 10, 12, 14, 16, 18, 20]", f"bids = {list(range(1, 17))}"),
        ("prices = [3, 4, 5, 6, 7, 9, 8, 10, 11, 12]", f"prices = {list(range(1, 17))}")),
     "price_cards.bids", r"at most 15 normal cards"),
    ("fewer_codes_than_nations", _changed(('codes = ["E", "G", "N", "J"]', 'codes = ["E", "G", "N"]')),
     "nations.codes", r"one code per nation \(4\)"),
    # unknown / missing sections and keys
    ("unknown_section", lambda: DEFAULT_TEXT + "\n[extras]\nfoo = 1\n",
     "extras", r"unknown section"),
    ("misspelt_section", _changed(("[hotel]", "[hotels]")),
     "hotels", r"unknown section"),
    ("misspelt_game_key", _changed(("starting_money = 25", "startng_money = 25")),
     "game.startng_money", r"unknown key"),
    ("misspelt_tiles_key", _changed(("send_home = 1", "sendhome = 1")),
     "tiles.sendhome", r"unknown key"),
    ("misspelt_chips_key", _changed(("swimmer_buoys =", "swimmer_buoy =")),
     "chips.swimmer_buoy", r"unknown key"),
    ("misspelt_price_key", _changed(("prices =", "price =")),
     "price_cards.price", r"unknown key"),
    ("missing_key", _changed(("recall = 1\n", "")),
     "tiles.recall", r"missing"),
    ("missing_section_hotel", lambda: without_section("hotel"), "hotel", r"missing section"),
    ("missing_section_game", lambda: without_section("game"), "game", r"missing section"),
    ("missing_section_price_cards", lambda: without_section("price_cards"),
     "price_cards", r"missing section"),
    ("missing_section_tiles_per_round", lambda: without_section("tiles_per_round"),
     "tiles_per_round", r"missing section"),
    ("missing_section_chips", lambda: without_section("chips"), "chips", r"missing section"),
    # more arrivals than chips
    ("doubled_group_larger_than_a_nation", _card_edited(0, "6 = [4, 3]", "6 = [10]"),
     "tourist_cards[0].6", r"asks for 20 tourists in a double round .*only 18 chips"),
    ("doubled_groups_more_than_a_nation", _card_edited(7, "5 = [4, 4]", "5 = [5, 5]"),
     "tourist_cards[7].5", r"asks for 20 tourists .*more arrivals than chips"),
    ("too_few_chips_per_nation", _changed(("plain = 8", "plain = 2")),
     "tourist_cards[0].6", r"asks for 14 tourists .*only 12 chips"),
    ("too_many_chips_per_nation", _changed(("plain = 8", "plain = 22")),
     "chips", r"a nation must have 1\.\.30 chips, got 32"),
    # rooms and tiles
    ("too_many_extra_rooms", _changed(("extra_room = 6", "extra_room = 11")),
     "tiles.extra_room", r"make 17; at most 16 are supported"),
    ("too_many_base_rooms", _changed(("floors = 2", "floors = 4"), ("rooms_per_floor = 3", "rooms_per_floor = 5")),
     "hotel", r"at most 16 rooms, got 20"),
    ("more_tiles_revealed_than_stacked", _changed(("6 = [3, 2, 1, 0]", "6 = [3, 3, 1, 0]")),
     "tiles_per_round.6", r"reveals 21 tiles but tiles holds only 19"),
    ("stack_too_small", _changed(("extra_room = 6", "extra_room = 0")),
     "tiles_per_round.5", r"reveals 15 tiles but tiles holds only 13"),
    # nations
    ("duplicate_nation_codes", _changed(('codes = ["E", "G", "N", "J"]', 'codes = ["E", "G", "N", "N"]')),
     "nations.codes", r"distinct"),
    ("ambiguous_nation_codes", _changed(('codes = ["E", "G", "N", "J"]', 'codes = ["E", "G", "N", "EN"]')),
     "nations.codes", r"start of another"),
    ("numeric_nation_code", _changed(('codes = ["E", "G", "N", "J"]', 'codes = ["E", "G", "N", "4"]')),
     "nations.codes", r"alphabetic"),
    ("no_nations", _changed(('names = ["England", "Germany", "Norway", "Japan"]', "names = []")),
     "nations.names", r"non-empty"),
    # players and rounds
    ("seven_players", _changed(("max_players = 6", "max_players = 7")),
     "game.max_players", r"at most 6, got 7"),
    ("two_players", _changed(("min_players = 3", "min_players = 2")),
     "game.min_players", r"at least 3, got 2"),
    ("min_above_max", _changed(("min_players = 3", "min_players = 5"), ("max_players = 6", "max_players = 4")),
     "game.max_players", r"at least 5, got 4"),
    ("double_round_out_of_range", _changed(("double_rounds = [6, 12]", "double_rounds = [6, 13]")),
     "game.double_rounds[1]", r"at most 12, got 13"),
    ("double_round_twice", _changed(("double_rounds = [6, 12]", "double_rounds = [6, 6]")),
     "game.double_rounds", r"names a round twice"),
    ("zero_double_factor", _changed(("double_factor = 2", "double_factor = 0")),
     "game.double_factor", r"at least 1, got 0"),
    # decision-record limits: a RECALL / SEND_HOME / holiday moves at most 4 (decisions.MAX_PICKS)
    ("holiday_removals_above_max_picks", _changed(("holiday_removals = 2", "holiday_removals = 5")),
     "game.holiday_removals", r"at most 4, got 5"),
    ("send_home_removals_above_max_picks", _changed(("send_home_removals = 2", "send_home_removals = 5")),
     "game.send_home_removals", r"at most 4, got 5"),
    ("recall_cards_above_max_picks", _changed(("recall_cards = 2", "recall_cards = 5")),
     "game.recall_cards", r"at most 4, got 5"),
    # names and meta
    ("duplicate_nation_names", _changed(('names = ["England", "Germany"', 'names = ["England", "England"')),
     "nations.names", r"distinct"),
    ("meta_not_a_table", lambda: without_section("meta").replace("[game]", "meta = 5\n\n[game]", 1),
     "meta", r"must be a table"),
    ("misspelt_meta_key", _changed(("assumed = [", "asumed = [")),
     "meta", r"at most the keys name and assumed"),
    ("meta_assumed_not_a_list", _changed(('assumed = ["price_cards", "hotel", "tiles", "chips", "tourist_cards"]',
                                          'assumed = "hotel"')),
     "meta.assumed", r"must be a list"),
    ("meta_assumed_not_a_section", _changed(('assumed = ["price_cards", "hotel"', 'assumed = ["nonsense", "hotel"')),
     "meta.assumed", r"names of assumed sections \(chips, game,"),
    ("meta_assumed_twice", _changed(('assumed = ["price_cards", "hotel"', 'assumed = ["hotel", "hotel"')),
     "meta.assumed", r"names a section twice"),
    ("misspelt_rounds_per_block", _changed(("rounds_per_block = 3", "rounds_per_blok = 3")),
     "tiles_per_round.rounds_per_blok", r"unknown key"),
    ("missing_rounds_per_block", _changed(("rounds_per_block = 3\n", "")),
     "tiles_per_round.rounds_per_block", r"missing|got None"),
    # not TOML at all
    ("invalid_toml", _changed(("rounds = 12", "rounds = = 12")), "", r"not valid TOML"),
    ("duplicate_toml_key", _changed(("rounds = 12", "rounds = 12\nrounds = 12")), "", r"not valid TOML"),
]


@pytest.mark.parametrize("make, field, problem", [m[1:] for m in MALFORMED], ids=[m[0] for m in MALFORMED])
def test_malformed_file_is_rejected(tmp_path, make, field, problem):
    _assert_rejected(tmp_path, make, field, problem)


def _assert_rejected(tmp_path, make, field, problem):
    path = write_variant(tmp_path, text=make(), name="broken.toml")
    with pytest.raises(ComponentDataError) as err:
        load(path)
    message = str(err.value)
    assert message.startswith("broken.toml: "), message  # the file is named
    if field:
        assert f": {field}: " in message, message
    assert re.search(problem, message), message


def test_component_data_error_is_a_value_error():
    assert issubclass(ComponentDataError, ValueError)


def test_missing_file(tmp_path):
    path = tmp_path / "nowhere.toml"
    with pytest.raises(ComponentDataError, match=r"cannot read data file .*nowhere\.toml"):
        load(path)


def test_directory_is_not_a_file(tmp_path):
    with pytest.raises(ComponentDataError, match="cannot read data file"):
        load(tmp_path)


def test_file_not_in_utf8(tmp_path):
    path = tmp_path / "latin1.toml"
    path.write_bytes(DEFAULT_TEXT.replace("samsim default", "samsim d\u00e9faut").encode("latin-1"))
    with pytest.raises(ComponentDataError, match=r"latin1\.toml: not valid TOML: .*utf-8"):
        load(path)


def test_a_rejected_file_does_not_disturb_the_default(tmp_path):
    with pytest.raises(ComponentDataError):
        load(write_variant(tmp_path, ("rounds = 12", "rounds = 13")))
    assert load().sha256 == DATA.sha256
    assert np.array_equal(load().components.card_groups, C.card_groups)


# ----------------------------------------------------------------- bounds: nothing may overflow
# The results keep coins in int32 columns and counts in int8/int16 ones (samsim.runs.schema); a data
# file whose game could pass them would give silently wrapped numbers, so it is refused instead.
INT64_MAX = 2**63 - 1
PRICES_LINE = "prices = [3, 4, 5, 6, 7, 9, 8, 10, 11, 12]"
OVERFLOWING = [
    ("starting_money_past_int32", _changed(("starting_money = 25", "starting_money = 3000000000")),
     "game.starting_money", (r"3000000000 is too large: .*score to [\d,]+, beyond the [\d,]+ allowed "
                             r"\(an int32 results column holds 2,147,483,647.*\); use at most [\d,]+$")),
    ("starting_money_int64_max", _changed(("starting_money = 25", f"starting_money = {INT64_MAX}")),
     "game.starting_money", rf"{INT64_MAX} is too large: .*use at most [\d,]+$"),
    ("starting_money_past_int64", _changed(("starting_money = 25", f"starting_money = {10**30}")),
     "game.starting_money", r"too large: .*use at most [\d,]+$"),
    ("room_price_2e9", _changed((PRICES_LINE, PRICES_LINE.replace("12]", "2000000000]"))),
     "price_cards.prices[9]", r"2000000000 is too large: .*2 x 2,000,000,000.*use at most [\d,]+$"),
    ("buoy_3e9", _changed(("swimmer_buoys = [1, 2, 3]", "swimmer_buoys = [1, 2, 3000000000]")),
     "chips.swimmer_buoys[2]", r"3000000000 is too large: .*use at most [\d,]+$"),
    ("special_tile_value_3e9", _changed(("special_tile_value = 3", "special_tile_value = 3000000000")),
     "game.special_tile_value", r"3000000000 is too large: .*use at most [\d,]+$"),
    ("bid_past_any_money", _changed(("bids = [2, 4,", "bids = [2, 3000000000,")),
     "price_cards.bids[1]", r"must be at most 1073741823, got 3000000000"),
    ("tile_count_past_int64", _changed(("suite = 5", f"suite = {10**20}")),
     "tiles.suite", r"must be at most \d+, got"),
    ("chip_count_past_int64", _changed(("plain = 8", f"plain = {10**20}")),
     "chips.plain", r"must be at most 30, got"),
    ("double_factor_past_int64", _changed(("double_factor = 2", f"double_factor = {10**20}")),
     "game.double_factor", r"must be at most 30, got"),
    ("tiles_revealed_past_int64", _changed(("3 = [1, 1, 1, 0]", f"3 = [{10**20}, 1, 1, 0]")),
     "tiles_per_round.3[0]", r"must be at most \d+, got"),
]


@pytest.mark.parametrize("make, field, problem", [m[1:] for m in OVERFLOWING],
                         ids=[m[0] for m in OVERFLOWING])
def test_value_that_could_overflow_is_rejected(tmp_path, make, field, problem):
    _assert_rejected(tmp_path, make, field, problem)


def _most_allowed(tmp_path, *edits) -> int:
    """The "use at most" of the message refusing ``edits``."""
    with pytest.raises(ComponentDataError) as err:
        load(write_variant(tmp_path, *edits, name="refused.toml"))
    found = re.search(r"use at most ([\d,]+)$", str(err.value))
    assert found, str(err.value)
    return int(found.group(1).replace(",", ""))


def _exactly_at_the_bound(tmp_path, old: str, template: str, field: str):
    """The largest value the refusal allows loads and its worst case fits the money columns' budget;
    one more is refused. Returns the data at the bound and that value."""
    most = _most_allowed(tmp_path, (old, template.format(3_000_000_000)))
    limit, top, _ = components.money_limit()
    assert top == np.iinfo(np.int32).max and limit < top
    data = load(write_variant(tmp_path, (old, template.format(most)), name="edge.toml"))
    worst = components.worst_case(data.components)
    assert worst.score() <= limit
    with pytest.raises(ComponentDataError, match=re.escape(f": {field}: {most + 1} is too large")):
        load(write_variant(tmp_path, (old, template.format(most + 1)), name="past.toml"))
    return data, most


def _results_hold_the_true_values(data, games=50, players=4, seed=1):
    """Play ``games`` and compare every money column of both tables with the int64 state, and with
    the int64 bookkeeping money = start + income - spent."""
    from samsim import engine
    from samsim.runs import schema

    specs = [["random"] * players]
    st = engine.run_batch(games, players, seed, data=data, strategies="random", record=True)
    frame = schema.results_frame(st, 0, games, specs)
    for name in components.MONEY_COLUMNS:
        assert frame[name].dtype == np.int32
        np.testing.assert_array_equal(frame[name].to_numpy(np.int64), getattr(st, name).reshape(-1))
    rounds = schema.rounds_frame(st, 0, games, specs)
    from samsim.kernel.state import REC_INCOME, REC_MONEY
    np.testing.assert_array_equal(rounds["money"].to_numpy(np.int64), st.record[..., REC_MONEY].reshape(-1))
    np.testing.assert_array_equal(rounds["income"].to_numpy(np.int64), st.record[..., REC_INCOME].reshape(-1))

    c = data.components
    money, score = frame["money"].to_numpy(np.int64), frame["score"].to_numpy(np.int64)
    income, spent = frame["income"].to_numpy(np.int64), frame["spent"].to_numpy(np.int64)
    np.testing.assert_array_equal(money, c.starting_money + income - spent)
    most_spent = c.rounds * int(c.card_bid[:c.holiday_card].max())  # one tile a round at most
    assert (spent <= most_spent).all() and (money >= 0).all()
    assert (score >= money).all() and (score >= c.starting_money - most_spent).all()
    assert (score <= components.worst_case(c).score()).all()
    # and the public simulate gives the same rows
    np.testing.assert_array_equal(simulate(games, players, seed=seed, data=data)["score"]
                                  .to_numpy(np.int64), score)
    return frame


def test_starting_money_at_the_bound_plays_true_numbers(tmp_path):
    data, most = _exactly_at_the_bound(tmp_path, "starting_money = 25", "starting_money = {}",
                                       "game.starting_money")
    assert data.components.starting_money == most > 1_000_000_000
    frame = _results_hold_the_true_values(data)
    assert frame["score"].min() > 1_000_000_000  # not wrapped negative, not wrapped small
    assert frame["income"].max() > 0


def test_room_price_at_the_bound_plays_true_numbers(tmp_path):
    data, most = _exactly_at_the_bound(tmp_path, PRICES_LINE, PRICES_LINE.replace("12]", "{}]"),
                                       "price_cards.prices[9]")
    assert data.components.card_price[9] == most > 1_000_000
    frame = _results_hold_the_true_values(data)
    # the dear card still hosts guests (a price past the kernels' ordering key would host none)
    assert frame["income"].max() >= most


ONE_ROUND = """\
[game]
min_players = 3
max_players = 3
rounds = 1
starting_money = 0
double_rounds = []
double_factor = 1
special_tile_value = 0
holiday_removals = 1
send_home_removals = 1
recall_cards = 1

[nations]
names = ["England"]
codes = ["E"]
flags_per_nation = 1

[tiles_per_round]
rounds_per_block = 1
3 = [0]

[price_cards]
bids = [1, 2]
prices = [{price}, 1]

[hotel]
floors = 1
rooms_per_floor = 1

[tiles]
extra_room = 0
suite = 0
pool = 0
switch = 0
send_home = 0
recall = 0

[chips]
plain = 3
rich = 0
lover = 0
celebrity = 0
swimmer_buoys = []

[[tourist_cards]]
3 = [1]
"""


def test_room_price_is_bounded_by_the_seat_order_key_too(tmp_path):
    """One round of one guest earns at most twice a price: the money columns would allow ~5e8, but
    the kernels order hosts by price x 8 below 2**30, so the bound there is MAX_PRICE."""
    assert components.money_limit()[0] // 2 > components.MAX_PRICE
    ok = load(write_variant(tmp_path, text=ONE_ROUND.format(price=components.MAX_PRICE)))
    assert ok.components.card_price[0] == components.MAX_PRICE
    with pytest.raises(ComponentDataError) as err:
        load(write_variant(tmp_path, text=ONE_ROUND.format(price=components.MAX_PRICE + 1)))
    assert re.search(rf": price_cards\.prices\[0\]: {components.MAX_PRICE + 1} is too large: .*"
                     rf"use at most {components.MAX_PRICE:,}$", str(err.value)), str(err.value)


def _rounds_variant(rounds: int, flags: int) -> str:
    """The default file with ``rounds`` rounds (4 nations x ``flags`` flags), no tiles revealed and
    the tourist cards repeated to serve every round."""
    head, cards = tourist_card_blocks()
    head = _apply(head, [("rounds = 12", f"rounds = {rounds}"),
                         ("flags_per_nation = 3", f"flags_per_nation = {flags}"),
                         ("rounds_per_block = 3", f"rounds_per_block = {rounds}")])
    # the stack's 19 tiles could not serve the default's reveals for that many rounds
    head = re.sub(r"^([3-6]) = \[.*\]$", r"\1 = [0]", head, flags=re.M)
    return head + "".join("[[tourist_cards]]\n" + c for c in cards * 3)


def test_rounds_whose_tie_counts_pass_int8_are_rejected(tmp_path):
    """A seat meets up to players - 1 ties a round in each tie column, an int8 of the results."""
    from samsim.runs import schema

    top = np.iinfo(next(c.dtype for c in schema.RESULTS if c.name == "build_ties_won")).max
    most = top // (6 - 1)
    assert 24 <= most < 28
    data = load(write_variant(tmp_path, text=_rounds_variant(24, 6)))
    assert data.components.rounds == 24
    with pytest.raises(ComponentDataError) as err:
        load(write_variant(tmp_path, text=_rounds_variant(28, 7)))
    message = str(err.value)
    assert re.search(rf": game\.rounds: 28 is too large: .*6 players.*reach 140, beyond the {top} of "
                     rf"the int8 column results\.build_ties_won; use at most {most}$", message), message
    # with at most 5 players the same 28 rounds fit (4 rivals x 28 = 112)
    text = _rounds_variant(28, 7).replace("max_players = 6", "max_players = 5")
    assert load(write_variant(tmp_path, text=re.sub(r"^6 = \[.*\]\n", "", text, flags=re.M))
                ).components.rounds == 28


def test_every_narrow_count_column_fits_its_largest_value():
    """The counts not checked per file are bounded by the module's MAX_* limits: each must fit its
    column, and a new narrow column must be added here (so someone works out its bound)."""
    from samsim.kernel.decisions import MAX_TAKE
    from samsim.runs import schema

    most_guests = min(components.MAX_CHIPS, MAX_TAKE)
    largest = {
        ("results", "seat"): components.MAX_SEATS - 1,
        ("results", "players"): components.MAX_SEATS,
        ("results", "free_rooms"): components.MAX_ROOMS,
        ("results", "rank"): components.MAX_SEATS,
        ("results", "tiles_bought"): components.MAX_ROUNDS,  # one a round; checked per file too
        ("results", "tourists_hosted"): components.MAX_ROUNDS * most_guests,
        ("results", "build_ties_won"): None, ("results", "build_ties_lost"): None,  # per file
        ("results", "price_ties_won"): None, ("results", "price_ties_lost"): None,
        ("rounds", "seat"): components.MAX_SEATS - 1,
        ("rounds", "players"): components.MAX_SEATS,
        ("rounds", "round"): components.MAX_ROUNDS,
        ("rounds", "rooms_filled"): components.MAX_ROOMS,
        ("rounds", "card"): components.MAX_CARDS,  # the Staff holiday card's index
        ("rounds", "tile"): len(TILE_KINDS) - 1,
        ("rounds", "hosted"): most_guests,
        ("rounds", "arrived"): components.MAX_CHIPS,
        ("rounds", "free_rooms"): components.MAX_SEATS * components.MAX_ROOMS,
        ("rounds", "turned_away"): components.MAX_CHIPS,
    }
    narrow = {(t, c.name): c.dtype for t, cols in schema.TABLES.items() for c in cols
              if c.dtype in ("int8", "int16")}
    assert set(narrow) == set(largest)
    for key, most in largest.items():
        if most is not None:
            assert most <= np.iinfo(narrow[key]).max, (key, most, narrow[key])
    # a file may not get past these limits
    assert components.MAX_TILES < np.iinfo(np.int64).max and components.MAX_PRICE * 8 + 8 <= 1 << 30


def test_cli_refuses_an_overflowing_file_in_one_line(tmp_path):
    import subprocess
    import sys

    samsim = Path(sys.executable).with_name("samsim")
    assert samsim.exists(), samsim
    path = write_variant(tmp_path, ("starting_money = 25", "starting_money = 3000000000"))
    done = subprocess.run([str(samsim), "simulate", "--rules", str(path), "--games", "10"],
                          capture_output=True, text=True, timeout=600, cwd=tmp_path,
                          stdin=subprocess.DEVNULL, check=False)
    assert done.returncode == 2, (done.stdout, done.stderr)
    lines = done.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("samsim: error: "), done.stderr
    assert "game.starting_money: 3000000000 is too large" in lines[0] and "use at most" in lines[0]
    assert done.stdout == "" and not list(tmp_path.rglob("*.parquet"))
