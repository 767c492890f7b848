"""The shared conformance test every strategy passes, and the strategy contract around it.

Every strategy of the library, in every seat and at every player count: only legal decisions (the
rules check each one, and the independent reference engine replays the logged choices), games
finish, the same seed gives the same games, and a decision never changes with what the seat may
not know. Seats are rotated through the library; each strategy compiles once, into its entry points.
"""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from samsim import components, engine, strategy
from samsim import events as ev
from samsim.strategy import HIDDEN, StrategyError, View, lineup, parse_spec
from samsim.state import State
from test_invariants import check_final, dealt_stack, replay_rounds
from test_replay_decisions import assert_reference_replays

DATA = components.load()
LIBRARY = ["random", "fixed", "greedy", "undercut", "saver", "builder", "holiday", "weighted",
           "lookahead"]
ALL = lineup(4, "random")


def seats_for(players: int, first: int) -> list[str]:
    """Consecutive library strategies from ``first``: over all ``first`` every strategy sits in
    every seat."""
    return [LIBRARY[(first + s) % len(LIBRARY)] for s in range(players)]


def test_the_library_is_what_the_issue_lists():
    assert sorted(strategy.available()) == sorted(LIBRARY)
    for name in LIBRARY:
        info = strategy.load_strategy(name)
        assert len(info.idea) > 150, f"{name}: the docstring should explain the idea"


@pytest.mark.parametrize("players", [3, 4, 5, 6])
def test_every_strategy_in_every_seat_plays_legal_finished_repeatable_games(players):
    for first in range(len(LIBRARY)):
        seats = seats_for(players, first)
        line = lineup(players, seats)
        st = engine.run_batch(60, players, seed=7 + first, strategies=line)  # raises if illegal
        assert (st.round_no == DATA.components.rounds).all()
        assert np.allclose(st.win_credit.sum(axis=1), 1.0)
        again = engine.run_batch(60, players, seed=7 + first, strategies=line, threads=1)
        for name in ("money", "rank", "tiles_bought", "tourists_hosted", "n_events"):
            assert np.array_equal(getattr(st, name), getattr(again, name)), (seats, name)


@pytest.mark.parametrize("players", [3, 4, 5, 6])
def test_the_reference_engine_accepts_every_strategys_choices(players):
    for first in range(len(LIBRARY)):
        for game in range(2):
            assert_reference_replays(DATA, players, 11, game, lineup(players, seats_for(players, first)))


def test_strategies_do_something_different():
    """A strategy that silently fell back to the defaults would pass every test above."""
    moneys = {}
    for name in LIBRARY:
        st = engine.run_batch(200, 4, seed=3, strategies=lineup(4, [name] * 4))
        moneys[name] = st.money.copy()
    for a in LIBRARY:
        for b in LIBRARY:
            if a < b:
                assert not np.array_equal(moneys[a], moneys[b]), (a, b)


# ------------------------------------------------------------------------------- hidden information

def test_the_view_holds_no_hidden_field():
    public = set(View._fields) - {"me", "memo"}
    assert public.isdisjoint(HIDDEN)
    assert public | set(HIDDEN) == set(State._fields), "classify every state field as seen or hidden"


def _round_events(position, rnd):
    return [e for e in engine.play_position(DATA, position).events if e[0] == rnd]


@pytest.mark.parametrize("name", [n for n in LIBRARY])
def test_decisions_ignore_the_order_of_the_decks(name):
    """Round 4 of a 4-player game reveals one tile: the rest of the stack and the tourist cards of
    later rounds are face down, so no decision of round 4 may depend on their order."""
    base = {"players": 4, "seed": 5, "game": 1, "round": 4, "rounds": 1,
            "strategies": lineup(4, [name] * 4)}
    stack = [0, 1, 2, 0, 1, 2, 3, 4, 5, 0, 1, 2]
    shuffled = [0] + stack[1:][::-1]
    one = _round_events({**base, "tile_stack": stack, "tourist_cards": [3, 1, 2, 4]}, 4)
    two = _round_events({**base, "tile_stack": shuffled, "tourist_cards": [3, 4, 2, 1]}, 4)
    assert one == two


