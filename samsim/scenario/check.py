"""Running a scenario on either engine, and checking what came out against what it expects.

The engines are imported when a scenario is run, not before: loading and checking a file needs
neither the compiled engine nor the reference one.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from samsim.components import TILE_KINDS, GameData
from samsim.illegal import IllegalDecision
from samsim.scenario.expect import CHECKPOINT_PER_SEAT, PER_SEAT_EXPECT
from samsim.scenario.load import Scenario, load_scenario
from samsim.scenario.log import EVENT_CODE, EVENT_FIELDS, describe_events

ENGINES = ("kernel", "reference")


@dataclass
class ScenarioResult:
    """What one engine made of a scenario."""

    scenario: Scenario
    engine: str
    snapshot: dict
    events: list[tuple[int, ...]] = field(default_factory=list)
    #: round -> the snapshot after that round, for each round ``expect.after`` checks
    checkpoints: dict[int, dict] = field(default_factory=dict)

    def log(self) -> str:
        return "\n".join(describe_events(self.scenario.data, self.events,
                                         position=self.scenario.position,
                                         seat_names=self.scenario.seat_names))


def _engine_module(engine: str):
    if engine == "reference":
        from samsim import reference as module
    elif engine == "kernel":
        from samsim import engine as module
    else:
        raise ValueError(f"unknown engine {engine!r} (engines: {', '.join(ENGINES)})")
    return module


def run_scenario(scenario: Scenario | str | Path | Mapping, engine: str = "kernel") -> ScenarioResult:
    """Play a scenario on one engine. An illegal scripted decision raises the engine's error."""
    if not isinstance(scenario, Scenario):
        scenario = load_scenario(scenario)
    module = _engine_module(engine)
    # a copy, so that no engine can change the scenario another engine runs next
    record = module.play_position(scenario.data, copy.deepcopy(scenario.position), log=True)
    events = [tuple(int(x) for x in e) for e in record.events]
    checkpoints = {r: _snapshot_after(module, scenario, r) for r in scenario.expect.get("after", {})}
    return ScenarioResult(scenario=scenario, engine=engine, snapshot=record.snapshot, events=events,
                          checkpoints=checkpoints)


def _snapshot_after(module, scenario: Scenario, last: int) -> dict:
    """The state after round ``last``: the same position played only up to that round. The play is
    fixed by the seed and the script, so this is the state the full run passes through; the engines
    need no hook to stop half-way."""
    position = copy.deepcopy(scenario.position)
    position["rounds"] = last - position.get("round", 1) + 1
    for key in ("arrivals", "decisions"):  # the engines refuse scripts for rounds not played
        if key in position:
            position[key] = {r: v for r, v in position[key].items() if r <= last}
    return module.play_position(scenario.data, position, log=False).snapshot


def run_and_check(scenario: Scenario, engine: str = "kernel") -> list[str]:
    """Run and check in one step, turning an expected rejection into a (passed) check. Only a rule
    rejects (``IllegalDecision``): a decision that is not well formed is an error of the file."""
    if scenario.expects_error:
        try:
            result = run_scenario(scenario, engine)
        except IllegalDecision as err:
            return check_expectations(scenario, err)
        return check_expectations(scenario, result)
    return check_expectations(scenario, run_scenario(scenario, engine))


def _event_matches(event: Sequence[int], pat: dict) -> bool:
    rnd, code, seat = event[0], event[1], event[2]
    if code != EVENT_CODE[pat["kind"]]:
        return False
    if "round" in pat and rnd != pat["round"]:
        return False
    if "seat" in pat and seat != pat["seat"]:
        return False
    for i, (name, _typ) in enumerate(EVENT_FIELDS[pat["kind"]]):
        if name in pat and event[3 + i] != pat[name]:
            return False
    return True


def _describe_pattern(data: GameData, pat: dict) -> str:
    parts = [pat["kind"]]
    for key in ("round", "seat"):
        if key in pat:
            parts.append(f"{key}={pat[key]}")
    for name, typ in EVENT_FIELDS[pat["kind"]]:
        if name in pat:
            v = pat[name]
            if v >= 0 and typ == "chip":
                v = data.chip_name(v)
            elif v >= 0 and typ == "card":
                v = data.card_name(v)
            elif v >= 0 and typ == "tile":
                v = TILE_KINDS[v]
            elif v >= 0 and typ == "nation":
                v = data.nation_names[v]
            parts.append(f"{name}={v}")
    if "count" in pat:
        parts.append(f"count={pat['count']}")
    return " ".join(parts)


def _free_rooms(snap: dict, seat: int) -> int:
    """Rooms with nobody in them (a lover alone or a couple makes a room not free): the final
    tie-break when the game has ended, counted from the hotel otherwise."""
    final = snap.get("final")
    if final is not None:
        return final["free_rooms"][seat]
    return sum(1 for room in snap["seats"][seat]["rooms"] if not room)


