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
from test_invariants import check_final, dealt_stack, replay_rounds
from test_replay_decisions import assert_reference_replays

from samsim import components, engine
from samsim.engine import registry as strategy
from samsim.engine.lineup import Lineup, lineup
from samsim.engine.registry import StrategyError, parse_spec
from samsim.kernel import events as ev
from samsim.kernel.contract import HIDDEN, View
from samsim.kernel.state import State

DATA = components.load()
LIBRARY = ["random", "fixed", "greedy", "undercut", "saver", "builder", "holiday", "weighted", "tuned",
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
    from samsim.kernel import moves
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
    ("greedy(speed=1)", r"greedy has no parameter 'speed' \(its parameters and defaults: tile_scale=1, temperature=0\)"),
    ("greedy(tile_scale=x)", r"parameter values must be numbers"),
    ("greedy(2)", r"write parameters as name=value"),
    ("lookahead(samples=0)", r"samples must be in 1\.\.1000, got 0"),
    ("undercut(margin=-5)", r"parameter margin must be in 0\.\.20, got -5"),
    ("undercut(margin=1e308)", r"parameter margin must be in 0\.\.20, got 1e\+308"),
    ("lookahead(samples=1.5)", r"parameter samples takes whole numbers \(its default is 12\)"),
    ("undercut(margin=2.5)", r"parameter margin takes whole numbers"),
    ("undercut(margin=2,margin=3)",
     r"^'undercut\(margin=2,margin=3\)': parameter margin is given twice$"),
    ("undercut(margin=2, scarce=1, margin=2)", r"parameter margin is given twice"),
    ("greedy@xyz", r"after @ come the first 8 hex digits"),
    ("undercut@1a2b3c4d", (r"undercut@1a2b3c4d: no file here replaces the built-in undercut .*"
                           r"write 'undercut' if the built-in is meant")),
    ("", r"a strategy must be named"),
    ("missing/file.py", r"strategy file missing/file\.py does not exist"),
])
def test_bad_specs_say_what_is_wrong(spec, message):
    with pytest.raises(StrategyError, match=message):
        parse_spec(spec)


def test_every_library_parameter_has_a_range_holding_its_default():
    """A parameter without a range takes any number (``undercut(margin=1e308)`` played games that
    meant nothing): every built-in parameter declares one, finite, around its default."""
    import importlib

    names = strategy.library_names()
    assert sorted(names) == sorted(LIBRARY)
    for name in names:
        module = importlib.import_module(f"strategies.{name}")
        params, limits = module.PARAMS, getattr(module, "LIMITS", {})
        assert set(limits) == set(params), f"{name}: LIMITS must cover exactly PARAMS"
        for param, default in params.items():
            lo, hi = limits[param]
            assert np.isfinite(lo) and np.isfinite(hi) and lo <= default <= hi, (name, param)
        info = strategy.load_strategy(name)
        assert info.limits == {k: (float(lo), float(hi)) for k, (lo, hi) in limits.items()}


STRATEGY_WITH_LIMITS = '''"""Test: plays its cheapest card."""
from samsim.kernel.decisions import CARD
from samsim.kernel.moves import G, cheapest_in_nb
from samsim.kernel.contract import decision

PARAMS = {"plenty": 6, "other": 0.5}
LIMITS = %s


@decision
def card(comp, view, params, rng, out):
    out[CARD] = cheapest_in_nb(comp, view.hand[G, view.me])
'''


@pytest.mark.parametrize("limits, message", [
    ('{"plenty": (0, 20)}', (r"parameter 'other' has no range: add LIMITS = \{'other': "
                             r"\(low, high\)\} \(inclusive, holding its default 0\.5\)")),
    ('{"plenty": (0, 20), "other": (1, 2)}', (r"LIMITS\['other'\] must be a \(low, high\) "
                                              r"pair of numbers holding the default 0\.5, "
                                              r"got \(1, 2\)")),
    ('{"plenty": (0, 20), "other": (0, "1")}', r"LIMITS\['other'\] must be a \(low, high\) pair"),
    ('{"plenty": (0, 20), "other": (0, 1), "typo": (0, 1)}',
     r"LIMITS names 'typo', which is not in PARAMS"),
    ('[(0, 20)]', r"LIMITS must be a dict of parameter name -> \(low, high\)"),
])
def test_a_parameter_needs_a_range(tmp_path, limits, message):
    path = tmp_path / "mine.py"
    path.write_text(STRATEGY_WITH_LIMITS % limits)
    with pytest.raises(StrategyError, match=r"strategy 'mine' \(.*mine\.py\): " + message):
        parse_spec(str(path))


def test_a_strategy_with_ranges_is_held_to_them(tmp_path):
    path = tmp_path / "mine.py"
    path.write_text(STRATEGY_WITH_LIMITS % '{"plenty": [0, 20], "other": (0, 1)}')
    assert parse_spec(f"{path}(plenty=20, other=0)").params == {"plenty": 20.0, "other": 0.0}
    with pytest.raises(StrategyError, match=r"parameter plenty must be in 0\.\.20, got 21"):
        parse_spec(f"{path}(plenty=21)")


def test_a_broken_strategy_file_is_reported(tmp_path):
    bad = tmp_path / "bad.py"
    bad.write_text('"""Broken."""\nimport nosuchmodule\n')
    with pytest.raises(StrategyError, match=r"bad\.py failed to import: ModuleNotFoundError"):
        parse_spec(str(bad))
    plain = tmp_path / "plain.py"
    plain.write_text('"""Not compiled."""\ndef card(comp, view, params, rng, out):\n    pass\n')
    with pytest.raises(StrategyError, match=r"card must be compiled"):
        parse_spec(str(plain))