@pytest.mark.parametrize("name", ["greedy", "undercut", "weighted", "lookahead", "holiday"])
def test_no_seat_sees_a_card_chosen_before_its_own(name):
    """Price cards are chosen face down: seat 1's choice must not change with seat 0's card of
    the same round (seat 0 chooses first in the kernel's loop)."""
    base = {"players": 4, "seed": 9, "game": 2, "round": 3, "rounds": 1,
            "strategies": lineup(4, ["random", name, name, name])}
    plays = []
    for card in (0, 9):
        decisions = {3: [{"card": card}, None, None, None]}
        events = _round_events({**base, "decisions": decisions}, 3)
        plays.append([e for e in events if e[1] == ev.PLAY and e[2] > 0])  # PLAY of seats 1..3
    assert plays[0] and plays[0] == plays[1]


def test_a_rival_with_only_the_holiday_card_is_guessed_to_play_it():
    """Late in a game a hand can hold the Staff holiday card alone. The guess of its card indexes
    the price tables: a -1 there read memory outside them (Numba does not check bounds), which made
    the games depend on the process."""
    from samsim import moves
    c = DATA.components
    assert moves.typical_card_nb(c, np.int64(1 << c.holiday_card)) == c.holiday_card
    assert moves.typical_card_nb(c, np.int64((1 << c.holiday_card) | 0b110)) in (1, 2)


# ------------------------------------------------------------------------------- specs and params

def test_specs_round_trip_and_override_defaults():
    s = parse_spec("undercut(margin=2)")
    assert s.params == {"margin": 2.0, "scarce": 1.0}
    assert s.spec() == "undercut(margin=2)"
    assert parse_spec("undercut").spec() == "undercut"
    assert parse_spec(" weighted(w_price=-0.5) ").params["w_price"] == -0.5


@pytest.mark.parametrize("spec, message", [
    ("nosuch", r"unknown strategy 'nosuch'; known: .*lookahead"),
    ("greedy(speed=1)", r"greedy has no parameter 'speed' \(its parameters and defaults: tile_scale=1\)"),
    ("greedy(tile_scale=x)", r"parameter values must be numbers"),
    ("greedy(2)", r"write parameters as name=value"),
    ("lookahead(samples=0)", r"samples must be in 1\.\.1000, got 0"),
    ("", r"a strategy must be named"),
    ("missing/file.py", r"strategy file missing/file\.py does not exist"),
])
def test_bad_specs_say_what_is_wrong(spec, message):
    with pytest.raises(StrategyError, match=message):
        parse_spec(spec)


def test_a_broken_strategy_file_is_reported(tmp_path):
    bad = tmp_path / "bad.py"
    bad.write_text('"""Broken."""\nimport nosuchmodule\n')
    with pytest.raises(StrategyError, match=r"bad\.py failed to import: ModuleNotFoundError"):
        parse_spec(str(bad))
    plain = tmp_path / "plain.py"
    plain.write_text('"""Not compiled."""\ndef card(comp, view, params, rng, out):\n    pass\n')
    with pytest.raises(StrategyError, match=r"card must be compiled"):
        parse_spec(str(plain))


# ------------------------------------------------------------------------------- invariants

@settings(max_examples=60, deadline=None)
@given(players=st.integers(3, 6), seed=st.integers(0, 2**64 - 1), game=st.integers(0, 2**40),
       picks=st.lists(st.sampled_from(LIBRARY), min_size=6, max_size=6))
def test_the_game_invariants_hold_whoever_plays(players, seed, game, picks):
    """The invariant checks of test_invariants (written for the random policy) on games of any
    mix of library strategies: the final state is consistent, and replaying the log move by move
    from the deal ends in exactly the kernel's final state."""
    record = engine.play_game(DATA, players, seed, game, log=True,
                              strategies=lineup(players, picks[:players]))
    check_final(record, players)
    _, replay = replay_rounds(record, players, dealt_stack(players, seed, game))
    assert replay.done == DATA.components.rounds
    assert replay.state() == {k: v for k, v in record.snapshot.items() if k != "final"}


def test_a_local_copy_of_a_builtin_is_the_builtin(tmp_path, monkeypatch):
    """Run from a samsim checkout, ./strategies holds copies of the library: they must not count
    as user files (a second compiled engine); a local file that differs does replace it."""
    from samsim import strategy

    library = strategy._library_dir()
    (tmp_path / "strategies").mkdir()
    (tmp_path / "strategies" / "greedy.py").write_bytes((library / "greedy.py").read_bytes())
    (tmp_path / "strategies" / "saver.py").write_text(
        (library / "saver.py").read_text(encoding="utf-8") + "\n# mine\n", encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    found = strategy.available()
    assert found["greedy"] == "strategies.greedy"
    assert found["saver"].endswith("saver.py")  # the user's file
