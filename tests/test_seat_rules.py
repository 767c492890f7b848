"""The data file's optional [seats] section: the rules variants a designer uses to compensate a seat
(docs/rules.md, section 2). Each lever is validated with a message naming the field, changes the
game exactly as documented in both engines, and leaves the game as printed untouched when absent."""

from __future__ import annotations

import re

import pytest

from samsim import components, engine, reference
from samsim.components import EXTRA_ROOM, PLAIN, ComponentDataError, load
from samsim.reference import events as ev

DEFAULT_TEXT = components.default_data_path().read_text(encoding="utf-8")
DATA = load()

ALL_LEVERS = """
[seats]
money = {3 = [0, 3, 7], 4 = [-5, 0, 2, 9], 5 = [1, 1, 1, 1, -25], 6 = [0, 0, 0, 15, 0, 4]}
tiebreak_start = {3 = 2, 4 = 1, 5 = 4, 6 = 3}
price_ties = {3 = "clockwise", 4 = "counter-clockwise", 5 = "clockwise", 6 = "clockwise"}
"""


def variant(tmp_path, seats: str, name: str = "variant.toml"):
    path = tmp_path / name
    path.write_text(DEFAULT_TEXT + seats, encoding="utf-8")
    return load(path)


def test_the_game_as_printed_has_no_seat_rules():
    c = DATA.components
    assert not c.seat_money.any() and not c.tiebreak_start.any() and not c.price_clockwise.any()


@pytest.mark.parametrize("players", [3, 6])
def test_an_all_zero_section_plays_the_printed_game(tmp_path, players):
    zero = variant(tmp_path, "\n[seats]\nmoney = {%d = [%s]}\ntiebreak_start = {%d = 0}\n"
                             'price_ties = {%d = "counter-clockwise"}\n'
                   % (players, ", ".join(["0"] * players), players, players))
    for game in range(20):
        a = engine.play_game(DATA, players, seed=5, game=game, log=True)
        b = engine.play_game(zero, players, seed=5, game=game, log=True)
        assert a.events == b.events and a.snapshot == b.snapshot


@pytest.mark.parametrize("players", [3, 4, 5, 6])
def test_kernel_and_reference_agree_on_every_lever(tmp_path, players):
    data = variant(tmp_path, ALL_LEVERS)
    for game in range(60):
        fast = engine.play_game(data, players, seed=77, game=game, log=True)
        slow = reference.play_game(data, players, seed=77, game=game, log=True)
        assert fast.events == slow.events, (players, game)
        assert fast.snapshot == slow.snapshot, (players, game)


def test_seat_money_and_the_first_tiebreak_come_from_the_section(tmp_path):
    data = variant(tmp_path, ALL_LEVERS)
    record = engine.play_game(data, 4, seed=1, game=0, log=True)
    moves = [e[3] for e in record.events if e[1] == ev.TIEBREAK]
    assert moves == [(1 + r) % 4 for r in range(1, 13)]  # starts at seat 1, moves after each round
    position = {"players": 4, "round": 1, "rounds": 1,
                "decisions": {1: [{"card": DATA.components.holiday_card} for _ in range(4)]}}
    for play in (engine.play_position, reference.play_position):
        snap = play(data, dict(position)).snapshot
        assert [s["money"] for s in snap["seats"]] == [20, 25, 27, 34]
        assert snap["tiebreak"] == 2


def test_money_compensation_shows_in_the_results(tmp_path):
    from samsim.runs.simulate import simulate
    data = variant(tmp_path, ALL_LEVERS)
    df = simulate(60, 6, seed=3, data=data)
    start = 25 + df["seat"].map(dict(enumerate([0, 0, 0, 15, 0, 4])))
    assert (df["money"] == start + df["income"] - df["spent"]).all()


@pytest.mark.parametrize("players", [3, 4, 5, 6])
@pytest.mark.parametrize("t", [0, 2])
def test_clockwise_price_ties_host_in_the_build_order(tmp_path, players, t):
    """Every seat bids the same card: builds go clockwise from the card as printed, and with
    price_ties = "clockwise" so do the tourists (counter-clockwise as printed, tests/test_reference).
    One group per seat is more than the kernel's positions hold; the kernel plays the lever the
    same way in test_kernel_and_reference_agree_on_every_lever."""
    data = variant(tmp_path, '\n[seats]\nprice_ties = {%d = "clockwise"}\n' % players)
    rules = reference.model.Rules(data)
    guests = [c.id for c in rules.tourists if c.nation == 3 and c.kind == PLAIN][:players]
    eight_six = data.card_id("8/6")
    pos = {"players": players, "seed": 11, "game": 0, "round": 11, "rounds": 1,
           "flags": [0, 1, 3, 2, 0, 1, 2, 3, 1, 0, 3, 2], "tile_stack": [],
           "table_tiles": [players, 0, 0, 0, 0, 0], "tiebreak": t,
           "arrivals": {11: [[chip] for chip in guests]},
           "decisions": {11: [{"card": eight_six, "build": {"tile": EXTRA_ROOM}, "group": s,
                               "take": [[guests[s], 0]]} for s in range(players)]}}
    order = [(t + k) % players for k in range(players)]
    record = reference.play_position(data, pos)
    assert [e[2] for e in record.events if e[1] == ev.BUY] == order
    assert [e[2] for e in record.events if e[1] == ev.HOST] == order


BAD = [
    ("not_a_section", "seats = 3\n", "seats", r"must be a section"),
    ("unknown_key", "[seats]\nmony = {4 = [0, 0, 0, 0]}\n", "seats.mony", r"unknown key"),
    ("not_a_table", "[seats]\nmoney = [0, 0, 0, 0]\n", "seats.money", r"table of player count"),
    ("unknown_count", "[seats]\ntiebreak_start = {7 = 1}\n", "seats.tiebreak_start.7",
     r"unknown player count \(player counts are 3..6\)"),
    ("short_money", "[seats]\nmoney = {4 = [0, 0, 15]}\n", "seats.money.4", r"one whole number per seat \(4\)"),
    ("money_not_whole", "[seats]\nmoney = {3 = [0, 1.5, 0]}\n", "seats.money.3\\[1\\]", r""),
    ("money_below_nothing", "[seats]\nmoney = {3 = [0, -26, 0]}\n", "seats.money.3\\[1\\]", r"-25"),
    ("tiebreak_past_the_seats", "[seats]\ntiebreak_start = {4 = 4}\n", "seats.tiebreak_start.4",
     r"at most 3"),
    ("bad_price_ties", '[seats]\nprice_ties = {5 = "anticlockwise"}\n', "seats.price_ties.5",
     r"'counter-clockwise' or 'clockwise'"),
]


@pytest.mark.parametrize("text, field, problem", [b[1:] for b in BAD], ids=[b[0] for b in BAD])
def test_a_malformed_section_is_rejected_naming_the_field(tmp_path, text, field, problem):
    path = tmp_path / "broken.toml"
    path.write_text(text + "\n" + DEFAULT_TEXT, encoding="utf-8")  # [seats] first: a key is in no table
    with pytest.raises(ComponentDataError) as err:
        load(path)
    message = str(err.value)
    assert re.search(rf"^broken\.toml: {field}: ", message), message
    assert re.search(problem, message), message