@pytest.mark.parametrize("line, new", [("from samsim.strategy import decision", "kernel.contract"),
                                       ("from samsim.moves import G", "kernel.moves"),
                                       ("import samsim.rules.hotel", "kernel.rules")])
def test_a_strategy_written_for_samsim_0_1_is_told_where_its_imports_went(tmp_path, line, new):
    old = tmp_path / "old.py"
    old.write_text(f'"""Written for samsim 0.1."""\n{line}\n')
    with pytest.raises(StrategyError, match=rf"old\.py failed to import: .* is now samsim\.{new}"):
        parse_spec(str(old))


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
    from samsim.engine import registry as strategy

    library = strategy._library_dir()
    (tmp_path / "strategies").mkdir()
    (tmp_path / "strategies" / "greedy.py").write_bytes((library / "greedy.py").read_bytes())
    (tmp_path / "strategies" / "saver.py").write_text(
        (library / "saver.py").read_text(encoding="utf-8") + "\n# mine\n", encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    found = strategy.available()
    assert found["greedy"] == "strategies.greedy"
    assert found["saver"].endswith("saver.py")  # the user's file


def _shadowing_greedy(folder, change="\n# mine: the same play, another file\n"):
    library = strategy._library_dir()
    (folder / "strategies").mkdir(exist_ok=True)
    source = (library / "greedy.py").read_text(encoding="utf-8")
    (folder / "strategies" / "greedy.py").write_text(source + change, encoding="utf-8")


def test_a_local_file_shadowing_a_builtin_is_named_apart(tmp_path, monkeypatch):
    """``greedy`` finds ./strategies/greedy.py (how users override), but its games must never be
    labelled, reported or pooled as the built-in's: its name carries its source hash."""
    _shadowing_greedy(tmp_path)
    monkeypatch.chdir(tmp_path)
    mine = parse_spec("greedy")
    name = mine.spec()
    assert name.startswith("greedy@") and len(name) == len("greedy@") + 8, name
    assert name == f"greedy@{mine.info.source_hash[:8]}"
    assert mine.info.where == str(tmp_path / "strategies" / "greedy.py")
    assert [strategy.load_strategy(n).name for n in strategy.available()].count(name) == 1
    # the name finds the same code again, with parameters too
    assert parse_spec(name).info is mine.info
    tuned = parse_spec("greedy(tile_scale=2)")
    assert tuned.spec() == f"{name}(tile_scale=2)" and parse_spec(tuned.spec()) == tuned
    # seated beside the built-in (reached by its module), the two are never one member
    builtin = parse_spec("strategies.greedy")
    assert builtin.spec() == "greedy"
    line = Lineup([mine, builtin, mine, tuned])
    assert line.config() == {"seatings": [[name, "greedy", name, f"{name}(tile_scale=2)"]]}
    assert len(line.members) == 3 and len(line.infos) == 2
    # another hash: refused, naming the current one
    other = "0" * 8 if name[-8:] != "0" * 8 else "1" * 8
    with pytest.raises(StrategyError, match=rf"^greedy@{other}: ./strategies/greedy\.py \(or a "
                                            rf"file beside it\) has changed since \(now {name}\)$"):
        parse_spec(f"greedy@{other}")
    _shadowing_greedy(tmp_path, "\n# edited\n")
    edited = parse_spec("greedy").spec()
    assert edited.startswith("greedy@") and edited != name
    with pytest.raises(StrategyError, match=rf"has changed since \(now {edited}\)"):
        parse_spec(name)
    # the file removed: the name is the built-in again, and the old @ name says so
    (tmp_path / "strategies" / "greedy.py").unlink()
    assert parse_spec("greedy").spec() == "greedy"
    with pytest.raises(StrategyError, match=r"greedy is now the built-in strategy\); write "
                                            r"'greedy' if the built-in is meant"):
        parse_spec(name)


def test_an_identical_local_copy_keeps_the_builtin_name(tmp_path, monkeypatch):
    _shadowing_greedy(tmp_path, "")
    monkeypatch.chdir(tmp_path)
    assert parse_spec("greedy").spec() == "greedy"
    assert strategy.load_strategy(str(tmp_path / "strategies" / "greedy.py")).name == "greedy"
    with pytest.raises(StrategyError, match=r"is now the built-in strategy"):
        parse_spec("greedy@1a2b3c4d")


def test_a_local_strategy_with_its_own_name_has_no_at_name(tmp_path, monkeypatch):
    (tmp_path / "strategies").mkdir()
    (tmp_path / "strategies" / "mine.py").write_text(STRATEGY_WITH_LIMITS
                                                     % '{"plenty": (0, 20), "other": (0, 1)}')
    monkeypatch.chdir(tmp_path)
    assert parse_spec("mine").spec() == "mine"
    with pytest.raises(StrategyError, match=r"mine@1a2b3c4d: mine is not named after a built-in "
                                            r"strategy, so it has no @ name; write 'mine'"):
        parse_spec("mine@1a2b3c4d")


def test_greedy_temperature_draws_among_near_best_cards_and_zero_changes_nothing():
    plain = engine.run_batch(200, 4, 3, strategies="greedy")
    zero = engine.run_batch(200, 4, 3, strategies="greedy(temperature=0)")
    warm = engine.run_batch(200, 4, 3, strategies="greedy(temperature=30)")
    np.testing.assert_array_equal(plain.money, zero.money)  # no draw at 0: the same games
    assert (plain.money != warm.money).any()
