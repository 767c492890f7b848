"""Rule scenarios on both engines, engine agreement, and the scenario loader's error messages.

Every file in tests/scenarios/ encodes one worked example of the rulebook or one ruling of
docs/rules.md (or a decision the rules must reject). Running each on both engines and
demanding identical logs is what makes the fast kernel trustworthy: the reference engine is written
to be read, and the scenarios are written to be read against the rulebook.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest

from samsim import components
from samsim.scenario import (
    ScenarioError,
    ScenarioResult,
    check_expectations,
    describe_events,
    load_scenario,
    run_and_check,
    run_scenario,
)

SCENARIO_DIR = Path(__file__).parent / "scenarios"
SCENARIO_FILES = sorted(SCENARIO_DIR.glob("*.json"))
ENGINES = ("reference", "kernel")


def test_scenario_files_exist():
    assert len(SCENARIO_FILES) >= 40


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("path", SCENARIO_FILES, ids=lambda p: p.stem)
def test_scenario(path, engine):
    scenario = load_scenario(path)
    failures = run_and_check(scenario, engine)
    if failures:
        detail = ""
        if not scenario.expects_error:
            detail = "\n\nlog:\n" + run_scenario(scenario, engine).log()
        pytest.fail(f"{scenario.name} on {engine}:\n  " + "\n  ".join(failures) + detail)


@pytest.mark.parametrize("path", SCENARIO_FILES, ids=lambda p: p.stem)
def test_engines_agree(path):
    scenario = load_scenario(path)
    outcome = {}
    for engine in ENGINES:
        try:
            outcome[engine] = run_scenario(scenario, engine)
        except ValueError as err:
            outcome[engine] = err
    ref, ker = outcome["reference"], outcome["kernel"]
    if isinstance(ref, Exception) or isinstance(ker, Exception):
        # both must reject (messages are each engine's own)
        assert isinstance(ref, Exception) and isinstance(ker, Exception), (
            f"only one engine rejected the scenario: reference={ref!r}, kernel={ker!r}")
        return
    for i, (a, b) in enumerate(zip(ref.events, ker.events)):
        if a != b:
            lines = describe_events(scenario.data, [a, b], scenario.position, scenario.seat_names)
            pytest.fail(f"first differing event #{i}:\n  reference {a}: {lines[0]}\n"
                        f"  kernel    {b}: {lines[1]}")
    assert len(ref.events) == len(ker.events)
    assert ref.snapshot == ker.snapshot
    assert ref.checkpoints == ker.checkpoints  # the states after the rounds expect.after checks


# --------------------------------------------------------------------------------------------------
# The loader: every mistake names its field.

MINIMAL = {
    "players": 3,
    "round": 1,
    "rounds": 1,
    "arrivals": {"1": [["E0", "E1"], ["E2"]]},
    "decisions": {"1": [{"card": "2/3", "take": [["E0", 0]]}, None, None]},
}


def _with(change) -> dict:
    doc = copy.deepcopy(MINIMAL)
    change(doc)
    return doc


def _set(path: str, value):
    """A change that sets doc[a][b][c] = value for path "a/b/c" (list indices as numbers)."""
    def change(doc):
        keys = path.split("/")
        target = doc
        for key in keys[:-1]:
            target = target[int(key) if isinstance(target, list) else key]
        target[int(keys[-1]) if isinstance(target, list) else keys[-1]] = value
    return change


def test_minimal_scenario_normalises_names():
    scenario = load_scenario(MINIMAL)
    pos = scenario.position
    assert pos["players"] == 3 and pos["round"] == 1 and pos["rounds"] == 1
    assert pos["arrivals"] == {1: [[0, 1], [2]]}
    decision = pos["decisions"][1][0]
    assert decision == {"card": 0, "recall": [], "switch": None, "build": None, "send_home": [],
                        "group": 0, "take": [[0, 0]], "holiday": []}
    assert pos["decisions"][1][1] is None
    seat = pos["seats"][0]
    assert seat == {"money": 25, "hand": list(range(11)), "discard": [], "rooms": [[]] * 6,
                    "suites": [], "pools": 0, "specials": [0, 0, 0]}


def test_readable_names_map_to_canonical_ids():
    doc = _with(lambda d: d.update({
        "flags": ["England", "G", "J", "N", "G", "E", "N", "J", "E", "N", "G", "japan"],
        "tile_stack": ["swimming pool", "extra room", "send_home"],
        "table_tiles": {"suite": 2},
        "seats": {"1": {"discard": ["6/5"], "rooms": {"6": ["E10", "N11"]}, "extra_rooms": 1,
                        "suites": [6], "specials": {"recall": 1}}},
    }))
    pos = load_scenario(doc).position
    assert pos["flags"][0] == 0 and pos["flags"][11] == 3
    assert pos["tile_stack"] == [components.POOL, components.EXTRA_ROOM, components.SEND_HOME]
    assert pos["table_tiles"] == [0, 2, 0, 0, 0, 0]
    seat = pos["seats"][1]
    assert seat["discard"] == [2] and 2 not in seat["hand"]
    assert seat["rooms"][6] == [10, 2 * 18 + 11] and len(seat["rooms"]) == 7
    assert seat["suites"] == [6] and seat["specials"] == [0, 0, 1]


@pytest.mark.parametrize("change, message", [
    (_set("decisions/1/0/take/0/0", "X9"), "decisions.1[0].take[0]: unknown tourist chip 'X9'"),
    (_set("decisions/1/0/take/0/1", 99), "decisions.1[0].take[0].room: must be at most"),
    (_set("decisions/1/0/card", "7/7"), "decisions.1[0].card: unknown price card '7/7'"),
    (_set("decisions/1/0/card", 3), "decisions.1[0].card: a price card is written as 'bid/price'"),
    (_set("decisions/1/0/build", "castle"), "decisions.1[0].build: unknown tile kind 'castle'"),
    (_set("decisions/1/0/build", {"tile": "suite"}), "decisions.1[0].build.room: a suite needs the room"),
    (_set("decisions/1/0/build", "suite"), "decisions.1[0].build: a suite needs the room"),
    (_set("decisions/1/0/build", {"tile": "pool", "room": 2}), "decisions.1[0].build.room: only a suite"),
    (_set("decisions/1/0/colour", "red"), "decisions.1[0].colour: unknown key"),
    (_set("decisions/1/1", {"take": []}), "decisions.1[1].card: missing"),
    (_set("decisions/1/0/take", [["E0", 0], ["E2", 1]]), "decisions.1[0].take: takes from groups [0, 1]"),
    (_set("decisions/1/0/take", [["E5", 0]]), "decisions.1[0].take[0]: E5 is in no group"),
    (_set("decisions/2", [None, None, None]), "decisions.2: round 2 is not played"),
    (_set("decisions/1", [None, None]), "decisions.1: must give one entry per seat (3), got 2"),
    (_set("decisions/1", {"Zed": None}), "decisions.1.Zed: unknown seat 'Zed'"),
    (_set("arrivals/1/0/0", "Q1"), "arrivals.1[0][0]: unknown tourist chip 'Q1'"),
    (_set("arrivals/1/1", ["E0"]), "arrivals.1: a chip appears twice"),
    (_set("arrivals/13", [["E0"]]), "arrivals.13: must be at most 12"),
    (_set("players", 7), "players: must be at most 6"),
    (_set("round", 0), "round: must be at least 1"),
    (_set("rounds", 13), "rounds: must be at most 12"),
    (_set("flags", ["E"] * 11), "flags: must give one nation per round (12), got 11"),
    (_set("flags", ["E", "G", "J", "X"] + ["E"] * 8), "flags[3]: unknown nation 'X'"),
    (_set("tile_stack", ["pool", "castle"]), "tile_stack[1]: unknown tile kind 'castle'"),
    (_set("tourist_cards", [13]), "tourist_cards[0]: must be at most 12"),
    (_set("table_tiles", 3), "table_tiles: must be an object of tile kind -> count"),
    (_set("tiebreak", 3), "tiebreak: must be at most 2"),
    (_set("seat_names", ["A", "B"]), "seat_names: must give 3 distinct non-numeric names"),
    (_set("seats", [{}, {}]), "seats: must give one entry per seat (3), got 2"),
    (_set("seats", {"1": {"money": -1}}), "seats[1].money: must be at least 0"),
    (_set("seats", {"1": {"cash": 3}}), "seats[1].cash: unknown key"),
    (_set("seats", {"0": {"hand": ["2/3"], "discard": ["4/4"]}}), "seats[0].hand: 6/5 is neither in hand"),
    (_set("seats", {"0": {"hand": ["2/3"], "discard": ["2/3"]}}), "seats[0].discard: 2/3 is both in hand"),
    (_set("seats", {"0": {"rooms": {"6": "E0"}}}), "seats[0].rooms.6: the seat owns rooms 0..5"),
    (_set("seats", {"0": {"discard": ["holiday"]}}), "seats[0].discard: the Staff holiday card always"),
    (_set("seats", {"0": {"rooms": [[]] * 5}}), "seats[0].rooms: must list every owned room"),
    (_set("seats", {"0": {"rooms": {"0": ["E10", "E11", "E12"]}}}), "seats[0].rooms.0: a room holds one tourist, or two lovers"),
    (_set("seats", [{"rooms": {"0": "J0"}}, {"rooms": {"2": "J0"}}, {}]),
     "seats[1].rooms[2]: J0 is already in seats[0].rooms[0]"),
    (_set("seats", {"0": {"suites": [7]}}), "seats[0].suites[0]: room 7 is not owned"),
    (_set("seats", {"0": {"specials": ["pool"]}}), "seats[0].specials: pool is not a special tile"),
    (_set("expect", {"money": [1, 2]}), "expect.money: must give one entry per seat (3), got 2"),
    (_set("expect", {"events": [{"kind": "PARTY"}]}), "expect.events[0].kind: unknown event kind 'PARTY'"),
    (_set("expect", {"events": [{"kind": "HOST", "card": "2/3"}]}), "expect.events[0].card: unknown key"),
    (_set("expect", {"events": [{"kind": "HOST", "chip": "Z1"}]}), "expect.events[0].chip: unknown tourist chip"),
    (_set("expect", {"error": "x", "money": [1, 2, 3]}), "expect.error: a scenario that must be rejected"),
    (_set("expect", {"wealth": 3}), "expect.wealth: unknown key"),
    (_set("surprise", 1), "surprise: unknown key"),
    (_set("data", "no/such/file.toml"), "data: cannot read data file"),
])
def test_load_errors_name_the_field(change, message):
    with pytest.raises(ScenarioError) as info:
        load_scenario(_with(change))
    assert message in str(info.value)


def test_missing_players_is_reported():
    doc = dict(MINIMAL)
    del doc["players"]
    with pytest.raises(ScenarioError, match="^players: missing"):
        load_scenario(doc)


def test_group_is_required_without_scripted_arrivals():
    doc = _with(lambda d: d.pop("arrivals"))
    with pytest.raises(ScenarioError, match=r"decisions\.1\[0\]\.group: missing"):
        load_scenario(doc)


def test_file_errors_carry_the_file_name(tmp_path):
    bad = tmp_path / "broken.json"
    bad.write_text("{not json")
    with pytest.raises(ScenarioError, match="broken.json: not valid JSON"):
        load_scenario(bad)
    wrong = tmp_path / "wrong.json"
    wrong.write_text(json.dumps(_with(_set("decisions/1/0/card", "1/1"))))
    with pytest.raises(ScenarioError, match=r"^wrong\.json: decisions\.1\[0\]\.card"):
        load_scenario(wrong)
    with pytest.raises(ScenarioError, match="cannot read scenario file"):
        load_scenario(tmp_path / "absent.json")


def test_data_path_is_relative_to_the_scenario_file():
    scenario = load_scenario(SCENARIO_DIR / "ruling12_switch_in_build_tiebreak_order.json")
    assert scenario.data_path == (SCENARIO_DIR / "data" / "two_switches.toml").resolve()
    assert int(scenario.data.components.tile_count[components.SWITCH]) == 2


def test_every_scenario_file_loads():
    for path in SCENARIO_FILES:
        scenario = load_scenario(path)
        assert scenario.description, f"{path.name} says nothing about what it shows"


# --------------------------------------------------------------------------------------------------
# check_expectations and the log, without an engine


def _fake_result(scenario, events, money=(25, 25, 25)):
    seats = [dict(s) for s in scenario.position["seats"]]
    for seat, m in zip(seats, money):
        seat["money"] = m
    snapshot = {"round": 2, "tiebreak": 1, "table_tiles": [0] * 6, "tile_stack": [],
                "piles": [[], [], [], []], "seats": seats}
    return ScenarioResult(scenario=scenario, engine="fake", snapshot=snapshot, events=events)


def test_check_expectations_reports_each_failure():
    doc = _with(lambda d: d.update({"expect": {
        "money": [28, None, None],
        "events": [{"kind": "HOST", "seat": 0, "chip": "E0", "paid": 3}],
        "no_events": [{"kind": "BUY"}],
        "event_sequence": [{"kind": "PLAY", "seat": 0}, {"kind": "HOST", "seat": 0}],
        "tiebreak": 1,
    }}))
    scenario = load_scenario(doc)
    good = [(1, 7, 0, 0, -1, -1, -1), (1, 12, 0, 0, 0, 3, 0)]
    assert check_expectations(scenario, _fake_result(scenario, good, (28, 25, 25))) == []
    bad = [(1, 12, 0, 0, 0, 6, 0), (1, 7, 0, 0, -1, -1, -1), (1, 9, 1, 2, 4, -1, -1)]
    failures = check_expectations(scenario, _fake_result(scenario, bad, (31, 25, 25)))
    text = "\n".join(failures)
    assert "money of seat 0: got 31, expected 28" in text
    assert "events: no event matches HOST seat=0 chip=E0 paid=3" in text
    assert "no_events: 1 events match BUY" in text
    assert "event_sequence: no event matches HOST seat=0" in text
    assert len(failures) == 4


def test_check_expectations_on_rejections():
    scenario = load_scenario(_with(lambda d: d.update({"expect": {"error": ["not in hand", "nope"]}})))
    assert check_expectations(scenario, ValueError("round 1, seat 0: card 2/3 is not in hand")) == []
    assert check_expectations(scenario, ValueError("something else"))
    assert check_expectations(scenario, _fake_result(scenario, []))
    plain = load_scenario(MINIMAL)
    assert check_expectations(plain, ValueError("boom")) == [
        "the scenario was rejected: ValueError: boom"]


def test_describe_events_explains_payments():
    data = components.load()
    # seat 0 plays 10/7 (card 4); a celebrity E13 in room 0, then rich E8 into suite room 1
    position = {"players": 3, "seats": [
        {"rooms": [[13], [], [], [], [], []], "suites": [1], "pools": 1},
        {"rooms": [[]] * 6, "suites": [], "pools": 0},
        {"rooms": [[]] * 6, "suites": [], "pools": 0}]}
    events = [(1, 7, 0, 4, -1, -1, -1), (1, 12, 0, 8, 1, 14, 0), (1, 12, 0, 17, 5, 10, 0),
              (1, 12, 0, 0, 4, 9, 0)]
    lines = describe_events(data, events, position)
    assert lines[0] == "round 1: seat 0 plays 10/7 (bid 10, room price 7)"
    assert lines[1] == ("round 1: seat 0 hosts E8 (rich) in room 1 for 14 (price 7 x2 rich, suite, "
                        "next to celebrity E13 in room 0 (never more than x2))")
    assert lines[2] == ("round 1: seat 0 hosts E17 (swimmer, buoy 3) in room 5 for 10 "
                        "(price 7 + swimmer bonus 3 buoy x 1 pool)")
    # E0 in room 4 has no celebrity beside it (E13 is diagonal): the log flags the odd amount
    assert lines[3].endswith("for 9 (price 7 [the rules give 7])")


def test_rooms_as_a_list_also_checks_the_room_count():
    scenario = load_scenario(_with(lambda d: d.update({"expect": {
        "rooms": [["E0", [], [], [], [], [], []], None, None]}})))
    seats = [dict(s) for s in scenario.position["seats"]]
    seats[0]["rooms"] = [[0], [], [], [], [], []]
    result = _fake_result(scenario, [])
    result.snapshot["seats"] = seats
    assert check_expectations(scenario, result) == [
        "rooms of seat 0: owns 6 rooms, expected 7", "rooms of seat 0: room 6 is not owned (owns 6 rooms)"]


def test_documented_example_on_reference():
    """The example in docs/scenarios.md must stay a valid, passing scenario, log lines included."""
    import re
    doc = (Path(__file__).parent.parent / "docs" / "scenarios.md").read_text()
    example = json.loads(re.search(r"```json\n(.*?)```", doc, re.S).group(1))
    scenario = load_scenario(example)
    assert run_and_check(scenario, "reference") == []
    log = run_scenario(scenario, "reference").log().splitlines()
    shown = re.search(r"Its log .*?```\n(.*?)```", doc, re.S).group(1).splitlines()
    assert [line for line in shown if line != "..." and line not in log] == []