def _check_seat(data: GameData, snap: dict, key: str, seat: int, want) -> list[str]:
    """One per-seat expectation against a snapshot; the failures as lines."""
    seats = snap["seats"]
    who = f"seat {seat}"

    def show_cards(cards):
        return "[" + ", ".join(data.card_name(c) for c in cards) + "]"

    def show_chips(chips):
        return "[" + ", ".join(data.chip_name(c) for c in chips) + "]"

    if key == "free_rooms":
        got = _free_rooms(snap, seat)
        return [] if got == want else [f"free_rooms of {who}: got {got}, expected {want}"]
    if key in ("score", "rank", "win_credit"):
        final = snap["final"]
        got = final[key][seat]
        wrong = (abs(got - want) > 1e-9) if key == "win_credit" else got != want
        return [f"{key} of {who}: got {got}, expected {want}"] if wrong else []
    if key in ("hand", "discard"):
        got = sorted(seats[seat][key])
        return [f"{key} of {who}: got {show_cards(got)}, expected {show_cards(want)}"] if got != want else []
    if key == "suites":
        got = sorted(seats[seat]["suites"])
        return [f"suites of {who}: got {got}, expected {want}"] if got != want else []
    if key == "rooms":
        failures = []
        rooms = seats[seat]["rooms"]
        if want.get("all") is not None and len(rooms) != want["all"]:
            failures.append(f"rooms of {who}: owns {len(rooms)} rooms, expected {want['all']}")
        for room, chips in want["rooms"].items():
            if room >= len(rooms):
                failures.append(f"rooms of {who}: room {room} is not owned (owns {len(rooms)} rooms)")
            elif list(rooms[room]) != chips:
                failures.append(f"room {room} of {who}: got {show_chips(rooms[room])}, "
                                f"expected {show_chips(chips)}")
        return failures
    got = seats[seat][key]
    got = list(got) if key == "specials" else got
    return [f"{key} of {who}: got {got}, expected {want}"] if got != want else []


def _check_state(data: GameData, snap: dict, exp: dict, per_seat_keys: tuple[str, ...]) -> list[str]:
    """The checks of a state (the end of the run, or a checkpoint) against one snapshot."""
    failures: list[str] = []
    for key in per_seat_keys:
        if key in ("score", "rank", "win_credit") and exp.get(key) and snap.get("final") is None:
            failures.append(f"{key}: the snapshot has no final scores (round 12 not played)")
            continue
        for seat, want in exp.get(key, {}).items():
            failures += _check_seat(data, snap, key, seat, want)
    if "tiebreak" in exp and snap["tiebreak"] != exp["tiebreak"]:
        failures.append(f"tiebreak: got {snap['tiebreak']}, expected {exp['tiebreak']}")
    if "table_tiles" in exp and list(snap["table_tiles"]) != exp["table_tiles"]:
        failures.append(f"table_tiles: got {list(snap['table_tiles'])}, expected {exp['table_tiles']} "
                        f"(counts in the order {', '.join(TILE_KINDS)})")
    if "tile_stack" in exp and list(snap["tile_stack"]) != exp["tile_stack"]:
        failures.append(f"tile_stack: got {[TILE_KINDS[t] for t in snap['tile_stack']]}, "
                        f"expected {[TILE_KINDS[t] for t in exp['tile_stack']]}")
    for nation, want in exp.get("piles", {}).items():
        got = len(snap["piles"][nation])
        if got != want:
            failures.append(f"piles: {data.nation_names[nation]} has {got} chips left, expected {want}")
    in_pile = {chip for pile in snap["piles"] for chip in pile}
    for chip in exp.get("in_pile", []):
        if chip not in in_pile:
            failures.append(f"in_pile: {data.chip_name(chip)} is not in its pile")
    for chip in exp.get("not_in_pile", []):
        if chip in in_pile:
            failures.append(f"not_in_pile: {data.chip_name(chip)} is in its pile")
    return failures


def check_expectations(scenario: Scenario, result: ScenarioResult | BaseException) -> list[str]:
    """Every expectation of the scenario that the result fails, as readable lines (empty: all hold).

    ``result`` may be the exception a run raised, so that scenarios which must be rejected are
    checked the same way as those which must run.
    """
    exp = scenario.expect
    data = scenario.data
    if isinstance(result, BaseException):
        if "error" not in exp:
            return [f"the scenario was rejected: {type(result).__name__}: {result}"]
        message = str(result)
        if not any(s.lower() in message.lower() for s in exp["error"]):
            return [f"rejected with {message!r}, expected a message containing "
                    + " or ".join(repr(s) for s in exp["error"])]
        return []
    if "error" in exp:
        return ["expected a rejection with a message containing "
                + " or ".join(repr(s) for s in exp["error"]) + ", but the scenario ran"]

    failures = _check_state(data, result.snapshot, exp, PER_SEAT_EXPECT)
    if "round" in exp and result.snapshot["round"] != exp["round"]:
        failures.append(f"round: got {result.snapshot['round']}, expected {exp['round']}")
    for r, checks in exp.get("after", {}).items():
        snap = result.checkpoints.get(r)
        if snap is None:
            failures.append(f"after round {r}: no snapshot of that round (run_scenario takes one)")
            continue
        failures += [f"after round {r}: {line}"
                     for line in _check_state(data, snap, checks, CHECKPOINT_PER_SEAT)]

    events = result.events
    for pat in exp.get("events", []):
        n = sum(_event_matches(e, pat) for e in events)
        if "count" in pat:
            if n != pat["count"]:
                failures.append(f"events: {n} events match {_describe_pattern(data, pat)}")
        elif n == 0:
            failures.append(f"events: no event matches {_describe_pattern(data, pat)}")
    pos = 0
    for pat in exp.get("event_sequence", []):
        while pos < len(events) and not _event_matches(events[pos], pat):
            pos += 1
        if pos == len(events):
            failures.append(f"event_sequence: no event matches {_describe_pattern(data, pat)} "
                            "after the earlier ones of the sequence")
            break
        pos += 1
    for pat in exp.get("no_events", []):
        hits = [e for e in events if _event_matches(e, pat)]
        if hits:
            failures.append(f"no_events: {len(hits)} events match {_describe_pattern(data, pat)}, "
                            f"first {hits[0]}")
    if "log_contains" in exp:
        log = result.log()
        for text in exp["log_contains"]:
            if text not in log:
                failures.append(f"log_contains: no log line contains {text!r}")
    return failures
