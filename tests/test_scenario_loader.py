"""The scenario loader refuses positions no game could reach, and checks the state after a round.

A scenario is a rule test: a position the rules cannot produce (a flag row with equal neighbours,
more tiles of a kind than the box holds, a tie-breaker in the wrong seat for the round, a room the
hotel cannot have) would test the engines on a state they never meet, so the loader refuses it with
one line naming the field. Checkpoints (``expect.after``) check the state after a given round of a
multi-round scenario. Everything here runs without the compiled engine.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest

from samsim.scenario import (
    ScenarioError,
    ScenarioResult,
    check_expectations,
    load_scenario,
    run_and_check,
)

SCENARIO_DIR = Path(__file__).parent / "scenarios"
FLAGS = ["E", "G", "J", "N", "G", "E", "N", "J", "E", "N", "G", "J"]

BASE = {
    "players": 3,
    "round": 1,
    "rounds": 2,
    "flags": FLAGS,
    "tile_stack": ["extra_room", "pool"],
}


def _doc(**changes) -> dict:
    doc = copy.deepcopy(BASE)
    doc.update(changes)
    return doc


def _refused(doc) -> str:
    with pytest.raises(ScenarioError) as info:
        load_scenario(doc)
    message = str(info.value)
    assert "\n" not in message, "a refusal is one line"
    return message


# --------------------------------------------------------------------------------------------------
# a. the flag row


def test_flag_row_of_the_deal_loads():
    assert load_scenario(_doc()).position["flags"] == [0, 1, 3, 2, 1, 0, 2, 3, 0, 2, 1, 3]


@pytest.mark.parametrize("flags, message", [
    (["E", "E", "J", "N", "G", "G", "N", "J", "E", "N", "J", "J"],
     "flags[1]: England again, as in round 1 (no nation has its flag in two consecutive rounds)"),
    (["E", "G", "J", "N", "G", "E", "N", "J", "E", "N", "J", "J"], "flags[11]: Japan again, as in round 11"),
    # where two stacks meet (rounds 4 and 5): the deal swaps such a pair apart
    (["E", "G", "J", "N", "N", "E", "G", "J", "E", "N", "G", "J"], "flags[4]: Norway again, as in round 4"),
])
def test_equal_neighbours_in_the_flag_row_are_refused(flags, message):
    assert _refused(_doc(flags=flags)).startswith(message)


def test_every_flag_row_the_deal_lays_loads():
    """The refusal matches the deal: rows the (reference) deal lays, equal flags split where stacks
    meet, all pass it."""
    from samsim import components
    from samsim.reference.game import deal_game
    from samsim.reference.model import Rules
    data = components.load()
    rules = Rules(data)
    for game in range(300):
        flags = [data.nation_codes[n] for n in deal_game(rules, 7, game).flags]
        load_scenario(_doc(flags=flags))


def test_more_flags_of_a_nation_than_the_box_holds_are_refused():
    flags = ["E", "G", "E", "G", "E", "G", "E", "N", "J", "N", "J", "N"]
    assert _refused(_doc(flags=flags)).startswith(
        "flags[6]: 4 flags of England, but the box holds 3 per nation")


# --------------------------------------------------------------------------------------------------
# b. tiles: no kind in more places than the box holds


@pytest.mark.parametrize("changes, message", [
    ({"tile_stack": ["pool"] * 4, "table_tiles": {"pool": 2}},
     "table_tiles: 6 pool tiles in all (tile_stack 4 + table_tiles 2), but the box holds 5"),
    ({"tile_stack": ["pool"] * 3, "table_tiles": {"pool": 1}, "seats": {"2": {"pools": 2}}},
     "seats[2].pools: 6 pool tiles in all (tile_stack 3 + table_tiles 1 + seats[2].pools 2)"),
    ({"tile_stack": ["suite"] * 2, "seats": {"0": {"suites": [0, 1]}, "1": {"suites": [4, 5]}}},
     ("seats[1].suites: 6 suite tiles in all (tile_stack 2 + seats[0].suites 2 + seats[1].suites 2), "
      "but the box holds 5")),
    ({"tile_stack": ["extra_room"] * 3, "seats": {"0": {"extra_rooms": 2}, "1": {"extra_rooms": 2}}},
     "seats[1].extra_rooms: 7 extra_room tiles in all"),
    ({"tile_stack": ["extra_room"] * 5, "seats": {"0": {"rooms": [[]] * 8}}},
     "seats[0].rooms: 7 extra_room tiles in all (tile_stack 5 + seats[0].rooms 2)"),
    ({"tile_stack": ["recall"], "seats": {"1": {"specials": {"recall": 1}}}},
     "seats[1].specials: 2 recall tiles in all (tile_stack 1 + seats[1].specials 1), but the box holds 1"),
    ({"tile_stack": [], "seats": {"0": {"specials": [1, 0, 0]}, "2": {"specials": ["switch"]}}},
     "seats[2].specials: 2 switch tiles in all"),
])
def test_more_tiles_of_a_kind_than_the_box_holds_are_refused(changes, message):
    assert _refused(_doc(**changes)).startswith(message)


def test_without_tile_stack_the_seeded_stack_holds_the_whole_box():
    """The engines keep the deal's whole stack when a scenario gives none, so any tile elsewhere is
    one too many; the message says so and how to fix it."""
    doc = _doc(table_tiles={"suite": 1})
    del doc["tile_stack"]
    message = _refused(doc)
    assert message.startswith("table_tiles: 6 suite tiles in all (the seeded tile stack 5 + "
                              "table_tiles 1), but the box holds 5")
    assert "give tile_stack" in message
    doc = _doc(seats={"0": {"pools": 1}})
    del doc["tile_stack"]
    assert _refused(doc).startswith("seats[0].pools: 6 pool tiles in all (the seeded tile stack 5")


def test_the_whole_box_in_play_loads():
    """Exactly the box is possible; a used special tile has left the game, so a stack without the
    special tiles and seats without them is fine too."""
    doc = _doc(tile_stack=["pool", "pool", "suite"], table_tiles={"pool": 1, "extra_room": 2},
               seats={"0": {"pools": 2, "suites": [0, 1, 2, 3], "extra_rooms": 4,
                            "specials": ["switch", "send_home", "recall"]}})
    load_scenario(doc)


# --------------------------------------------------------------------------------------------------
# c. the tie-breaker of the round


@pytest.mark.parametrize("players, start, expected", [
    (3, 1, 0), (3, 2, 1), (3, 4, 0), (3, 12, 2), (4, 5, 0), (4, 6, 1), (5, 3, 2), (6, 12, 5)])
def test_tiebreak_follows_the_round(players, start, expected):
    doc = _doc(players=players, round=start, rounds=1)
    assert load_scenario(doc).position["tiebreak"] == expected, "absent: the round's tie-breaker"
    assert load_scenario(dict(doc, tiebreak=expected)).position["tiebreak"] == expected
    wrong = (expected + 1) % players
    assert _refused(dict(doc, tiebreak=wrong)) == (
        f"tiebreak: must be {expected} at the start of round {start} with {players} players "
        f"(t = (start + round - 1) mod players: it starts at 0 and moves one seat after every "
        f"round), "
        f"got {wrong}")


# --------------------------------------------------------------------------------------------------
# d. rooms beyond the hotel


@pytest.mark.parametrize("changes, message", [
    ({"seats": {"0": {"rooms": {"6": "E0"}}}}, "seats[0].rooms.6: the seat owns rooms 0..5"),
    ({"seats": {"0": {"extra_rooms": 1, "rooms": {"7": "E0"}}}}, "seats[0].rooms.7: the seat owns rooms 0..6"),
    ({"seats": {"0": {"suites": [6]}}}, "seats[0].suites[0]: room 6 is not owned"),
    # the stack reveals one extra room in round 1 (3 players: one tile a round), so seat 0 can own
    # room 6 after round 1 or 2, never room 7
    ({"expect": {"rooms": {"0": {"7": []}}}},
     ("expect.rooms[0].7: room 7 is beyond seat 0's hotel: it owns 6 rooms at the start and at most "
      "rooms 0..6 after round 2")),
    ({"expect": {"suites": {"1": [2, 7]}}}, "expect.suites[1][1]: room 7 is beyond seat 1's hotel"),
    ({"expect": {"rooms": {"2": [[]] * 8}}},
     "expect.rooms[2]: lists 8 rooms, but seat 2 owns 6 at the start and at most 7 after round 2"),
    ({"expect": {"rooms": {"2": [[]] * 5}}}, "expect.rooms[2]: lists 5 rooms, but seat 2 owns 6 at the start"),
    # no extra room reaches the table: the hotel cannot grow
    ({"tile_stack": ["pool", "suite"], "expect": {"rooms": {"0": {"6": []}}}},
     "expect.rooms[0].6: room 6 is beyond seat 0's hotel"),
    # after round 1 the seat can own one room more than at the start, not two
    ({"tile_stack": ["extra_room", "extra_room"], "seats": {"0": {"extra_rooms": 1}},
      "expect": {"after": {"1": {"rooms": {"0": {"8": []}}}}}},
     ("expect.after.1.rooms[0].8: room 8 is beyond seat 0's hotel: it owns 7 rooms at the start and "
      "at most rooms 0..7 after round 1")),
])
def test_rooms_beyond_the_hotel_are_refused(changes, message):
    assert _refused(_doc(**changes)).startswith(message)


def test_rooms_the_hotel_can_reach_load():
    doc = _doc(tile_stack=["extra_room", "extra_room"], seats={"0": {"extra_rooms": 1}},
               expect={"after": {"1": {"rooms": {"0": {"7": []}}}}, "rooms": {"0": {"8": []}},
                       "suites": {"0": [8]}})
    load_scenario(doc)


@pytest.mark.parametrize("room, message", [
    (["E0", "E1"], "seats[0].rooms.0: a room holds one tourist, or two lovers (a couple)"),
    (["E10", "E0"], "seats[0].rooms.0: a room holds one tourist, or two lovers (a couple)"),
    (["E10", "E11", "E12"], "seats[0].rooms.0: a room holds one tourist, or two lovers"),
])
def test_a_room_holds_one_tourist_or_a_couple(room, message):
    assert _refused(_doc(seats={"0": {"rooms": {"0": room}}})).startswith(message)
    load_scenario(_doc(seats={"0": {"rooms": {"0": ["E10", "E11"]}}}))  # two lovers: a couple


def test_decisions_are_checked_for_format_only():
    """An illegal decision must reach the engines (reject_* scenarios), so a room the seat does not
    own loads; only a room no hotel of this data can have is a format error."""
    doc = _doc(rounds=1, arrivals={"1": [["E0"]]},
               decisions={"1": [{"card": "2/3", "take": [["E0", 9]], "send_home": [8],
                                 "holiday": [10], "build": {"tile": "suite", "room": 11}}, None, None]})
    decision = load_scenario(doc).position["decisions"][1][0]
    assert decision["take"] == [[0, 9]] and decision["build"] == {"tile": 1, "room": 11}
    doc["decisions"]["1"][0]["take"] = [["E0", 12]]
    assert _refused(doc).startswith("decisions.1[0].take[0].room: must be at most 11")


# --------------------------------------------------------------------------------------------------
# checkpoints: the state after a given round


def test_checkpoints_are_parsed_per_round():
    doc = _doc(expect={"after": {"2": {"money": [30, None, 25]}, "1": {
        "free_rooms": {"1": 6}, "piles": {"E": 16, "Norway": 18}, "tiebreak": 1,
        "table_tiles": {"pool": 1}, "in_pile": ["E5"]}}, "piles": [18, 18, None, 17]})
    expect = load_scenario(doc).expect
    assert list(expect["after"]) == [1, 2]
    assert expect["after"][2] == {"money": {0: 30, 2: 25}}
    assert expect["after"][1] == {"free_rooms": {1: 6}, "tiebreak": 1, "table_tiles": [0, 0, 1, 0, 0, 0],
                                  "piles": {0: 16, 2: 18}, "in_pile": [5]}
    assert expect["piles"] == {0: 18, 1: 18, 3: 17}


@pytest.mark.parametrize("expect, message", [
    ({"after": {"3": {"money": [1, 2, 3]}}}, "expect.after.3: round 3 is not played (the scenario plays rounds 1..2)"),
    ({"after": {"1": {"score": [1, 2, 3]}}}, "expect.after.1.score: unknown key"),
    ({"after": {"1": {"events": []}}}, "expect.after.1.events: unknown key"),
    ({"after": {"1": {"money": [1, 2]}}}, "expect.after.1.money: must give one entry per seat (3), got 2"),
    ({"after": {"1": {"piles": {"X": 3}}}}, "expect.after.1.piles.X: unknown nation 'X'"),
    ({"after": {"1": {"piles": {"E": 19}}}}, "expect.after.1.piles.E: must be at most 18, got 19"),
    ({"piles": [18, 18]}, "expect.piles: as a list, give one count per nation (E, G, N, J)"),
    ({"after": [1]}, "expect.after: must be an object"),
    ({"error": "x", "after": {"1": {}}}, "expect.error: a scenario that must be rejected expects nothing else"),
])
def test_checkpoint_mistakes_name_the_field(expect, message):
    assert _refused(_doc(expect=expect)).startswith(message)


def _snapshot(money, rooms, piles, tiebreak=0):
    seats = [{"money": m, "hand": [], "discard": [], "rooms": r, "suites": [], "pools": 0,
              "specials": [0, 0, 0]} for m, r in zip(money, rooms)]
    return {"round": 2, "tiebreak": tiebreak, "table_tiles": [0] * 6, "tile_stack": [],
            "piles": piles, "seats": seats}


def test_checkpoints_are_checked_against_their_own_snapshot():
    scenario = load_scenario(_doc(expect={
        "after": {"1": {"money": [28, 25, 25], "free_rooms": [5, 6, 6], "piles": {"E": 17}}},
        "money": [31, 25, 25], "free_rooms": [4, 6, 6]}))
    full = [list(range(18))] * 4
    after_1 = _snapshot([28, 25, 25], [[[0]] + [[]] * 5, [[]] * 6, [[]] * 6],
                        [list(range(1, 18))] + full[1:])
    end = _snapshot([31, 25, 25], [[[0], [1]] + [[]] * 4, [[]] * 6, [[]] * 6],
                    [list(range(2, 18))] + full[1:])
    result = ScenarioResult(scenario=scenario, engine="fake", snapshot=end, checkpoints={1: after_1})
    assert check_expectations(scenario, result) == []

    wrong = copy.deepcopy(after_1)
    wrong["seats"][0]["money"] = 29
    wrong["seats"][1]["rooms"][3] = [40]
    wrong["piles"][0] = list(range(3, 18))
    result = ScenarioResult(scenario=scenario, engine="fake", snapshot=end, checkpoints={1: wrong})
    assert check_expectations(scenario, result) == [
        "after round 1: money of seat 0: got 29, expected 28",
        "after round 1: free_rooms of seat 1: got 5, expected 6",
        "after round 1: piles: England has 15 chips left, expected 17"]
    result = ScenarioResult(scenario=scenario, engine="fake", snapshot=end)
    assert check_expectations(scenario, result) == [
        "after round 1: no snapshot of that round (run_scenario takes one)"]


def test_a_story_checkpoint_that_does_not_hold_is_reported():
    """On the reference engine: the story's checkpoints hold, and a wrong one is named by its round."""
    doc = json.loads((SCENARIO_DIR / "story_five_rounds_three_hotels.json").read_text())
    assert run_and_check(load_scenario(doc), "reference") == []
    doc["expect"]["after"]["2"]["money"] = [36, 29, 19]
    doc["expect"]["after"]["4"]["piles"]["N"] = 18
    assert run_and_check(load_scenario(doc), "reference") == [
        "after round 2: money of seat 0: got 35, expected 36",
        "after round 4: piles: Norway has 15 chips left, expected 18"]
