"""The reference engine replays the logged choices of kernel games, event for event.

The engines-agree test only covers the built-in random policy, because the reference engine knows
no other. Any strategy's choices, though, are all in its game's event log: scripted back into a
position (``samsim.runs.trace.decisions_from_events``) they let the independent reference engine judge
every decision of any strategy, and the kernel's handling of it. Strategy tests import
``assert_reference_replays`` for that.
"""

import pytest

from samsim import components, engine, reference
from samsim.kernel import events as ev
from samsim.runs.trace import decisions_from_events

DATA = components.load()
SEED = 20260814
GAMES = 20
ALWAYS = {"take_pct": 100, "recall_pct": 100, "switch_pct": 100, "send_home_pct": 100}


def assert_reference_replays(data, players, seed, game, strategies, params=None):
    """Play one kernel game with ``strategies`` and demand the reference engine, given only its
    deal and its logged choices, logs the same events and ends in the same snapshot.

    Returns the kernel's record, so a caller can go on to check what the strategy did.
    """
    played = engine.play_game(data, players, seed, game, params, log=True, strategies=strategies)
    position = {"players": players, "seed": seed, "game": game,
                "decisions": decisions_from_events(data, played.events, players)}
    where = f"{players} players, seed {seed}, game {game}, strategies {strategies!r}"
    try:
        replayed = reference.play_position(data, position)
    except reference.IllegalDecision as err:
        pytest.fail(f"{where}: the reference engine rejects a logged decision: {err}")
    if replayed.events != played.events:
        first = next((i for i, (a, b) in enumerate(zip(played.events, replayed.events)) if a != b),
                     min(len(played.events), len(replayed.events)))
        kernel = played.events[first] if first < len(played.events) else "end of log"
        ref = replayed.events[first] if first < len(replayed.events) else "end of log"
        pytest.fail(f"{where}: event {first} differs: kernel {kernel} vs reference {ref}")
    assert replayed.snapshot == played.snapshot, where
    return played


@pytest.mark.parametrize("params", [None, ALWAYS], ids=["default", "always"])
@pytest.mark.parametrize("players", [3, 4, 5, 6])
def test_reference_replays_random_games(players, params):
    # ALWAYS makes recalls, switches, SEND_HOME and full groups common enough to be covered
    for game in range(GAMES):
        assert_reference_replays(DATA, players, SEED, game, None, params)


def test_the_replayed_games_exercise_every_kind_of_choice():
    """A replay check is only as good as the choices it saw: make sure the seeded games above
    hold each kind, including the ones a lover couple or an empty turn makes awkward."""
    seen = set()
    for params in (None, ALWAYS):
        for players in (3, 4, 5, 6):
            for game in range(GAMES):
                events = reference.play_game(DATA, players, SEED, game, params, log=True).events
                for i, (_r, kind, seat, a, b, c, _d) in enumerate(events):
                    seen.add(int(kind))
                    prev = events[i - 1]
                    if kind in (ev.SEND_HOME, ev.HOLIDAY) and prev[1:3] == (kind, seat) and prev[4] == b:
                        seen.add(("couple", int(kind)))
                    if kind == ev.PASS:
                        seen.add(("pass", a, b >= 0))
                    if kind == ev.BUY and c >= 0:
                        seen.add("suite")
    wanted = {int(ev.RECALL), int(ev.SWITCH), int(ev.SEND_HOME), int(ev.HOLIDAY), int(ev.HOST),
              ("couple", int(ev.SEND_HOME)), ("couple", int(ev.HOLIDAY)), ("pass", 0, False),
              ("pass", 1, False), ("pass", 1, True), "suite"}
    assert wanted <= seen, f"not covered: {wanted - seen}"


def test_decisions_from_a_hand_written_log():
    # round 3, 3 seats: seat 0 recalls two cards, plays 4, switches to 6, buys a suite on room 2,
    # sends a couple home, takes two chips; seat 1 declines the tile and picks group 1 but hosts
    # nobody; seat 2 goes on holiday and empties a couple's room and a single room.
    events = [
        (3, ev.FLAG, -1, 0, -1, -1, -1),
        (3, ev.RECALL, 0, 5, -1, -1, -1), (3, ev.RECALL, 0, 1, -1, -1, -1),
        (3, ev.PLAY, 0, 4, -1, -1, -1), (3, ev.PLAY, 1, 2, -1, -1, -1),
        (3, ev.PLAY, 2, DATA.components.holiday_card, -1, -1, -1),
        (3, ev.SWITCH, 0, 4, 6, -1, -1),
        (3, ev.BUY, 0, 1, 9, 2, -1), (3, ev.PASS, 1, 0, -1, -1, -1),
        (3, ev.SEND_HOME, 0, 20, 3, -1, -1), (3, ev.SEND_HOME, 0, 21, 3, -1, -1),
        (3, ev.HOST, 0, 40, 0, 9, 2), (3, ev.HOST, 0, 38, 3, 9, 2),
        (3, ev.PASS, 1, 1, 1, -1, -1),
        (3, ev.HOLIDAY, 2, 55, 4, -1, -1), (3, ev.HOLIDAY, 2, 56, 4, -1, -1),
        (3, ev.HOLIDAY, 2, 3, 0, -1, -1),
    ]
    none = {"recall": [], "switch": None, "build": None, "send_home": [], "group": None,
            "take": [], "holiday": []}
    assert decisions_from_events(DATA, events, 3) == {3: [
        {**none, "card": 4, "recall": [5, 1], "switch": 6, "build": {"tile": 1, "room": 2},
         "send_home": [3], "group": 2, "take": [[40, 0], [38, 3]]},
        {**none, "card": 2, "group": 1},
        {**none, "card": DATA.components.holiday_card, "holiday": [4, 0]},
    ]}
    assert decisions_from_events(DATA, events, 3, first_round=4) == {}
    with pytest.raises(ValueError, match="seat 2 plays no card"):
        decisions_from_events(DATA, events[:5], 3)
    with pytest.raises(ValueError, match="before it plays a card"):
        decisions_from_events(DATA, [events[7]], 3)
